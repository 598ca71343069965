"""One search hit as a card: title, time range, snippet with matched words bold, chapter."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from v2c_desktop.core.search.request import SearchHit

from ..rich_text import escape, range_label, snippet_html


class ResultCard(QFrame):
    """A clickable card; a click anywhere on it plays the hit's moment.

    Signals:
        seek_requested(video_id, seconds)
    """

    seek_requested = Signal(str, float)

    def __init__(self, hit: SearchHit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hit = hit
        self.setObjectName("resultCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setToolTip("Click (or press Enter) to play this moment")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.title = QLabel(
            f"<b>{escape(hit.title)}</b> &nbsp;{escape(range_label(hit.start, hit.end))}"
        )
        self.title.setObjectName("cardTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.snippet = QLabel(snippet_html(hit.snippet))
        self.snippet.setObjectName("cardSnippet")
        self.snippet.setTextFormat(Qt.TextFormat.RichText)
        self.snippet.setWordWrap(True)
        facts = [hit.channel, f"chapter: {hit.chapter}" if hit.chapter else ""]
        self.meta = QLabel(escape(" · ".join(f for f in facts if f)))
        self.meta.setObjectName("cardMeta")
        self.meta.setTextFormat(Qt.TextFormat.RichText)
        self.meta.setEnabled(False)  # the palette's disabled text: quieter, not a fixed colour
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.snippet)
        layout.addWidget(self.meta)
        self.meta.setVisible(bool(self.meta.text()))

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
        self.seek_requested.emit(self.hit.video_id, self.hit.start)
