"""One question and its answer: the streamed text with `[n]` links, the model's collapsible
"thinking", an extractive label, a note (model, stopped, error), the source cards, and the
answer's own actions (copy it as Markdown, ask the question again).

While an answer streams its text is rendered at most once per `RENDER_MS`, however many
deltas arrive in between: a local model sends a delta per token, and re-rendering (and
re-measuring) the whole answer for each one would keep the window from reading keys.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
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

from ...rich_text import escape
from .cited import AnswerView, SourceCard
from .render import (
    CitationCard,
    Target,
    answer_markdown,
    cards_from_citations,
    ordered_cards,
    render_answer,
    targets_from_cards,
    targets_from_sources,
)

EXTRACTIVE_LABEL = "Extractive answer: passages quoted from the videos, not written by a model"
#: The href of the extractive label's link that opens the chat model set-up.
GET_MODEL_HREF = "v2c-app:get-chat-model"
#: At most one render of a streaming answer per this many milliseconds.
RENDER_MS = 80

# why an answer was stopped before the model ended it (AskDone.cut)
CUT_NOTES = {
    "repetition": " (stopped: it began repeating itself)",
    "length": " (stopped at the length limit)",
}


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
    cite_requested(video_id, seconds, quote): the same click, with the quote it cites.
    get_model_requested(): the extractive label's "get a chat model" link was clicked.
    ask_again_requested(question): "Ask again" was clicked.
    copied(markdown): "Copy answer" put the answer on the clipboard.
    """

    seek_requested = Signal(str, float)
    cite_requested = Signal(str, float, str)
    get_model_requested = Signal()
    ask_again_requested = Signal(str)
    copied = Signal(str)

    def __init__(self, question: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatTurn")
        self.state = "waiting"  # streaming, done, stopped, error
        self.text = ""
        self.extractive = False
        self.targets: dict[int, Target] = {}
        self.cards: list[SourceCard] = []
        self.changed = True  # its size must be measured again (see `Conversation`)
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
        self.answer.cite_requested.connect(self.cite_requested)
        self.note = QLabel()
        self.note.setObjectName("chatNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setEnabled(False)
        self.copy_button = self._action("Copy answer", "Copy the answer as Markdown with links")
        self.again_button = self._action("Ask again", "Ask this question again for a new answer")
        self.copy_button.clicked.connect(self.copy_answer)
        self.again_button.clicked.connect(
            lambda: self.ask_again_requested.emit(self.question.text())
        )
        actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.addWidget(self.copy_button)
        actions.addWidget(self.again_button)
        actions.addStretch(1)
        self._cards = QVBoxLayout()
        self._cards.setContentsMargins(0, 0, 0, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 8)
        for widget in (self.question, self.label, self.thinking, self.answer, self.note):
            layout.addWidget(widget)
        layout.addLayout(self._cards)
        layout.addLayout(actions)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_MS)
        self._render_timer.timeout.connect(self.render_text)
        self._show_actions()
        self.say("Looking for the passages that answer this…")

    def _action(self, text: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setObjectName("turnAction")
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        return button

    def event(self, event: QEvent) -> bool:
        """Its layout changed: it must be measured again, and its column told so."""
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:
            self.changed = True
            self.updateGeometry()
        return handled

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
        """Take the words; they are shown with the next render (soon, and once for many)."""
        self.text += text
        if not self._render_timer.isActive():
            self._render_timer.start()

    def render_text(self) -> None:
        """Show the text as it is now."""
        self._render_timer.stop()
        self.answer.set_answer(render_answer(self.text, self.targets, quote_times=self.extractive))

    def finish(self, done: AskDone) -> None:
        self.state = "done"
        self.set_extractive(done.extractive)
        self.show_answer(done.text, cards_from_citations(done.citations, done.unverified))
        cut = CUT_NOTES.get(done.cut or "", "")
        self.say("" if done.extractive else f"Answered by {done.model or 'the model'}{cut}")

    def show_answer(self, text: str, cards: list[CitationCard]) -> None:
        """The final text: only the numbers with a citation card stay links, numbered as
        read, and the cards follow in that order."""
        self.text = text
        ordered = ordered_cards(text, cards)
        self.targets = targets_from_cards(ordered)
        self.render_text()
        for card in ordered:
            widget = SourceCard(card)
            widget.seek_requested.connect(self.seek_requested)
            widget.cite_requested.connect(self.cite_requested)
            self._cards.addWidget(widget)
            self.cards.append(widget)
        if self.state == "waiting":
            self.state = "done"
        self._show_actions()

    def stop(self) -> None:
        self.state = "stopped"
        self.render_text()
        self.say("stopped" + (": the answer above is incomplete" if self.text else ""))
        self.note.setEnabled(True)
        self._show_actions()

    def fail(self, message: str, hint: str) -> None:
        self.state = "error"
        self.render_text()
        self.say(f"{message} — {hint}" if hint else message)
        self.note.setEnabled(True)
        self._show_actions()

    # -- the answer's actions ----------------------------------------------------------------
    def markdown(self) -> str:
        """The answer as Markdown: markers numbered as shown, each a timestamp link."""
        return answer_markdown(self.text, [c.card for c in self.cards], quote_times=self.extractive)

    def copy_answer(self) -> None:
        text = self.markdown()
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)

    def set_asking_allowed(self, allowed: bool) -> None:
        """Another answer is streaming (or not): "Ask again" waits for it."""
        self.again_button.setEnabled(allowed)

    def _show_actions(self) -> None:
        settled = self.state in ("done", "stopped", "error")
        self.copy_button.setVisible(settled and bool(self.text.strip()))
        self.again_button.setVisible(settled)

    def _on_label_link(self, href: str) -> None:
        if href == GET_MODEL_HREF:
            self.get_model_requested.emit()

    def set_extractive(self, extractive: bool) -> None:
        self.extractive = extractive
        self.label.setVisible(extractive)

    def say(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))
