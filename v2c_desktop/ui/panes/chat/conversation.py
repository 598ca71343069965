"""The conversation: a scrolling column of turns that follows an answer while it streams."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from v2c_desktop.core.domain.chats import ChatMessageRecord

from .render import cards_from_citations
from .turn import TurnView


class Conversation(QScrollArea):
    """Signals:
    seek_requested(video_id, seconds): from any turn's links and cards.
    get_model_requested(): a turn's "get a chat model" link.
    """

    seek_requested = Signal(str, float)
    get_model_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatConversation")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.turns: list[TurnView] = []
        self.following = False
        self._column = QVBoxLayout()
        self._column.addStretch(1)
        holder = QWidget()
        holder.setLayout(self._column)
        self.setWidget(holder)
        self.verticalScrollBar().rangeChanged.connect(self._follow)

    def add_turn(self, question: str) -> TurnView:
        turn = TurnView(question)
        turn.seek_requested.connect(self.seek_requested)
        turn.get_model_requested.connect(self.get_model_requested)
        self._column.insertWidget(self._column.count() - 1, turn)
        self.turns.append(turn)
        return turn

    def clear(self) -> None:
        for turn in self.turns:
            turn.deleteLater()
        self.turns = []

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

    def _follow(self, _minimum: int, maximum: int) -> None:
        """Keep the newest words in view while an answer streams."""
        if self.following:
            self.verticalScrollBar().setValue(maximum)
