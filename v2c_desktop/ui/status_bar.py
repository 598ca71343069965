"""The status bar: the library's size, whether search is ready, running jobs, the chat model,
the agents served and errors, in plain words ("13 videos, 4.2 hours", "search ready",
"indexing 4 of 13", "Import talks: 3 of 10").

Its permanent labels are elided to a width of their own (the whole text is the tooltip):
an agent's name or a job's label is untrusted and may be any length, and must never make
the window wider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar, QWidget

from .bridge import JobInfo
from .dialogs import error_text
from .speech_words import TRANSCRIBE_STAGE, transcribe_job_words

if TYPE_CHECKING:
    from v2c_desktop.core.domain.status import LibraryStatus

ERROR_MS = 15000
MCP_NOT_STARTED = "Agents: not started"
EXTRACTIVE = "extractive"
LABEL_WIDTH = 280  # the most any one permanent label may take (pixels)
STAGE_WORDS = {"index": "indexing", "plan": "reading", "download": "downloading"}


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def duration_words(hours: float) -> str:
    """A library's length: "25 minutes", "4.2 hours"."""
    if hours <= 0:
        return ""
    if hours < 1:
        return plural(max(1, round(hours * 60)), "minute")
    return f"{hours:.1f}".rstrip("0").rstrip(".") + (" hour" if hours == 1 else " hours")


def library_words(status: LibraryStatus) -> str:
    """ "13 videos, 4.2 hours" (or "No videos yet")."""
    if status.videos == 0:
        return "No videos yet"
    length = duration_words(status.hours)
    return plural(status.videos, "video") + (f", {length}" if length else "")


def search_words(status: LibraryStatus) -> str:
    """Whether search is ready: "indexing 4 of 13", "search ready", "search ready (words
    only)", "search ready · by meaning: 4 of 13"; empty for an empty library."""
    if status.videos == 0:
        return ""
    if status.indexed_videos < status.videos:
        return f"indexing {status.indexed_videos} of {status.videos}"
    if not status.embedding_model:
        return "search ready (words only)"
    if status.vector_videos < status.videos:
        return f"search ready · by meaning: {status.vector_videos} of {status.videos}"
    return "search ready"


def search_tooltip(status: LibraryStatus) -> str:
    words = f"Search by words: {status.indexed_videos} of {status.videos} videos."
    if not status.embedding_model:
        return f"{words}\nSearch by meaning is off: no embedding model is installed."
    return (
        f"{words}\nSearch by meaning (passages that say it in other words): "
        f"{status.vector_videos} of {status.videos} videos, with {status.embedding_model}."
    )


def job_words(job: JobInfo) -> str:
    """ "Import talks: 3 of 10", "Import talks: indexing 4 of 10", "Download Qwen: 45 %"."""
    if not job.total:
        return job.label
    if job.stage == TRANSCRIBE_STAGE:  # audio seconds, not items
        return transcribe_job_words(job.label, job.done, job.total)
    if job.stage == "download":
        return f"{job.label}: {min(100, round(100 * job.done / job.total))} %"
    verb = STAGE_WORDS.get(job.stage, "")
    count = f"{job.done} of {job.total}"
    return f"{job.label}: {verb} {count}" if verb else f"{job.label}: {count}"


class StatusLabel(QLabel):
    """One permanent label: plain text on one line, elided to at most `LABEL_WIDTH`."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self._full = ""
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self._full = " ".join(text.split())
        self.updateGeometry()
        self._elide()

    def setText(self, text: str) -> None:
        self.set_full_text(text)

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:
        wanted = self.fontMetrics().horizontalAdvance(self._full) + 2 * self.margin() + 4
        return QSize(min(wanted, LABEL_WIDTH), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self.sizeHint().width(), 40), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(0, min(self.width(), LABEL_WIDTH) - 2 * self.margin())
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        if shown != self.text():
            super().setText(shown)


class LibraryStatusBar(QStatusBar):
    """Permanent labels on the right; errors as temporary messages on the left.

    Signals:
        chat_clicked(): the chat model label was clicked (the window opens the model manager).
    """

    chat_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = self._label("statusLibrary", "Opening the library…")
        self.index = self._label("statusIndex", "")
        self.jobs = self._label("statusJobs", "")
        self.chat = self._label("statusChat", "Chat: …")
        self.chat.setCursor(Qt.CursorShape.PointingHandCursor)
        self.chat.installEventFilter(self)
        self.mcp = self._label("statusMcp", MCP_NOT_STARTED)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A click on the chat model label asks for the model manager."""
        if (
            watched is getattr(self, "chat", None)
            and event.type() == QEvent.Type.MouseButtonRelease
        ):
            self.chat_clicked.emit()
            return True
        return super().eventFilter(watched, event)

    def _label(self, name: str, text: str) -> StatusLabel:
        label = StatusLabel(text)
        label.setObjectName(name)
        self.addPermanentWidget(label)
        label.setHidden(not text)
        return label

    def _set(self, label: StatusLabel, text: str, tooltip: str) -> None:
        """Show `text` (hidden when empty); the tooltip always holds the whole text."""
        label.set_full_text(text)
        shown = " ".join(text.split())
        label.setToolTip(tooltip if shown in tooltip else "\n".join(filter(None, (shown, tooltip))))
        label.setHidden(not text)

    def show_status(self, status: LibraryStatus) -> None:
        collections = plural(status.collections, "collection")
        self._set(self.library, library_words(status), f"{status.path}\n{collections}")
        self._set(self.index, search_words(status), search_tooltip(status))

    def show_chat_model(self, label: str, detail: str = "") -> None:
        """The model answers come from, or "extractive" when none can generate them."""
        self._set(self.chat, f"Chat: {label or EXTRACTIVE}", detail)

    def show_mcp(self, text: str, tooltip: str) -> None:
        self._set(self.mcp, text, tooltip)

    def show_jobs(self, jobs: list[JobInfo]) -> None:
        if not jobs:
            self._set(self.jobs, "", "")
            return
        text = job_words(jobs[0])
        if len(jobs) > 1:
            text += f" (and {len(jobs) - 1} more)"
        self._set(self.jobs, text, "\n".join(job_words(j) for j in jobs))

    def show_error(self, message: str, hint: str) -> None:
        self.showMessage(error_text(message, hint), ERROR_MS)
