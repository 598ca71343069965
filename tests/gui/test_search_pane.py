"""The search pane: cards from the real engine, clicks that seek the player, no stale results."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for, write_media
from tests.gui.youtube_stub import page_calls, start_stub
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.search.pane import SearchPane
from v2c_desktop.ui.player.local_backend import LocalBackend
from v2c_desktop.ui.player.youtube_backend import YouTubeBackend
from v2c_desktop.ui.rich_text import snippet_html

pytestmark = pytest.mark.gui


def make_pane(qtbot: QtBot, api: CoreAPI, runner: JobRunner) -> SearchPane:
    pane = SearchPane(api, runner)
    qtbot.addWidget(pane)
    pane.filters.mode.setCurrentText("keyword")
    pane.timer.stop()
    pane.show()
    return pane


def search(qtbot: QtBot, pane: SearchPane, text: str) -> None:
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        pane.query.setText(text)
        pane.search_now()


def test_snippets_are_escaped_then_bold() -> None:
    assert snippet_html("a <b>tag</b> & **memory** of **x&y**") == (
        "a &lt;b&gt;tag&lt;/b&gt; &amp; <b>memory</b> of <b>x&amp;y</b>"
    )


def test_keyword_search_shows_cards(qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    search(qtbot, pane, "homunculus")
    assert pane.cards, pane.status.text()
    card = pane.cards[0]
    assert card.hit.video_id == "youtube:fxZWtc0mYpQ"
    assert "<b>" in card.snippet.text().lower()
    assert "Homunculus" in card.title.text()
    assert "[" in card.title.text() and "-" in card.title.text()  # the [m:ss-m:ss] range
    assert pane.status.text().startswith(f"{len(pane.cards)} result")


def test_typing_waits_for_a_pause_and_only_the_last_query_is_shown(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    started: list[str] = []
    runner.started.connect(lambda _job, label: started.append(label))
    shown: list[tuple[str, int]] = []
    pane.results_shown.connect(lambda query, count: shown.append((query, count)))
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        qtbot.keyClicks(pane.query, "memory and forgetting")
        assert pane.query.text() == "memory and forgetting"  # typing was never held up
        assert started == []  # nothing searched while typing
        assert pane.timer.isActive()
    assert started == ["search"]
    assert shown[-1][0] == "memory and forgetting"

    # searches that overlap: each newer one cancels the older, stale results never show
    shown.clear()
    cancelled: list[str] = []
    runner.cancelled.connect(cancelled.append)
    for text in ("psychology", "sleep", "brain"):
        pane.query.setText(text)
        pane.search_now()
    pane.timer.stop()
    qtbot.waitUntil(lambda: bool(shown), timeout=30000)
    qtbot.waitUntil(lambda: not runner.active() and len(cancelled) == 2, timeout=30000)
    assert [q for q, _ in shown] == ["brain"]
    assert all(card.hit for card in pane.cards)
    assert pane.shown_query == "brain"


def test_an_empty_query_clears_the_cards(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    search(qtbot, pane, "brain")
    assert pane.cards
    search(qtbot, pane, "   ")
    assert pane.cards == []


def test_a_bad_query_shows_the_message_and_hint(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    with qtbot.waitSignal(runner.failed, timeout=30000) as failed:
        pane.query.setText("-only -exclusions")
        pane.search_now()
    assert failed.args[2] in pane.status.text()
    assert failed.args[3] and failed.args[3] in pane.status.text()


def test_filters_narrow_the_search(qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh_filters()
    qtbot.waitUntil(lambda: pane.filters.channel.count() == 2)  # Any + CrashCourse
    pane.filters.after.setText("2014-04-01")
    search(qtbot, pane, "brain")
    assert pane.cards
    published = {
        wait_for(qtbot, crashcourse.get_video(c.hit.video_id)).video.published for c in pane.cards
    }
    assert all(p and p >= "2014-04-01" for p in published)


def test_clicking_a_card_seeks_the_youtube_player(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    window = make_window(crashcourse)
    pane = window.search
    pane.filters.mode.setCurrentText("keyword")
    search(qtbot, pane, "homunculus")
    first = pane.cards[0]
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(window.player.backend, YouTubeBackend), timeout=10000)
    backend = window.player.backend
    assert isinstance(backend, YouTubeBackend)
    start_stub(qtbot, backend)
    calls = page_calls(qtbot, backend)
    assert ["seekTo", pytest.approx(round(first.hit.start, 3))] in calls
    assert ["playVideo"] in calls
    # a second card of the same video seeks the loaded player in place
    other = next(c for c in pane.cards[1:] if c.hit.video_id == first.hit.video_id)
    other.activate()
    qtbot.waitUntil(
        lambda: ["seekTo", pytest.approx(round(other.hit.start, 3))] in page_calls(qtbot, backend),
        timeout=5000,
    )
    assert backend.calls[-2:] == [f"v2c.seekTo({round(other.hit.start, 3)})", "v2c.playVideo()"]


def test_clicking_a_card_seeks_the_local_player(
    qtbot: QtBot, core: CoreAPI, make_window: Callable[[CoreAPI], MainWindow], tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    wait_for(qtbot, core.add([str(media)]))
    window = make_window(core)
    pane = window.search
    pane.filters.mode.setCurrentText("keyword")
    search(qtbot, pane, "photosynthesis")
    (card,) = pane.cards
    assert card.hit.start == pytest.approx(62.5)
    card.activate()
    qtbot.waitUntil(lambda: isinstance(window.player.backend, LocalBackend), timeout=10000)
    backend = window.player.backend
    assert isinstance(backend, LocalBackend)
    qtbot.waitUntil(lambda: 62500 <= backend.player.position() < 66000, timeout=10000)


def test_hybrid_search_says_when_meaning_search_is_not_ready(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    wait_for(qtbot, core.add([str(media)]))
    pane = make_pane(qtbot, core, runner)
    pane.filters.mode.setCurrentText("hybrid")
    search(qtbot, pane, "light")
    assert len(pane.cards) == 1
    assert "meaning search: no video has vectors yet" in pane.status.text()
    assert wait_for(qtbot, core.index_pending(), timeout=120000) == 1  # the real embedder
    search(qtbot, pane, "plants turning sunlight into food")
    assert pane.cards and pane.status.text() == f"{len(pane.cards)} result" + (
        "s" if len(pane.cards) > 1 else ""
    )
