"""A brief's citation is a link that seeks: a local file plays from the cited second, a
video with nothing to play opens its transcript there with the quote marked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import (
    BUILD_TIMEOUT,
    ask,
    citation_links,
    click_citation,
    make_collection,
    open_briefs,
)
from tests.gui.conftest import wait_for
from tests.gui.player_helpers import long_talk, subtitles_alone
from tests.gui.test_player import wait_playing_from
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_a_citation_click_plays_the_local_file_or_opens_the_reader_at_that_second(
    qtbot: QtBot, core: CoreAPI, make_window: Callable[[CoreAPI], MainWindow], tmp_path: Path
) -> None:
    media, _srt = long_talk(tmp_path / "talk", name="talk")  # says it at 2:30 too
    (talk_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    subtitles_id, _missing = subtitles_alone(qtbot, core, tmp_path / "subs")
    collection = make_collection(qtbot, core, "Plants", [talk_id, subtitles_id])
    window = make_window(core)
    pane = open_briefs(qtbot, window)
    ask(qtbot, pane, collection.id, "How does photosynthesis turn light into sugar?")
    qtbot.waitUntil(pane.form.build.isEnabled, timeout=10000)
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
    assert finished.args == ["done"]
    links = citation_links(pane)
    talk = next(link for link in links if link[1] == talk_id)
    text, _video, seconds = talk
    assert seconds > 0  # not the start of the video: the cited line
    with qtbot.waitSignal(pane.cite_requested) as cite:
        click_citation(qtbot, pane, text)
    assert cite.args[:2] == [talk_id, pytest.approx(seconds)] and cite.args[2]
    wait_playing_from(qtbot, window.player, media, seconds)
    # the subtitles-only video has nothing to play: its transcript opens at the quote
    text, _video, seconds = next(link for link in links if link[1] == subtitles_id)
    with qtbot.waitSignal(pane.cite_requested) as cite:
        click_citation(qtbot, pane, text)
    qtbot.waitUntil(window.player.showing_reader, timeout=10000)
    assert window.player.reader.video_id == subtitles_id
    assert window.player.reader.seconds == pytest.approx(seconds)
    assert window.player.reader.quote == cite.args[2] != ""
