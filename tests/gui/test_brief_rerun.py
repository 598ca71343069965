"""A model brief in the pane, written by a scripted model over the real pipeline (map,
verify, reduce): its progress counts videos, and a re-run after a video joins the
collection reads only that video and says how much it reused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import (
    BUILD_TIMEOUT,
    FORGET,
    MAKE,
    ask,
    make_collection,
    open_briefs,
    scripted_core,
)
from tests.gui.conftest import wait_for
from tests.unit.briefs.scripted import BriefWriter
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.brief.pane import BriefPane

pytestmark = pytest.mark.gui

QUESTION = "How are memories made and lost?"


@pytest.fixture
def writer() -> BriefWriter:
    return BriefWriter(context_window=4096)  # a small window: each video in several parts


@pytest.fixture
def model_core(
    crashcourse_file: Path,
    tmp_path: Path,
    qloop: asyncio.AbstractEventLoop,
    qtbot: QtBot,
    writer: BriefWriter,
) -> Iterator[CoreAPI]:
    yield from scripted_core(qtbot, crashcourse_file, tmp_path / "lib.duckdb", writer)


def build(qtbot: QtBot, pane: BriefPane, click: Callable[[], None]) -> None:
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        click()
    assert finished.args == ["done"], pane.progress.stage.text()


def test_a_re_run_after_adding_a_video_reads_only_it_and_shows_what_it_reused(
    qtbot: QtBot,
    model_core: CoreAPI,
    writer: BriefWriter,
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    collection = make_collection(qtbot, model_core, "Memory", [MAKE])
    window = make_window(model_core)
    pane = open_briefs(qtbot, window)
    ask(qtbot, pane, collection.id, QUESTION, model="")  # Automatic: the scripted writer
    qtbot.waitUntil(pane.form.build.isEnabled, timeout=30000)
    build(qtbot, pane, lambda: qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton))
    first = pane.view.brief
    assert first is not None and first.pass_kind == "map-reduce" and first.reused_maps == 0
    parts = writer.calls.count("map")
    assert parts >= 2  # the video was read in parts
    reading = [s for s in pane.progress.stages if s.startswith("reading")]
    assert reading == [f"reading video 1 of 1 (part {n}/{parts})" for n in range(1, parts + 1)]
    assert "reused" not in pane.progress.stage.text()
    assert "Re-run" not in pane.view.text.toPlainText()
    qtbot.waitUntil(lambda: pane.saved.ids() == [first.id], timeout=10000)

    # a second video joins the collection; the saved brief is re-run from the list
    wait_for(qtbot, model_core.add_to_collection(collection.id, [FORGET]))
    writer.calls.clear()
    pane.saved.list.setCurrentRow(0)
    qtbot.waitUntil(lambda: pane.saved.rerun.isEnabled())
    build(qtbot, pane, lambda: qtbot.mouseClick(pane.saved.rerun, Qt.MouseButton.LeftButton))
    again = pane.view.brief
    assert again is not None and again.id == first.id
    new_parts = writer.calls.count("map")  # only the new video was read by the model
    total = parts + new_parts
    assert new_parts >= 1 and again.reused_maps == parts
    reading = [s for s in pane.progress.stages if s.startswith("reading")]
    assert reading[0] == f"reading video 1 of 2 (part 1/{total})"
    assert reading[-1] == f"reading video 2 of 2 (part {total}/{total})"
    assert len(reading) == total
    # what the pane says: in the progress line, and in the brief itself
    finished = pane.progress.stage.text()
    assert finished.startswith("Done")
    assert f"reused the reading of {parts} of {total} parts, read only the rest" in finished
    shown = pane.view.text.toPlainText()
    assert f"Re-run: the reading of {parts} parts was reused from the last run" in shown
    assert len([c for c in again.coverage if c.status == "read"]) == 2
