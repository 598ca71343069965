"""The chat pane's layout never jumps: a long chat title, video title, collection name,
source title or status message is elided (the whole text on hover) and never widens the
pane or moves its buttons."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, open_chat
from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.chats import ChatMessageRecord, ChatRecord
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.scope import COLLECTION

pytestmark = pytest.mark.gui

LONG = "An extremely long and winding title that goes on " * 8 + "Pneumonoultramicroscopic" * 6


def test_long_titles_are_elided_and_never_widen_the_pane_or_move_its_buttons(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    window = make_window(crashcourse)
    window.resize(1200, 760)
    pane = open_chat(qtbot, window)
    QApplication.sendPostedEvents()
    width, least = window.width(), pane.minimumSizeHint().width()
    buttons = {b: b.mapTo(window, QPoint(0, 0)) for b in (pane.ask_button, pane.stop_button)}

    renamed = wait_for(qtbot, crashcourse.rename_video(HOMUNCULUS, LONG)).video.title
    assert len(renamed) > 150
    wait_for(qtbot, crashcourse.create_collection(LONG[:200]))
    pane.refresh()
    qtbot.waitUntil(lambda: pane.scope.collections.count() == 1)
    qtbot.waitUntil(lambda: renamed in [pane.scope.videos.item(i).text() for i in range(10)])
    citation = {
        "n": 1,
        "video_id": HOMUNCULUS,
        "title": LONG,
        "start": 11.0,
        "quote": "little man",
        "verified": True,
    }
    pane.show_chat(
        ChatRecord(
            "chat-long",
            LONG,
            {"video_ids": [HOMUNCULUS]},
            messages=[
                ChatMessageRecord(1, "user", LONG),
                ChatMessageRecord(2, "assistant", f"It is a map [1]. {LONG}", [citation]),
            ],
        )
    )
    pane.status.set_full_text(LONG)
    pane.scope.kind.setCurrentText(COLLECTION)
    QApplication.sendPostedEvents()
    qtbot.waitUntil(lambda: pane.turns[0].cards[0].isVisible())

    assert window.width() == width and pane.minimumSizeHint().width() <= least
    assert {b: b.mapTo(window, QPoint(0, 0)) for b in buttons} == buttons
    full = " ".join(LONG.split())
    assert pane.title.text().endswith("…") and pane.title.toolTip() == full
    assert pane.status.text().endswith("…") and pane.status.toolTip() == full
    card = pane.turns[0].cards[0]
    assert card.name.text().endswith("…") and card.name.toolTip() == full
    assert card.geometry().right() <= pane.conversation.viewport().width()
    assert card.time.isVisible() and card.time.geometry().right() <= card.width()
    assert pane.scope.collections.width() <= pane.scope.width()
