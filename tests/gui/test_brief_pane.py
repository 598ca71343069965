"""The brief pane: an extractive brief over a collection shows its stages then the result;
cancelling mid-run saves nothing; a brief an agent builds appears in the saved list; the
pane is the window's fourth pane with its own shortcut."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import (
    BUILD_TIMEOUT,
    ask,
    citation_links,
    make_collection,
    open_briefs,
)
from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import BriefDone, BriefRequest, BriefStep
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.brief.html import TOGGLE_UNVERIFIED
from v2c_desktop.ui.panes.brief.progress import RunProgress

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]
QUESTION = "How are memories stored and forgotten?"


def memory_collection(qtbot: QtBot, core: CoreAPI, count: int = 3) -> str:
    videos = wait_for(qtbot, core.list_videos())
    words = ("Memor", "Forgetting", "Sleep")
    picked = [v.id for v in videos if any(w in v.title for w in words)][:count]
    assert len(picked) >= 2, [v.title for v in videos]
    return make_collection(qtbot, core, "Memory", picked).id


def test_an_extractive_brief_over_a_collection_shows_its_stages_then_the_result(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    collection = memory_collection(qtbot, crashcourse)
    window = make_window(crashcourse)
    pane = open_briefs(qtbot, window)
    assert window.navigation.is_available("brief")
    ask(qtbot, pane, collection, QUESTION)
    # the estimate comes before anything starts: videos, hours, tokens, the pass
    qtbot.waitUntil(lambda: pane.form.estimate is not None, timeout=30000)
    estimate = pane.form.estimate
    assert estimate is not None and estimate.pass_kind == "extractive"
    assert estimate.videos >= 2 and estimate.tokens > 1000 and estimate.hours > 0
    text = pane.form.estimate_label.text()
    assert text.startswith(f"{estimate.videos} videos, ") and "extractive, no model" in text
    assert pane.form.build.isEnabled()
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
        assert pane.progress.isVisible() and pane.progress.cancel.isEnabled()
    assert finished.args == ["done"]
    stages = pane.progress.stages
    assert stages[0].startswith("finding the videos")
    assert any(s.startswith("finding the best passages in ") for s in stages)
    assert stages[-1] == "saving the brief"
    assert pane.progress.stage.text().startswith("Done")
    assert not pane.progress.cancel.isEnabled()
    brief = pane.view.brief
    assert brief is not None and brief.extractive and brief.topics
    shown = pane.view.text.toPlainText()
    assert shown.index("Bottom line") < shown.index(brief.topics[0].name)  # bottom line first
    assert "Coverage" in shown and "Status: " in shown
    links = citation_links(pane)
    cited = {(c.video_id, c.start) for p in brief.points for c in [*p.support, *p.oppose]}
    assert links and {(v, s) for _t, v, s in links} <= {(v, round(s, 3)) for v, s in cited}
    assert all(" @ " in text for text, _v, _s in links)
    # it is saved, listed and highlighted
    qtbot.waitUntil(lambda: pane.saved.ids() == [brief.id], timeout=10000)
    assert pane.saved.current_id() == brief.id
    item = pane.saved.list.item(0).text()
    assert "collection Memory" in item and "brief" in item
    assert wait_for(qtbot, crashcourse.list_briefs())[0].id == brief.id


def test_cancel_mid_run_leaves_no_half_saved_brief(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    collection = memory_collection(qtbot, crashcourse)
    window = make_window(crashcourse)
    pane = open_briefs(qtbot, window)
    ask(qtbot, pane, collection, QUESTION)
    shown: list[str] = []
    step = pane.progress.step

    def step_then_cancel(event: BriefStep) -> None:  # Cancel pressed as the passages are read
        step(event)
        shown.append(event.stage)
        if event.stage == "extract" and pane.progress.cancel.isEnabled():
            qtbot.mouseClick(pane.progress.cancel, Qt.MouseButton.LeftButton)

    pane.progress.step = step_then_cancel  # type: ignore[method-assign]
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
    assert finished.args == ["cancelled"]
    assert "extract" in shown and "render" not in shown  # stopped mid-run
    assert pane.progress.stage.text() == "Cancelled: nothing was saved."
    assert pane.view.brief is None
    assert wait_for(qtbot, crashcourse.list_briefs()) == []
    pane.saved.refresh()
    qtbot.waitUntil(lambda: pane.saved.list.count() == 0)
    assert pane.form.build.isEnabled()  # ready for the next one


def test_a_brief_an_agent_builds_appears_in_the_saved_list(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    collection = memory_collection(qtbot, crashcourse)
    window = make_window(crashcourse)
    with qtbot.waitSignal(window.brief_pane.saved.listed, timeout=10000):
        pane = open_briefs(qtbot, window)  # the list is read once the pane shows
    assert pane.saved.ids() == []  # so the agent's brief can only come by the change feed

    async def agent() -> str:  # what `v2c mcp`'s brief tool does through the library
        request = BriefRequest(QUESTION, collection=collection, extractive=True)
        async for event in crashcourse.build_brief(request):
            if isinstance(event, BriefDone):
                return event.brief.id
        raise AssertionError("no brief")

    brief_id = wait_for(qtbot, agent(), timeout=BUILD_TIMEOUT)
    qtbot.waitUntil(lambda: pane.saved.ids() == [brief_id], timeout=10000)
    # opening it shows it; the claims left out stay collapsed until asked for
    pane.saved.list.setCurrentRow(0)
    qtbot.waitUntil(lambda: pane.view.brief is not None and pane.view.brief.id == brief_id)


def test_the_brief_pane_has_its_own_shortcut(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.brief_pane
    assert window.actions_.brief.shortcut().toString() == "Ctrl+B"
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.library
    assert TOGGLE_UNVERIFIED.startswith("v2c-brief:")


def test_a_saved_brief_is_renamed_re_run_copied_and_deleted(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    from PySide6.QtGui import QGuiApplication

    collection = memory_collection(qtbot, crashcourse)
    window = make_window(crashcourse)
    pane = open_briefs(qtbot, window)
    ask(qtbot, pane, collection, QUESTION)
    qtbot.waitUntil(pane.form.build.isEnabled, timeout=30000)
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT):
        qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
    brief = pane.view.brief
    assert brief is not None
    qtbot.waitUntil(lambda: pane.saved.ids() == [brief.id], timeout=10000)

    pane.saved.rename_brief(brief.id, "Memory, my notes")
    qtbot.waitUntil(lambda: "Memory, my notes" in pane.saved.list.item(0).text(), timeout=10000)
    assert wait_for(qtbot, crashcourse.get_brief(brief.id)).title == "Memory, my notes"

    pane.view.copy_markdown()  # what the user pastes elsewhere: the brief with its links
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("# ") and "&t=" in copied

    pane.saved.list.setCurrentRow(0)
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as again:
        qtbot.mouseClick(pane.saved.rerun, Qt.MouseButton.LeftButton)
    assert again.args == ["done"]
    assert pane.saved.ids() == [brief.id]  # re-run in place: the same saved brief
    assert pane.view.brief is not None and pane.view.brief.id == brief.id

    pane.saved.delete_brief(brief.id)
    qtbot.waitUntil(lambda: pane.saved.ids() == [], timeout=10000)
    assert wait_for(qtbot, crashcourse.list_briefs()) == []
    assert pane.view.brief is None  # the deleted brief is no longer shown


def test_progress_words_come_from_the_steps_numbers_not_their_message(qtbot: QtBot) -> None:
    """The pane's words are made from the numbers a step carries: a message worded any
    other way (the CLI's and MCP's words, in any language) changes nothing it shows."""
    progress = RunProgress()
    qtbot.addWidget(progress)
    progress.start()
    odd = "wörter, die der Kern anders schreibt (part 99)"
    for step, shown in [
        (BriefStep("scope", 0, None, odd), "finding the videos"),
        (BriefStep("scope", 14, 14, odd, videos=12), "finding the videos: 12 videos to read"),
        (
            BriefStep("map", 8, 30, odd, videos=12, video=4, part=9, parts=30, reused=3),
            "reading video 4 of 12 (part 9/30)",
        ),
        (BriefStep("map", 30, 30, odd, videos=12, parts=30, reused=3), "verifying the quotes"),
        (BriefStep("reduce", 0, 1, odd, videos=12), "merging topics"),
        (BriefStep("extract", 0, 5, odd, videos=5), "finding the best passages in 5 videos"),
        (
            BriefStep("extract", 1, 5, odd, videos=5, video=2),
            "finding the best passages: video 2 of 5",
        ),
        (BriefStep("extract", 5, 5, odd, videos=5), "grouping the passages into topics"),
    ]:
        progress.step(step)
        assert progress.stage.text() == shown
        if step.stage == "map" and step.part:
            assert (progress.bar.value(), progress.bar.maximum()) == (8, 30)
        if step.stage == "extract" and step.video:
            assert (progress.bar.value(), progress.bar.maximum()) == (1, 5)
    assert (progress.count.videos, progress.count.parts, progress.count.reused) == (5, 30, 3)
