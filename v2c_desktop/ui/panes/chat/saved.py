"""The saved chats: open, rename, delete, and export as Markdown to a file.

Every action is a core call through the job runner; the list re-reads itself afterwards.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.chats import ChatRecord

from ...bridge import JobRunner
from ...dialogs import ask_text, confirm

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def export_name(title: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in title).strip()
    return f"{safe[:60] or 'chat'}.md"


class SavedChats(QWidget):
    """Signals:
    opened(chat): a saved chat was read (a `ChatRecord` with its messages).
    new_requested(): start a new chat.
    deleted(chat_id)
    exported(path)
    listed(): the list was (re-)read.
    """

    opened = Signal(object)
    new_requested = Signal()
    deleted = Signal(str)
    exported = Signal(str)
    listed = Signal()

    def __init__(self, api: CoreAPI, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self.chats: dict[str, ChatRecord] = {}
        self._reads = 0  # refreshes started; only the latest one's list is shown
        self._wanted: str | None = None  # the chat a pending refresh should highlight
        self.list = QListWidget()
        self.list.setObjectName("savedChats")
        self.list.setWordWrap(True)  # long titles wrap instead of scrolling sideways
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self._on_current)
        self.new = QPushButton("New chat")
        self.rename = QPushButton("Rename…")
        self.delete = QPushButton("Delete…")
        self.export = QPushButton("Export…")
        self.new.clicked.connect(self.new_requested)
        self.rename.clicked.connect(self._ask_rename)
        self.delete.clicked.connect(self._ask_delete)
        self.export.clicked.connect(self._ask_export)
        buttons = QGridLayout()
        for i, button in enumerate((self.new, self.rename, self.delete, self.export)):
            buttons.addWidget(button, i // 2, i % 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Saved chats"))
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self._enable()

    def current_id(self) -> str:
        item = self.list.currentItem()
        return str(item.data(ID_ROLE)) if item is not None else ""

    def _on_current(self, item: QListWidgetItem | None, _previous: object) -> None:
        self._wanted = None  # the user's click wins over any refresh on its way
        self._enable()
        if item is not None:
            self.open(str(item.data(ID_ROLE)))

    def _enable(self) -> None:
        chosen = bool(self.current_id())
        for button in (self.rename, self.delete, self.export):
            button.setEnabled(chosen)

    # -- reading -----------------------------------------------------------------------------
    def refresh(self, select: str | None = None) -> None:
        """Read the chats again; highlight `select`, else whatever is highlighted when the
        list arrives (a refresh the library's change feed started must not undo a click
        made while it was on its way). Refreshes overlap: only the latest one's list is
        shown, so an older one (with an older `select`) never undoes a newer choice."""
        if select is not None:
            self._wanted = select
        self._reads += 1
        read = self._reads
        self._runner.start(
            lambda _p: self._api.list_chats(),
            label="list chats",
            on_finished=lambda chats: self._arrived(read, chats),
        )

    def _arrived(self, read: int, chats: list[ChatRecord]) -> None:
        if read != self._reads:
            return  # a newer refresh is on its way
        keep = self.current_id() if self._wanted is None else self._wanted
        self._wanted = None
        self._show(chats, keep)

    def _show(self, chats: list[ChatRecord], keep: str) -> None:
        self.chats = {c.id: c for c in chats}
        self.list.blockSignals(True)
        self.list.clear()
        for chat in chats:
            item = QListWidgetItem(f"{chat.title}\n{chat.updated_at.replace('T', ' ')}")
            item.setData(ID_ROLE, chat.id)
            item.setToolTip(chat.title)
            self.list.addItem(item)
            if chat.id == keep:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self._enable()
        self.listed.emit()

    def select(self, chat_id: str) -> None:
        """Highlight a chat without opening it again (the one being answered)."""
        self._wanted = None
        self.list.blockSignals(True)
        self.list.clearSelection()
        self.list.setCurrentRow(-1)
        for row in range(self.list.count()):
            if self.list.item(row).data(ID_ROLE) == chat_id:
                self.list.setCurrentRow(row)
        self.list.blockSignals(False)
        self._enable()

    def open(self, chat_id: str) -> str:
        return self._runner.start(
            lambda _p: self._api.get_chat(chat_id),
            label="open chat",
            interactive=True,
            on_finished=self.opened.emit,
        )

    # -- changing ----------------------------------------------------------------------------
    def rename_chat(self, chat_id: str, title: str) -> str:
        return self._runner.start(
            lambda _p: self._api.rename_chat(chat_id, title),
            label="Rename chat",
            interactive=True,
            on_finished=lambda _none: self.refresh(chat_id),
        )

    def delete_chat(self, chat_id: str) -> str:
        def done(_none: None) -> None:
            self.deleted.emit(chat_id)
            self.refresh("")

        return self._runner.start(
            lambda _p: self._api.delete_chat(chat_id),
            label="Delete chat",
            interactive=True,
            on_finished=done,
        )

    def export_chat(self, chat_id: str, path: Path) -> str:
        async def export() -> str:
            text = await self._api.export_chat(chat_id)
            await asyncio.to_thread(path.write_text, text, encoding="utf-8")
            return str(path)

        return self._runner.start(
            lambda _p: export(),
            label="Export chat",
            interactive=True,
            on_finished=self.exported.emit,
        )

    # -- the buttons -------------------------------------------------------------------------
    def _ask_rename(self) -> None:
        chat_id = self.current_id()
        if chat_id:
            title = self.chats[chat_id].title if chat_id in self.chats else ""
            ask_text(self, "Rename chat", "Title:", lambda t: self.rename_chat(chat_id, t), title)

    def _ask_delete(self) -> None:
        chat_id = self.current_id()
        if chat_id:
            title = self.chats[chat_id].title if chat_id in self.chats else chat_id
            text = f"Delete the chat “{title}”?"
            confirm(self, "Delete chat", text, lambda: self.delete_chat(chat_id))

    def _ask_export(self) -> None:
        chat_id = self.current_id()
        if not chat_id:
            return
        title = self.chats[chat_id].title if chat_id in self.chats else "chat"
        dialog = QFileDialog(self, "Export chat as Markdown", export_name(title))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("Markdown (*.md)")
        dialog.setDefaultSuffix("md")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.export_chat(chat_id, Path(path)))
        dialog.open()
