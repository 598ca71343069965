"""Driving the chat pane in tests: choose a scope and a model, ask, click an `[n]` link."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser
from pytestqt.qtbot import QtBot

from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.pane import ChatPane
from v2c_desktop.ui.panes.chat.scope import ID_ROLE, VIDEOS

SMOLLM2 = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
HOMUNCULUS = "youtube:fxZWtc0mYpQ"
MODEL_TIMEOUT = 90000  # a 2.5k-token prefill on 2 busy cores


def open_chat(qtbot: QtBot, window: MainWindow, videos: int = 10) -> ChatPane:
    """Show the chat pane (Ctrl+L's action) and wait until it knows the library and models."""
    window.actions_.chat.trigger()
    pane = window.chat_pane
    assert window.stack.currentWidget() is pane
    qtbot.waitUntil(lambda: pane.scope.videos.count() == videos, timeout=30000)
    qtbot.waitUntil(lambda: SMOLLM2 in pane.models.model_ids(), timeout=30000)
    return pane


def tick(pane: ChatPane, *video_ids: str) -> None:
    pane.scope.kind.setCurrentText(VIDEOS)
    wanted = set(video_ids)
    for row in range(pane.scope.videos.count()):
        item = pane.scope.videos.item(row)
        checked = item.data(ID_ROLE) in wanted
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)


def type_question(qtbot: QtBot, pane: ChatPane, text: str) -> None:
    pane.question.clear()
    qtbot.keyClicks(pane.question, text)


def link_points(view: QTextBrowser, text: str) -> list[QPoint]:
    """Where each link reading `text` is drawn in the view's viewport, in reading order."""
    document = view.document()
    points = []
    block = document.begin()
    while block.isValid():
        for piece in block:
            fragment = piece.fragment()
            if fragment.charFormat().isAnchor() and fragment.text() == text:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                points.append(view.cursorRect(cursor).center())
        block = block.next()
    return points


def link_point(view: QTextBrowser, number: int) -> QPoint | None:
    """Where the first `[number]` link is drawn in the view's viewport, or None if none."""
    points = link_points(view, f"[{number}]")
    return points[0] if points else None


def anchors(view: QTextBrowser) -> list[tuple[str, str]]:
    """(text, href) of every link in the view."""
    found = []
    block = view.document().begin()
    while block.isValid():
        for piece in block:
            fragment = piece.fragment()
            if fragment.charFormat().isAnchor():
                found.append((fragment.text(), fragment.charFormat().anchorHref()))
        block = block.next()
    return found


def markers(view: QTextBrowser) -> list[tuple[str, str]]:
    """(text, href) of every `[n]` link in the view (not the `(m:ss)` ones)."""
    return [(text, href) for text, href in anchors(view) if text.startswith("[")]


def click_link(qtbot: QtBot, view: QTextBrowser, number: int) -> None:
    click_text_link(qtbot, view, f"[{number}]")


def click_text_link(qtbot: QtBot, view: QTextBrowser, text: str, index: int = 0) -> None:
    """Click the `index`-th link that reads `text` (`[2]`, `(0:52)`), as a mouse would."""
    points = link_points(view, text)
    assert len(points) > index, f"no link {text} #{index} in: {view.toPlainText()!r}"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=points[index])
