"""The window never freezes while a brief builds: with a build under way over a whole
collection (its model still thinking), a search runs and shows its results and the library
shows a video's details, all before the build ends; then the build ends as it should."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import BUILD_TIMEOUT, ask, make_collection, open_briefs, scripted_core
from tests.gui.conftest import wait_for
from tests.unit.briefs.scripted import BriefWriter
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui

HOMUNCULUS = "youtube:fxZWtc0mYpQ"


@pytest.fixture
def thinking() -> asyncio.Event:
    """Set when the model may answer: until then every model call of the build waits."""
    return asyncio.Event()


@pytest.fixture
def model_core(
    crashcourse_file: Path,
    tmp_path: Path,
    qloop: asyncio.AbstractEventLoop,
    qtbot: QtBot,
    thinking: asyncio.Event,
) -> Iterator[CoreAPI]:
    writer = BriefWriter(context_window=4096, wait_for=thinking)
    yield from scripted_core(qtbot, crashcourse_file, tmp_path / "lib.duckdb", writer)


def test_search_and_the_library_answer_while_a_brief_builds_over_a_collection(
    qtbot: QtBot,
    model_core: CoreAPI,
    thinking: asyncio.Event,
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    videos = [v.id for v in wait_for(qtbot, model_core.list_videos())]
    assert len(videos) == 10
    collection = make_collection(qtbot, model_core, "Psychology", videos)
    window = make_window(model_core)
    pane = open_briefs(qtbot, window)
    ask(qtbot, pane, collection.id, "What do these videos say about memory?", model="")
    qtbot.waitUntil(pane.form.build.isEnabled, timeout=30000)
    finished: list[str] = []
    pane.build_finished.connect(finished.append)
    qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: pane.progress.stage.text().startswith("reading video 1 of 10 (part 1/"),
        timeout=30000,
    )

    # the search pane: type, get results
    window.focus_search()
    search = window.search
    search.filters.mode.setCurrentText("keyword")
    with qtbot.waitSignal(search.results_shown, timeout=30000) as shown:
        qtbot.keyClicks(search.query, "homunculus")
        qtbot.keyClick(search.query, Qt.Key.Key_Return)
    assert shown.args[0] == "homunculus" and search.cards
    assert search.cards[0].hit.video_id == HOMUNCULUS
    # the library: a video's details
    window.actions_.library.trigger()
    window.library.table.select_ids([HOMUNCULUS])
    qtbot.waitUntil(lambda: window.library.details.video_id == HOMUNCULUS, timeout=30000)
    assert finished == [] and pane.busy()  # all of it while the brief was building
    assert pane.progress.stage.text().startswith("reading video 1 of 10")

    thinking.set()  # the model answers: the build goes on to its end
    qtbot.waitUntil(lambda: finished == ["done"], timeout=BUILD_TIMEOUT)
    brief = pane.view.brief
    assert brief is not None and brief.pass_kind == "map-reduce"
    assert len([c for c in brief.coverage if c.status == "read"]) == 10
