"""The library's transcript follows playback after every seek, and pauses only while the
user scrolls it (issue 13).

The bug: after a click on a line's `[m:ss]` link the transcript stopped following. The
player reported the playhead after the seek (this test checks that too); the view did not
move because Qt leaves a clicked link selected (keyboard focus on the link) and the view
never scrolled while its cursor had a selection. The view now scrolls without touching the
text cursor and pauses only while the user scrolls.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QTextCursor, QWheelEvent
from PySide6.QtWidgets import QApplication, QTextBrowser
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for
from tests.gui.player_helpers import long_talk, make_dock
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.settings import Settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.player.local_backend import LocalBackend

pytestmark = pytest.mark.gui


def lit_line_in_view(view: QTextBrowser) -> bool:
    """Whether the line the player lit is on screen."""
    lit = view.extraSelections()
    if not lit:
        return False
    rect = view.cursorRect(QTextCursor(lit[0].cursor.block()))
    return view.viewport().rect().contains(rect.center())


def test_the_transcript_follows_after_a_click_on_a_line_and_pauses_while_scrolled(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = long_talk(tmp_path / "talk")
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    dock = make_dock(qtbot, runner, core)
    window = MainWindow(core, runner, Settings(), player=dock)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    window.start()
    pane = window.library
    qtbot.waitUntil(lambda: video_id in pane.table.visible_ids(), timeout=10000)
    pane.table.select_ids([video_id])
    qtbot.waitUntil(lambda: pane.details.video_id == video_id, timeout=10000)
    view = pane.details.transcript
    qtbot.waitUntil(lambda: "[0:00]" in view.toPlainText())
    link = QTextCursor(view.document())
    link.setPosition(view.document().find("[0:00]").selectionStart() + 2)
    at = view.cursorRect(link).center()  # a user's click on the first line's "[0:00]" link
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=at)
    qtbot.waitUntil(lambda: isinstance(dock.backend, LocalBackend), timeout=10000)
    reported: list[float] = []
    dock.position_changed.connect(lambda _v, s: reported.append(s))

    dock.play_at(video_id, 200.0)  # a seek far down the transcript (a search hit, a chapter)
    qtbot.waitUntil(lambda: any(s >= 200 for s in reported), timeout=10000)  # reported
    qtbot.waitUntil(lambda: lit_line_in_view(view), timeout=5000)  # and followed

    # the user scrolls back up to read: the playhead does not pull the view away...
    bar = view.verticalScrollBar()
    wheel = QWheelEvent(
        QPointF(20, 20),
        QPointF(view.viewport().mapToGlobal(QPoint(20, 20))),
        QPoint(0, 0),
        QPoint(0, 600),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), wheel)
    scrolled = bar.value()
    count = len(reported)
    qtbot.waitUntil(lambda: len(reported) > count + 2, timeout=10000)
    assert bar.value() == scrolled
    # ...until the next seek, which it follows again
    dock.play_at(video_id, 100.0)
    qtbot.waitUntil(lambda: lit_line_in_view(view), timeout=5000)
