"""The rows of the first-run dialog: one recommended model to download, with progress and
cancel, and one detected local model server to use."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QWidget,
)

from v2c_desktop.core.domain.models import InstalledModelInfo, ModelRow
from v2c_desktop.core.errors import V2CError

from ..bridge import UNKNOWN_TOTAL, JobRunner
from ..rich_text import escape

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI


def size_text(size: int) -> str:
    if size >= 1_000_000_000:
        return f"{size / 1_000_000_000:.1f} GB"
    return f"{size / 1_000_000:.0f} MB"


class DownloadRow(QFrame):
    """A catalog model: label, size, licence, note; Download, then a progress bar and Cancel.

    Signals:
        installed(model_id)
    """

    installed = Signal(str)

    def __init__(
        self,
        entry: ModelRow,
        api: CoreAPI,
        runner: JobRunner,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.entry, self._api, self._runner = entry, api, runner
        self.setObjectName("downloadRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.job = ""
        title = QLabel(
            f"<b>{escape(entry.label)}</b> · {size_text(entry.size_bytes or 0)}"
            f" · licence: {escape(entry.licence or 'unknown')}"
        )
        title.setTextFormat(Qt.TextFormat.RichText)
        title.setWordWrap(True)
        note = QLabel(entry.note)
        note.setTextFormat(Qt.TextFormat.PlainText)
        note.setWordWrap(True)
        self.download = QPushButton("Download")
        self.cancel = QPushButton("Cancel")
        self.cancel.hide()
        self.bar = QProgressBar()
        self.bar.hide()
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.hide()
        grid = QGridLayout(self)
        grid.addWidget(title, 0, 0)
        grid.addWidget(self.download, 0, 1)
        grid.addWidget(note, 1, 0)
        grid.addWidget(self.cancel, 1, 1)
        grid.addWidget(self.bar, 2, 0, 1, 2)
        grid.addWidget(self.message, 3, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        self.download.clicked.connect(self.start)
        self.cancel.clicked.connect(self.stop)
        runner.progress.connect(self._on_progress)

    def start(self) -> str:
        """Download through the library's owner (its models are the ones answers use)."""
        if self.job:
            return self.job
        self.download.setEnabled(False)
        self.cancel.show()
        self.bar.show()
        self.bar.setRange(0, 0)
        self._say("")
        self.job = self._runner.start(
            lambda progress: self._api.pull_model(self.entry.id, progress),
            label=f"Download {self.entry.label}",
            visible=True,
            on_finished=self._done,
            on_failed=self._failed,
            on_cancelled=self._cancelled,
        )
        return self.job

    def stop(self) -> None:
        """Cancel the download; the part already fetched stays for a resume."""
        if self.job:
            self._runner.cancel(self.job)

    def _on_progress(self, job: str, _stage: str, done: int, total: int, _message: str) -> None:
        if job != self.job:
            return
        if total == UNKNOWN_TOTAL or total <= 0:
            self.bar.setRange(0, 0)
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(1000 * min(done, total) / total))
        self.bar.setFormat(f"{size_text(done)} of {size_text(total)}")

    def _finish(self, text: str) -> None:
        self.job = ""
        self.cancel.hide()
        self._say(text)

    def _done(self, model: InstalledModelInfo) -> None:
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self._finish(f"Installed: {model.path}")
        self.download.setText("Installed")
        self.installed.emit(model.id)

    def _failed(self, error: V2CError) -> None:
        self.bar.hide()
        hint = error.hint_for("app")
        self._finish(f"{error.message} — {hint}" if hint else error.message)
        self.download.setEnabled(True)
        self.download.setText("Retry")

    def _cancelled(self) -> None:
        self.bar.hide()
        self._finish("Cancelled; a new download resumes where this one stopped.")
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
