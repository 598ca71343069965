"""The conversation: a scrolling column of turns that follows an answer while it streams.

It follows (keeps the newest words in view) from a question on, until the reader scrolls
up to read: then it stays where the reader is.

The column is laid out here, not by a `QVBoxLayout`: a box layout answers every change of
one turn (the streaming answer grows a line) by measuring every turn again, twice (at its
width and at its size hint's), re-wrapping every label of every source card of a long
chat, which took a tenth of a second per delta. Here a turn is measured only when it
changed or the width did, and the others keep their place.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

from v2c_desktop.core.domain.chats import ChatMessageRecord

from .render import cards_from_citations
from .turn import TurnView

MARGIN = 6
SPACING = 6


class Conversation(QScrollArea):
    """Signals:
    seek_requested(video_id, seconds): from any turn's links and cards.
    cite_requested(video_id, seconds, quote): the same clicks, with the quote each cites.
    get_model_requested(): a turn's "get a chat model" link.
    ask_again_requested(question): a turn's "Ask again".
    copied(markdown): a turn's answer was copied.
    """

    seek_requested = Signal(str, float)
    cite_requested = Signal(str, float, str)
    get_model_requested = Signal()
    ask_again_requested = Signal(str)
    copied = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatConversation")
        self.setWidgetResizable(False)  # the column sets its own height (see `relayout`)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # always there, so the column's width never changes when an answer gets long
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.turns: list[TurnView] = []
        self.following = False
        self.measured = 0  # how many times a turn was measured (tests count them)
        self._heights: dict[int, tuple[int, int]] = {}  # id(turn) -> (width, height)
        self._asking_allowed = True
        self._column = QWidget()
        self._column.setObjectName("chatColumn")
        self.setWidget(self._column)
        self._column.installEventFilter(self)  # (setWidget did too: its resizes move the bars)
        self.viewport().installEventFilter(self)
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def add_turn(self, question: str) -> TurnView:
        turn = TurnView(question, self._column)
        turn.seek_requested.connect(self.seek_requested)
        turn.cite_requested.connect(self.cite_requested)
        turn.get_model_requested.connect(self.get_model_requested)
        turn.ask_again_requested.connect(self.ask_again_requested)
        turn.copied.connect(self.copied)
        turn.set_asking_allowed(self._asking_allowed)
        self.turns.append(turn)
        turn.show()
        self.relayout()
        return turn

    def clear(self) -> None:
        for turn in self.turns:
            turn.hide()
            turn.deleteLater()
        self.turns = []
        self._heights.clear()
        self.relayout()

    def set_asking_allowed(self, allowed: bool) -> None:
        """Whether a turn's "Ask again" may ask now (not while another answer streams)."""
        self._asking_allowed = allowed
        for turn in self.turns:
            turn.set_asking_allowed(allowed)

    def show_messages(self, messages: list[ChatMessageRecord]) -> None:
        """A saved chat's turns, as they were shown when it was answered."""
        self.clear()
        question = ""
        for message in messages:
            if message.role == "user":
                question = message.text
                continue
            turn = self.add_turn(question)
            turn.set_extractive(message.extractive)
            turn.show_answer(
                message.text, cards_from_citations(message.citations, message.unverified)
            )
            turn.state = "done"
            turn.say(f"Answered by {message.model}" if message.model else "")
        bar = self.verticalScrollBar()
        QTimer.singleShot(0, bar, lambda: bar.setValue(0))

    # -- the column ----------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A turn's own layout changed (text, cards, a note) and it asked its parent, the
        column, to lay out again; or the viewport's width changed."""
        kind = event.type()
        relaid = (watched is self._column and kind == QEvent.Type.LayoutRequest) or (
            watched is self.viewport() and kind == QEvent.Type.Resize
        )
        if relaid:
            self.relayout()
        return super().eventFilter(watched, event)

    def relayout(self) -> None:
        """Place every turn below the one before, at the viewport's width; measure only the
        turns whose content or width changed."""
        width = max(0, self.viewport().width() - 2 * MARGIN)
        y = MARGIN
        for turn in self.turns:
            height = self._height(turn, width)
            if turn.geometry().getRect() != (MARGIN, y, width, height):
                turn.setGeometry(MARGIN, y, width, height)
            y += height + SPACING
        total = max(y - SPACING + MARGIN, self.viewport().height())
        if self._column.size().toTuple() != (self.viewport().width(), total):
            self._column.resize(self.viewport().width(), total)

    def _height(self, turn: TurnView, width: int) -> int:
        known = self._heights.get(id(turn))
        if known is not None and known[0] == width and not turn.changed:
            return known[1]
        self.measured += 1
        turn.changed = False
        height = max(turn.heightForWidth(width), turn.minimumSizeHint().height())
        self._heights[id(turn)] = (width, height)
        return height

    def _follow(self, _minimum: int, maximum: int) -> None:
        """Keep the newest words (and then the source cards) in view."""
        if self.following:
            self.verticalScrollBar().setValue(maximum)

    def _on_scrolled(self, value: int) -> None:
        """The reader scrolled up, away from the newest words: stop following."""
        if value < self.verticalScrollBar().maximum() - 4:
            self.following = False
