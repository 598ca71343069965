"""One question and its answer: the streamed text with `[n]` links, the model's collapsible
"thinking", an extractive label, a note (model, stopped, error) and the source cards."""

from __future__ import annotations

from PySide6.QtCore import QSize, QSizeF, Qt, QUrl, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.ask.events import (
    AskDelta,
    AskDone,
    AskError,
    AskEvent,
    AskMeta,
    AskReasoning,
)
from v2c_desktop.core.errors import render_hint

from ...links import parse_seek_href
from ...rich_text import escape
from ..seek_card import SeekCard, card_label
from .render import (
    CitationCard,
    Target,
    answer_html,
    cards_from_citations,
    targets_from_cards,
    targets_from_sources,
)

EXTRACTIVE_LABEL = "Extractive answer: passages quoted from the videos, not written by a model"
#: The href of the extractive label's link that opens the chat model set-up.
GET_MODEL_HREF = "v2c-app:get-chat-model"


def extractive_label(meta: AskMeta) -> str:
    """Rich text: why no model wrote the answer and, unless the user chose that, how to get
    one (a link that opens the model set-up, or a model server on this computer)."""
    text = escape(EXTRACTIVE_LABEL)
    if meta.why_extractive:
        text += f", because {escape(meta.why_extractive)}."
    if meta.why_extractive.startswith("you asked"):
        return text
    suggestion = ""
    if meta.suggestion is not None:
        size = meta.suggestion.size_bytes / 1e9
        suggestion = f" (for example {escape(meta.suggestion.label)}, a {size:.1f} GB download)"
    return (
        f"{text}<br>For written answers, <a href='{GET_MODEL_HREF}'>get a chat model…</a>"
        f"{suggestion}, or start Ollama or LM Studio on this computer."
    )


class AnswerView(QTextBrowser):
    """Rich text that grows to fit its document (the conversation scrolls, not each answer).

    Signals:
        seek_requested(video_id, seconds): a `[n]` link was clicked.
    """

    seek_requested = Signal(str, float)

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

    def set_answer(self, html: str) -> None:
        if html != self.html:
            self.html = html
            self.setHtml(html)

    def _fit(self, size: QSizeF) -> None:
        self.setFixedHeight(max(24, int(size.height()) + 6))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.document().setTextWidth(self.viewport().width())

    def sizeHint(self) -> QSize:
        return QSize(400, self.height())

    def _on_anchor(self, url: QUrl) -> None:
        target = parse_seek_href(url.toString())
        if target is not None:
            self.seek_requested.emit(*target)


class SourceCard(SeekCard):
    """A cited moment: `[n] title · m:ss` and its quote; a click plays it."""

    def __init__(self, card: CitationCard, parent: QWidget | None = None) -> None:
        super().__init__("sourceCard", parent)
        self.card = card
        self.set_moment(card.video_id, card.start)
        self.title = card_label(
            f"<b>[{card.n}]</b> {escape(card.title)} · {escape(card.time)}",
            "sourceTitle",
            Qt.TextFormat.RichText,
        )
        self.quote = card_label(
            f"“{card.quote}”" if card.quote else "", "sourceQuote", Qt.TextFormat.PlainText
        )
        self.quote.setVisible(bool(card.quote))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.quote)


