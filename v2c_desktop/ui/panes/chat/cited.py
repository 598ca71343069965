"""What plays a cited moment in an answer: the answer's rich text, whose `[n]` and `(m:ss)`
links seek there, and the source cards under it, whose time is a link too."""

from __future__ import annotations

from PySide6.QtCore import QSize, QSizeF, Qt, QUrl, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...elided_label import ElidedLabel
from ...links import parse_seek_href, seek_href
from ...rich_text import escape
from ..seek_card import SeekCard, card_label
from .render import CitationCard, Rendered, Target


class AnswerView(QTextBrowser):
    """Rich text that grows to fit its document (the conversation scrolls, not each answer).

    Signals:
        seek_requested(video_id, seconds): a `[n]` or `(m:ss)` link was clicked.
        cite_requested(video_id, seconds, quote): the same click, with the quote it cites.
    """

    seek_requested = Signal(str, float)
    cite_requested = Signal(str, float, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatAnswer")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.anchorClicked.connect(self._on_anchor)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self.html = ""
        self.renders = 0  # how often the document was rebuilt (tests count them)
        self.moments: dict[str, Target] = {}

    def set_answer(self, rendered: Rendered) -> None:
        self.moments = rendered.moments
        if rendered.html != self.html:
            self.html = rendered.html
            self.renders += 1
            self.setHtml(rendered.html)

    def _fit(self, size: QSizeF) -> None:
        height = max(24, int(size.height()) + 6)
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.document().setTextWidth(self.viewport().width())

    def sizeHint(self) -> QSize:
        return QSize(400, self.height())

    def _on_anchor(self, url: QUrl) -> None:
        href = url.toString()
        target = parse_seek_href(href)
        if target is not None:
            moment = self.moments.get(href)
            self.seek_requested.emit(*target)
            self.cite_requested.emit(*target, moment.quote if moment else "")


class SourceCard(SeekCard):
    """A cited moment: `[n] title · m:ss` (the time a link) and its quote; a click plays it.

    Signals:
        seek_requested(video_id, seconds)
        cite_requested(video_id, seconds, quote)
    """

    cite_requested = Signal(str, float, str)

    def __init__(self, card: CitationCard, parent: QWidget | None = None) -> None:
        super().__init__("sourceCard", parent)
        self.card = card
        self.set_moment(card.video_id, card.start)
        self.number = QLabel(f"<b>[{card.number}]</b>")
        self.number.setObjectName("sourceNumber")
        self.number.setTextFormat(Qt.TextFormat.RichText)
        self.name = ElidedLabel(card.title)
        self.name.setObjectName("sourceTitle")
        href = escape(seek_href(card.video_id, card.start))
        self.time = QLabel(f'· <a href="{href}">{escape(card.time)}</a>')
        self.time.setObjectName("sourceTime")
        self.time.setTextFormat(Qt.TextFormat.RichText)
        self.time.setToolTip(f"Play from {card.time}")
        self.time.linkActivated.connect(lambda _href: self.activate())
        self.quote = card_label(
            f"“{card.quote}”" if card.quote else "", "sourceQuote", Qt.TextFormat.PlainText
        )
        self.quote.setVisible(bool(card.quote))
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.number)
        head.addWidget(self.name, 1)
        head.addWidget(self.time)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addLayout(head)
        layout.addWidget(self.quote)

    def activate(self) -> None:
        super().activate()
        self.cite_requested.emit(self.card.video_id, self.card.start, self.card.raw_quote)
