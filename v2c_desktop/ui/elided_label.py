"""A one-line label that never widens its pane: long text ends in `…`, the whole text is
its tooltip. Titles, paths and links are untrusted and may be any length; none of them may
push the window wider or move the buttons beside them. One class for every pane (library,
search, chat) and the player's title."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """Plain text on one line, elided to the width it is given.

    `preferred` caps the width it asks for (its size hint); it takes any width it is given
    and never asks for more than `least` characters' worth (of `…`) as its minimum.
    """

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        preferred: int = 320,
        least: int = 4,
    ) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._preferred = preferred
        self._least = least
        self._full = ""
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self._full = " ".join(text.split())
        self.setToolTip(self._full)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def minimumSizeHint(self) -> QSize:
        least = self.fontMetrics().horizontalAdvance("…") * self._least
        return QSize(least, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        wanted = self.fontMetrics().horizontalAdvance(self._full) + 4
        return QSize(min(wanted, self._preferred), super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._elide()  # a new font (bold, a bigger size) changes what fits

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        shown = metrics.elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width()))
        if shown != self.text():
            super().setText(shown)


ZERO_WIDTH_SPACE = "\u200b"
_LONG_RUN = re.compile(r"\S{24,}")


def breakable(text: str, every: int = 12) -> str:
    """`text` with a zero-width space every `every` characters inside runs of 24 or more
    non-space characters (paths, URLs, ids), so a word-wrapped label can wrap them instead
    of growing as wide as the longest one. What the user copies reads the same."""

    def cut(match: re.Match[str]) -> str:
        run = match.group(0)
        return ZERO_WIDTH_SPACE.join(run[i : i + every] for i in range(0, len(run), every))

    return _LONG_RUN.sub(cut, text)
