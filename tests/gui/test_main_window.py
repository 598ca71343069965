"""The main window: composition, routing of timestamp clicks, shortcuts, drops, errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl, Signal
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for, write_media
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.drop import dropped_sources
from v2c_desktop.ui.links import seek_href
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.library.add_dialog import AddDialog
from v2c_desktop.ui.player.local_backend import LocalBackend

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]


def activate(qtbot: QtBot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_the_window_composes_panes_player_and_an_honest_status_bar(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    assert window.navigation.is_available("library")
    assert window.navigation.is_available("search")
    assert window.navigation.is_available("chat")
    assert window.chat is window.chat_pane and window.actions_.chat.isEnabled()
    assert window.stack.currentWidget() is window.library
    assert window.dockWidgetArea(window.player) == Qt.DockWidgetArea.RightDockWidgetArea
    qtbot.waitUntil(lambda: window.status.library.full_text().startswith("10 videos, "))
    assert window.status.library.full_text().endswith(" hours")
    # keyword-indexed, no vectors yet (the fixture skips embedding)
    assert window.status.index.full_text() == "search ready · by meaning: 0 of 10"
    assert window.status.mcp.full_text() == "Agents: not started"  # no owner session here
    # only SmolLM2 (a plumbing model) is installed: answers are extractive
    qtbot.waitUntil(lambda: window.status.chat.full_text() == "Chat: extractive")
    qtbot.waitUntil(lambda: window.library.table.model.rowCount() == 10)


def test_a_transcript_click_plays_and_the_playhead_lights_the_line(
    qtbot: QtBot, core: CoreAPI, make_window: MakeWindow, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    window = make_window(core)
    pane = window.library
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 1)
    pane.table.select_ids([video_id])
    qtbot.waitUntil(lambda: pane.details.video_id == video_id)
    view = pane.details.transcript
    view.anchorClicked.emit(QUrl(seek_href(video_id, 30.0)))  # the "[0:30]" line
    qtbot.waitUntil(lambda: isinstance(window.player.backend, LocalBackend), timeout=10000)
    qtbot.waitUntil(lambda: view.current_line() == 1, timeout=10000)
    assert "Chlorophyll" in view.line_text(1)


def test_shortcuts_search_and_playback(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    activate(qtbot, window)
    calls: list[object] = []
    window.player.toggle_play = lambda: calls.append("toggle")  # type: ignore[method-assign]
    window.player.skip = lambda delta: calls.append(delta)  # type: ignore[method-assign]

    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.search
    assert window.search.query.hasFocus()
    qtbot.keyClick(window.search.query, Qt.Key.Key_Space)  # typing a space is not play/pause
    assert window.search.query.text() == " " and calls == []

    window.show_pane("library")
    window.library.table.view.setFocus()
    qtbot.keyClick(window.library.table.view, Qt.Key.Key_Space)
    qtbot.keyClick(window.library.table.view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(window.library.table.view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert calls == ["toggle", -10.0, 10.0]
    window.library.details.transcript.setFocus()  # read-only text: Space still plays
    qtbot.keyClick(window.library.details.transcript, Qt.Key.Key_Space)
    assert calls[-1] == "toggle"
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.chat_pane
    window.show_pane("library")
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    dialog = window.findChild(AddDialog, "addDialog")
    assert dialog is not None and dialog.isVisible()
    dialog.reject()


def test_a_chat_pane_plugs_in_and_its_seeks_reach_the_player(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    class PaneWithLinks(QWidget):  # any pane with the chat pane's interface
        seek_requested = Signal(str, float)

    window = make_window(crashcourse)
    seeks: list[tuple[str, float]] = []
    window.player.play_at = lambda video_id, seconds: seeks.append((video_id, seconds))  # type: ignore[method-assign]
    window.chat_pane.seek_requested.emit("youtube:fxZWtc0mYpQ", 3.0)
    pane = PaneWithLinks()
    window.attach_chat_pane(pane)
    assert window.navigation.is_available("chat") and window.actions_.chat.isEnabled()
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is pane
    pane.seek_requested.emit("youtube:fxZWtc0mYpQ", 12.0)
    assert seeks == [("youtube:fxZWtc0mYpQ", 3.0), ("youtube:fxZWtc0mYpQ", 12.0)]


def test_dropping_files_starts_an_import(
    qtbot: QtBot, core: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(core)
    window.show_pane("search")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(sample_dir()))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with qtbot.waitSignal(window.runner.finished, timeout=30000):
        window.dropEvent(event)
    assert window.stack.currentWidget() is window.library
    qtbot.waitUntil(lambda: window.library.table.model.rowCount() == 1)
    qtbot.waitUntil(lambda: window.status.library.full_text().startswith("1 video,"))


def test_a_failed_user_action_shows_message_and_hint(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    with qtbot.waitSignal(window.library.library_changed):
        window.library.create_collection("Memory")
    with qtbot.waitSignal(window.runner.failed) as failed:
        window.library.create_collection("Memory")
    _job, code, message, hint = failed.args
    assert code == "bad-request" and hint.startswith("pick another name")
    box = window.findChild(QMessageBox, "errorBox")
    assert box is not None
    assert box.text() == message == "a collection named 'Memory' already exists"
    assert box.informativeText() == hint
    assert window.status.currentMessage() == f"{message} — {hint}"
    box.close()


def test_a_screenshot_of_the_window_is_not_empty(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow, tmp_path: Path
) -> None:
    window = make_window(crashcourse)
    qtbot.waitUntil(lambda: window.library.table.model.rowCount() == 10)
    path = tmp_path / "window.png"
    assert window.grab().save(str(path))
    assert path.stat().st_size > 10_000


def test_what_a_drop_means() -> None:
    mime = QMimeData()
    mime.setUrls(
        [
            QUrl("https://www.youtube.com/watch?v=fxZWtc0mYpQ"),
            QUrl.fromLocalFile("/videos/talk.en.srt"),
            QUrl("ftp://example.com/file"),
            QUrl("https://www.youtube.com/watch?v=fxZWtc0mYpQ"),
        ]
    )
    assert dropped_sources(mime) == [
        "https://www.youtube.com/watch?v=fxZWtc0mYpQ",
        "/videos/talk.en.srt",
    ]
    text = QMimeData()
    text.setText("https://vimeo.com/1\nnot a link\n https://youtu.be/fxZWtc0mYpQ ")
    assert dropped_sources(text) == ["https://vimeo.com/1", "https://youtu.be/fxZWtc0mYpQ"]
