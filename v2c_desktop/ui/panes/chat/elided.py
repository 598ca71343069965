"""A one-line label that never widens the chat pane: long text ends in `…`, the whole text
is its tooltip. Chat and video titles are untrusted and may be any length; none of them may
push the window wider or move the buttons beside them."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """Plain text on one line, elided to the width it is given.

    It asks for at most `preferred` pixels (its size hint), takes any width it is given, and
    its minimum is a few characters, so its text never decides the width of anything.
    """

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, preferred: int = 320
    ) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._preferred = preferred
        self._full = ""
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self._full = " ".join(text.split())
        self.setToolTip(self._full)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def minimumSizeHint(self) -> QSize:
        least = self.fontMetrics().horizontalAdvance("…") * 4
        return QSize(least, self.fontMetrics().height())

    def sizeHint(self) -> QSize:
        wanted = self.fontMetrics().horizontalAdvance(self._full) + 4
        return QSize(min(wanted, self._preferred), self.fontMetrics().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._elide()  # a bold or bigger font changes what fits

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        shown = metrics.elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width()))
        if shown != self.text():
            super().setText(shown)
