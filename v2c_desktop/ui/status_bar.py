"""The status bar: the library's size, its index, running jobs, the chat model, the MCP owner
state and errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from .bridge import JobInfo
from .dialogs import error_text

if TYPE_CHECKING:
    from v2c_desktop.core.domain.status import LibraryStatus

ERROR_MS = 15000
MCP_NOT_STARTED = "MCP: not started"
EXTRACTIVE = "extractive"


class LibraryStatusBar(QStatusBar):
    """Permanent labels on the right; errors as temporary messages on the left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = self._label("statusLibrary", "Library: opening…")
        self.index = self._label("statusIndex", "")
        self.jobs = self._label("statusJobs", "")
        self.chat = self._label("statusChat", "Chat: …")
        self.mcp = self._label("statusMcp", MCP_NOT_STARTED)

    def _label(self, name: str, text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName(name)
        label.setTextFormat(Qt.TextFormat.PlainText)
        self.addPermanentWidget(label)
        return label

    def show_status(self, status: LibraryStatus) -> None:
        videos = f"{status.videos} video{'s' if status.videos != 1 else ''}"
        self.library.setText(f"Library: {videos}, {status.hours:g} h")
        self.library.setToolTip(f"{status.path}\n{status.collections} collection(s)")
        index = f"Index: {status.indexed_videos}/{status.videos}"
        if status.embedding_model:
            index += f", meaning {status.vector_videos}/{status.videos}"
        else:
            index += ", words only"
        self.index.setText(index)
        self.index.setToolTip(f"embedding model: {status.embedding_model or 'none'}")

    def show_chat_model(self, label: str, detail: str = "") -> None:
        """The model answers come from, or "extractive" when none can generate them."""
        self.chat.setText(f"Chat: {label or EXTRACTIVE}")
        self.chat.setToolTip(detail)

    def show_mcp(self, text: str, tooltip: str) -> None:
        self.mcp.setText(text)
        self.mcp.setToolTip(tooltip)

    def show_jobs(self, jobs: list[JobInfo]) -> None:
        if not jobs:
            self.jobs.setText("")
            self.jobs.setToolTip("")
            return
        first = jobs[0]
        text = first.label
        if first.total:
            text += f" {first.done}/{first.total}"
        if len(jobs) > 1:
            text += f" (+{len(jobs) - 1} more)"
        self.jobs.setText(text)
        self.jobs.setToolTip("\n".join(j.label for j in jobs))

    def show_error(self, message: str, hint: str) -> None:
        self.showMessage(error_text(message, hint), ERROR_MS)
