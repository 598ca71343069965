"""The library pane inside the real window: Ctrl+F, and a layout that long text never moves."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for, write_media
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread() -> Iterator[None]:
    """Collect each test's cyclic garbage (the per-test qasync loop's timers among it) here,
    on the GUI thread: left for later, Python may collect it on a worker thread of the next
    test, and Qt warns that timers cannot be stopped from another thread."""
    yield
    gc.collect()


MakeWindow = Callable[[CoreAPI], MainWindow]
HOMUNCULUS = "youtube:fxZWtc0mYpQ"


def activate(qtbot: QtBot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_ctrl_f_in_the_library_finds_in_the_transcript_not_the_search_pane(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    activate(qtbot, window)
    pane = window.library
    table = pane.table.view
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.search  # no transcript open: Search
    window.show_pane("library")
    pane.table.select_ids([HOMUNCULUS])
    qtbot.waitUntil(lambda: pane.details.video_id == HOMUNCULUS)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is pane
    assert pane.details.find_bar.isVisible() and pane.details.find_bar.edit.hasFocus()
    pane.details.transcript.setFocus()
    qtbot.keyClick(pane.details.transcript, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is pane and pane.details.find_bar.edit.hasFocus()


def test_long_titles_and_paths_never_widen_the_window(
    qtbot: QtBot, core: CoreAPI, make_window: MakeWindow, tmp_path: Path
) -> None:
    deep = tmp_path / ("a-folder-with-a-very-long-name-" * 6) / "more"
    media, _srt = write_media(deep, name="talk-" + "x" * 150)
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    wait_for(qtbot, core.rename_video(video_id, "An extraordinarily long title, " * 12))
    window = make_window(core)
    pane = window.library
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 1)
    width = window.width()
    new_button = pane.sidebar.new_button

    def buttons() -> object:
        return new_button.mapTo(window, new_button.rect().topLeft())

    pane.table.select_ids([video_id])
    qtbot.waitUntil(lambda: pane.details.video_id == video_id)
    with qtbot.waitSignal(window.runner.finished, timeout=30000):
        pane.start_import([str(media)])  # a row named by the long path; the list opens
    qtbot.wait(100)  # the list's layout settles
    before = buttons()
    with qtbot.waitSignal(window.runner.finished, timeout=30000):
        pane.start_import([str(deep / ("missing-" + "y" * 200 + ".srt"))])  # a long failure
    qtbot.wait(100)
    assert window.width() == width
    assert window.minimumSizeHint().width() <= width
    assert buttons() == before
    assert pane.details.title.text().endswith("…")
    assert pane.details.link.text().endswith("…")
