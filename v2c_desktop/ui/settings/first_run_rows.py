"""A catalog model to download, with progress, cancel and resume (the first-run dialog and
the model manager show these), and a button for a detected local model server."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QProgressBar, QPushButton, QWidget

from v2c_desktop.core.domain.models import InstalledModelInfo, ModelRow
from v2c_desktop.core.errors import V2CError

from ..bridge import UNKNOWN_TOTAL
from ..rich_text import escape
from .model_downloads import ModelDownloads
from .model_text import failure_text, size_text

__all__ = ["DownloadRow", "server_button", "size_text"]

RESUME_NOTE = "Stopped. The part downloaded is kept: Resume goes on where it stopped."


class DownloadRow(QFrame):
    """A catalog model: label, size, licence, note; Download, then a progress bar and Cancel.
    A download still running (started from another dialog) is shown as such; a part kept
    from an earlier one is offered as Resume.

    Signals:
        installed(model_id)
    """

    installed = Signal(str)

    def __init__(
        self, entry: ModelRow, downloads: ModelDownloads, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.entry, self.downloads = entry, downloads
        self.setObjectName("downloadRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(self.title_text())
        self.title.setObjectName("modelTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.note = QLabel(entry.note)
        self.note.setObjectName("modelNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.download = QPushButton("Download")
        self.download.setObjectName("modelDownload")
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("modelCancel")
        self.cancel.hide()
        self.bar = QProgressBar()
        self.bar.setObjectName("modelProgress")
        self.bar.hide()
        self.message = QLabel()
        self.message.setObjectName("modelMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.hide()
        self.grid = QGridLayout(self)
        self.grid.addWidget(self.title, 0, 0)
        self.grid.addWidget(self.download, 0, 1)
        self.grid.addWidget(self.note, 1, 0)
        self.grid.addWidget(self.cancel, 1, 1)
        self.grid.addWidget(self.bar, 3, 0, 1, 2)
        self.grid.addWidget(self.message, 4, 0, 1, 2)
        self.grid.setColumnStretch(0, 1)
        self.download.clicked.connect(self.start)
        self.cancel.clicked.connect(self.stop)
        downloads.progressed.connect(self._on_progress)
        downloads.finished.connect(self._on_finished)
        downloads.failed.connect(self._on_failed)
        downloads.cancelled.connect(self._on_cancelled)
        running = downloads.running(entry.id)
        if running is not None:
            self._show_running()
            self._on_progress(entry.id, running.done, running.total)
        elif entry.installed:
            self.download.setText("Installed")
            self.download.setEnabled(False)
        elif entry.partial_bytes:
            self.download.setText("Resume")
            total = entry.size_bytes or 0
            got = f"{size_text(entry.partial_bytes)} of {size_text(total)}" if total else ""
            self._say(f"{got} downloaded before; Resume goes on from there.".strip())

    def title_text(self) -> str:
        entry = self.entry
        return (
            f"<b>{escape(entry.label)}</b> · {size_text(entry.size_bytes or 0)}"
            f" · licence: {escape(entry.licence or 'unknown')}"
        )

    def start(self) -> None:
        """Download through the library's owner (its models are the ones answers use)."""
        if self.downloads.running(self.entry.id) is None:
            self.downloads.start(self.entry.id, self.entry.label)
        self._show_running()

    def stop(self) -> None:
        """Cancel the download; the part already fetched stays for a resume."""
        self.downloads.cancel(self.entry.id)

    def _show_running(self) -> None:
        self.download.setEnabled(False)
        self.cancel.show()
        self.bar.show()
        self.bar.setRange(0, 0)
        self._say("")

    def _on_progress(self, model_id: str, done: int, total: int) -> None:
        if model_id != self.entry.id:
            return
        if total == UNKNOWN_TOTAL or total <= 0:
            self.bar.setRange(0, 0)
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(1000 * min(done, total) / total))
        self.bar.setFormat(f"{size_text(done)} of {size_text(total)}")

    def _finish(self, text: str) -> None:
        self.cancel.hide()
        self._say(text)

    def _on_finished(self, model_id: str, model: InstalledModelInfo) -> None:
        if model_id != self.entry.id:
            return
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.bar.hide()
        self._finish(f"Installed: {model.path}")
        self.download.setText("Installed")
        self.installed.emit(model.id)

    def _on_failed(self, model_id: str, error: V2CError) -> None:
        if model_id != self.entry.id:
            return
        self.bar.hide()
        self._finish(failure_text(error))
        self.download.setEnabled(True)
        self.download.setText("Try again")

    def _on_cancelled(self, model_id: str) -> None:
        if model_id != self.entry.id:
            return
        self.bar.hide()
        self._finish(RESUME_NOTE)
        self.download.setEnabled(True)
        self.download.setText("Resume")

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))


def server_button(text: str, on_click: Callable[[], None]) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName("useServer")
    button.clicked.connect(on_click)
    return button