class Thinking(QWidget):
    """The model's reasoning: collapsed by default, in the palette's quieter text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setObjectName("thinkingToggle")
        self.toggle.setText("Thinking")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.text = QLabel()
        self.text.setObjectName("thinkingText")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.text.setEnabled(False)  # the disabled palette: de-emphasised, theme-aware
        font = self.text.font()
        font.setItalic(True)
        self.text.setFont(font)
        self.text.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.text)
        self.toggle.toggled.connect(self.set_expanded)
        self.hide()

    def add(self, text: str) -> None:
        self.text.setText(self.text.text() + text)
        self.show()

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.text.setVisible(expanded)


class TurnView(QFrame):
    """Signals:
    seek_requested(video_id, seconds): a `[n]` link or a source card was clicked.
    get_model_requested(): the extractive label's "get a chat model" link was clicked.
    """

    seek_requested = Signal(str, float)
    get_model_requested = Signal()

    def __init__(self, question: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatTurn")
        self.state = "waiting"  # streaming, done, stopped, error
        self.text = ""
        self.extractive = False
        self.targets: dict[int, Target] = {}
        self.cards: list[SourceCard] = []
        self.question = QLabel(question)
        self.question.setObjectName("chatQuestion")
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        font = self.question.font()
        font.setBold(True)
        self.question.setFont(font)
        self.label = QLabel(EXTRACTIVE_LABEL)
        self.label.setObjectName("extractiveLabel")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setOpenExternalLinks(False)
        self.label.linkActivated.connect(self._on_label_link)
        self.label.setFrameShape(QFrame.Shape.StyledPanel)
        self.label.hide()
        self.thinking = Thinking()
        self.answer = AnswerView()
        self.answer.seek_requested.connect(self.seek_requested)
        self.note = QLabel()
        self.note.setObjectName("chatNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setEnabled(False)
        self._cards = QVBoxLayout()
        self._cards.setContentsMargins(0, 0, 0, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 8)
        for widget in (self.question, self.label, self.thinking, self.answer, self.note):
            layout.addWidget(widget)
        layout.addLayout(self._cards)
        self.say("Looking for the passages that answer this…")

    # -- the stream --------------------------------------------------------------------------
    def apply(self, event: AskEvent) -> None:
        """Show one event of the answer's stream."""
        if isinstance(event, AskMeta):
            self.set_meta(event)
        elif isinstance(event, AskReasoning):
            self.add_reasoning(event.text)
        elif isinstance(event, AskDelta):
            self.add_delta(event.text)
        elif isinstance(event, AskDone):
            self.finish(event)
        elif isinstance(event, AskError):
            self.fail(event.message, render_hint(event.hint, "app"))

    def set_meta(self, meta: AskMeta) -> None:
        self.state = "streaming"
        self.targets = targets_from_sources(meta.sources)
        self.set_extractive(meta.extractive)
        if meta.extractive:
            self.label.setText(extractive_label(meta))
        self.say(f"{meta.model} is answering…" if meta.model else "Quoting passages…")

    def add_reasoning(self, text: str) -> None:
        self.thinking.add(text)

    def add_delta(self, text: str) -> None:
        self.text += text
        self.answer.set_answer(answer_html(self.text, self.targets))

    def finish(self, done: AskDone) -> None:
        self.state = "done"
        self.set_extractive(done.extractive)
        self.show_answer(done.text, cards_from_citations(done.citations, done.unverified))
        self.say("" if done.extractive else f"Answered by {done.model or 'the model'}")

    def show_answer(self, text: str, cards: list[CitationCard]) -> None:
        """The final text: only the numbers with a citation card stay links."""
        self.text = text
        self.targets = targets_from_cards(cards)
        self.answer.set_answer(answer_html(text, self.targets))
        for card in cards:
            widget = SourceCard(card)
            widget.seek_requested.connect(self.seek_requested)
            self._cards.addWidget(widget)
            self.cards.append(widget)

    def stop(self) -> None:
        self.state = "stopped"
        self.say("stopped" + (": the answer above is incomplete" if self.text else ""))
        self.note.setEnabled(True)

    def fail(self, message: str, hint: str) -> None:
        self.state = "error"
        self.say(f"{message} — {hint}" if hint else message)
        self.note.setEnabled(True)

    def _on_label_link(self, href: str) -> None:
        if href == GET_MODEL_HREF:
            self.get_model_requested.emit()

    def set_extractive(self, extractive: bool) -> None:
        self.extractive = extractive
        self.label.setVisible(extractive)

    def say(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))
