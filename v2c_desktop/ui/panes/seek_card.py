"""A card that plays one moment: a click anywhere on it, or Enter, seeks the player there.

Search results and an answer's cited sources are both such cards; they differ only in what
they show, so the frame, the focus, the tooltip and the click handling live here once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QLabel, QWidget


class SeekCard(QFrame):
    """Subclasses fill the card and set the moment it plays with `set_moment`.

    Signals:
        seek_requested(video_id, seconds)
    """

    seek_requested = Signal(str, float)

    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip("Click (or press Enter) to play this moment")
        self._moment: tuple[str, float] = ("", 0.0)

    def set_moment(self, video_id: str, seconds: float) -> None:
        self._moment = (video_id, seconds)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.activate()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activate()
        else:
            super().keyPressEvent(event)

    def activate(self) -> None:
        self.seek_requested.emit(*self._moment)


def card_label(text: str, object_name: str, text_format: Qt.TextFormat) -> QLabel:
    """One wrapped line of a card, named for the style sheet."""
    label = QLabel(text)
    label.setObjectName(object_name)
    label.setTextFormat(text_format)
    label.setWordWrap(True)
    return label
