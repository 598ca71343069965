"""The chat pane: ask the library a question and read the answer as it streams, with every
`[n]` a link that plays the cited moment; copy an answer, or ask its question again.

An answer is one job on the runner: it iterates `api.ask(...)` on the qasync loop and
hands each event to the answer's `TurnView`, so the window never waits. Stop cancels that
task; the core closes the model's stream on the way out, which stops the model.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.ask.events import AskEvent, AskMeta, AskRequest
from v2c_desktop.core.domain.chats import ChatRecord
from v2c_desktop.core.domain.videos import Collection, VideoSummary
from v2c_desktop.core.errors import V2CError

from ...bridge import JobRunner
from ...elided_label import ElidedLabel
from .conversation import Conversation
from .models import ChatModelSource, ModelChoices, ModelPicker
from .saved import SavedChats
from .scope import ScopePicker
from .turn import TurnView

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

MAX_TOKENS = 768


class ChatPane(QWidget):
    """Saved chats and the scope on the left; the model, the conversation and the question
    box on the right.

    Signals:
        seek_requested(video_id, seconds): a `[n]` or `(m:ss)` link or a source card was
            clicked.
        cite_requested(video_id, seconds, quote): the same click, with the quote it cites
            (emitted right after `seek_requested`: connect one of the two).
        answer_finished(state): "done", "stopped" or "error".
        model_changed(label): the effective chat model ("" = extractive).
        get_model_requested(): the user asked to set up a chat model.
    """

    seek_requested = Signal(str, float)
    cite_requested = Signal(str, float, str)
    get_model_requested = Signal()
    answer_finished = Signal(str)
    model_changed = Signal(str)

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        models: ChatModelSource,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("chatPane")
        self._api, self._runner, self._models = api, runner, models
        self.chat_id: str | None = None
        self.max_tokens = MAX_TOKENS
        self._job = ""
        self._loaded = False
        self.saved = SavedChats(api, runner)
        self.scope = ScopePicker()
        self.models = ModelPicker()
        self.title = ElidedLabel("New chat")
        self.title.setObjectName("chatTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.conversation = Conversation()
        self.question = QLineEdit()
        self.question.setObjectName("chatQuestion")
        self.question.setPlaceholderText("Ask a question about the chosen videos")
        self.ask_button = QPushButton("Ask")
        self.ask_button.setDefault(True)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.status = ElidedLabel()  # one line: a long message never moves the buttons
        self.status.setObjectName("chatStatus")
        self._compose()
        self.question.returnPressed.connect(self.ask)
        self.ask_button.clicked.connect(self.ask)
        self.stop_button.clicked.connect(self.stop)
        self.saved.opened.connect(self.show_chat)
        self.saved.new_requested.connect(self.new_chat)
        self.saved.deleted.connect(self._on_deleted)
        self.saved.listed.connect(self._show_title)
        self.models.changed.connect(self.model_changed)
        self.models.get_model_requested.connect(self.get_model_requested)
        self.scope.changed.connect(self._enable)
        self.question.textChanged.connect(self._enable)
        self.conversation.seek_requested.connect(self.seek_requested)
        self.conversation.cite_requested.connect(self.cite_requested)
        self.conversation.get_model_requested.connect(self.get_model_requested)
        self.conversation.ask_again_requested.connect(self.ask_again)
        self.conversation.copied.connect(
            lambda _text: self.status.set_full_text("Copied the answer as Markdown, with links.")
        )
        self._enable()

    def _compose(self) -> None:
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.saved)
        left.addWidget(self.scope)
        left.setSizes([300, 400])
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.models)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.ask_button)
        row.addWidget(self.stop_button)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addWidget(self.conversation, 1)
        column.addLayout(row)
        column.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([250, 650])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    # -- reading the library and the models --------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._loaded:
            self.refresh()

    def refresh(self) -> None:
        """Re-read the saved chats and the library's videos and collections."""
        self._loaded = True
        self.saved.refresh()

        async def read() -> tuple[list[VideoSummary], list[Collection]]:
            return await self._api.list_videos(), await self._api.list_collections()

        self._runner.start(
            lambda _p: read(),
            label="read chat scope",
            on_finished=lambda r: self.scope.set_library(*r),
        )

    def library_changed(self) -> None:
        if self._loaded:
            self.refresh()

    def refresh_models(self, detect: bool = True) -> None:
        """List the chat models now, then again once local servers were looked for."""

        def listed(choices: ModelChoices) -> None:
            self.models.set_choices(choices)
            if detect:
                self._runner.start(
                    lambda _p: self._models.detect(),
                    label="look for local model servers",
                    on_finished=self.models.set_choices,
                )

        self._runner.start(
            lambda _p: self._models.list(), label="list chat models", on_finished=listed
        )

    # -- asking ------------------------------------------------------------------------------
    def busy(self) -> bool:
        return bool(self._job)

    def _enable(self) -> None:
        ready = bool(self.question.text().strip()) and not self.scope.scope().empty
        self.ask_button.setEnabled(ready and not self.busy())
        self.stop_button.setEnabled(self.busy())
        self.conversation.set_asking_allowed(not self.busy())

    def request(self, question: str) -> AskRequest:
        scope = self.scope.scope()
        model, extractive = self.models.request()
        return AskRequest(
            question,
            video_ids=scope.video_ids,
            collection=scope.collection,
            library=scope.library,
            chat_id=self.chat_id,
            model=model,
            extractive=extractive,
            max_tokens=self.max_tokens,
        )

    def ask(self) -> str:
        """Ask what the box holds about the chosen scope; the job id ("" if nothing to ask)."""
        job = self.ask_question(self.question.text().strip())
        if job:
            self.question.clear()
        return job

    def ask_again(self, question: str) -> str:
        """Ask a question of this chat again, for a fresh answer below the others (with
        the model and scope chosen now); the box keeps what is being typed."""
        return self.ask_question(question.strip())

    def ask_question(self, question: str) -> str:
        """Ask `question` about the chosen scope; the job id ("" if nothing to ask)."""
        if self.busy() or not question:
            return ""
        if self.scope.scope().empty:
            self.status.set_full_text("Tick videos, choose a collection or the whole library.")
            return ""
        request = self.request(question)
        turn = self.conversation.add_turn(question)
        self.conversation.following = True
        self.status.set_full_text("Answering…")

        async def work(_progress: Any) -> None:
            events = self._api.ask(request).__aiter__()
            async with contextlib.aclosing(events):  # type: ignore[type-var]
                async for event in events:
                    self._on_event(turn, event)

        self._job = self._runner.start(
            work,
            label="Answering",
            visible=True,  # listed in the status bar's jobs while it streams
            on_finished=lambda _r: self._settle(
                turn.state if shiboken6.isValid(turn) and turn.state == "error" else "done"
            ),
            on_failed=lambda error: self._failed(turn, error),
            on_cancelled=lambda: self._stopped(turn),
        )
        self._enable()
        return self._job

    def stop(self) -> None:
        if self._job:
            self._runner.cancel(self._job)

    def _on_event(self, turn: TurnView, event: AskEvent) -> None:
        if not shiboken6.isValid(turn):  # the user moved on to another chat
            return
        if isinstance(event, AskMeta):
            self.chat_id = event.chat_id
        turn.apply(event)

    def _failed(self, turn: TurnView, error: V2CError) -> None:
        if shiboken6.isValid(turn):
            turn.fail(error.message, error.hint_for("app"))
        self._settle("error")

    def _stopped(self, turn: TurnView) -> None:
        if shiboken6.isValid(turn):
            turn.stop()
        self._settle("stopped")

    def _settle(self, state: str) -> None:
        self._job = ""
        self.status.set_full_text(
            {"done": "", "stopped": "Stopped."}.get(state, "The answer failed.")
        )
        self._enable()
        if self.chat_id:
            self.saved.refresh(self.chat_id)
        self.answer_finished.emit(state)

    # -- the conversation --------------------------------------------------------------------
    @property
    def turns(self) -> list[TurnView]:
        return self.conversation.turns

    def new_chat(self) -> None:
        if self.busy():
            self.stop()
        self.chat_id = None
        self.conversation.clear()
        self.title.set_full_text("New chat")
        self.saved.select("")
        self.question.setFocus()

    def _show_title(self) -> None:
        chat = self.saved.chats.get(self.chat_id or "")
        self.title.set_full_text(chat.title if chat is not None else "New chat")

    def _on_deleted(self, chat_id: str) -> None:
        if chat_id == self.chat_id:
            self.new_chat()

    def show_chat(self, chat: ChatRecord) -> None:
        """Show a saved chat's turns and scope; the next question continues it."""
        if self.busy():
            self.stop()
        self.chat_id = chat.id
        self.title.set_full_text(chat.title)
        scope = chat.scope or {}
        self.scope.set_scope(
            list(scope.get("video_ids") or []),
            scope.get("collection"),
            library=bool(scope.get("library")),
        )
        self.conversation.show_messages(chat.messages)
