"""One row per import: its progress, a cancel button, then what happened to every item."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.imports import BatchResult

from ...bridge import UNKNOWN_TOTAL, JobRunner
from ...rich_text import escape


class ImportRow(QFrame):
    """The progress and outcome of one import job."""

    def __init__(self, job_id: str, label: str, runner: JobRunner) -> None:
        super().__init__()
        self.job_id = job_id
        self.done = False
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(escape(label))
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.clicked.connect(lambda: runner.cancel(job_id))
        self.status = QLabel("Starting…")
        self.status.setObjectName("importStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.failures = QLabel()
        self.failures.setObjectName("importFailures")
        self.failures.setTextFormat(Qt.TextFormat.RichText)
        self.failures.setWordWrap(True)
        self.failures.hide()
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.bar)
        top.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.failures)

    def show_progress(self, stage: str, done: int, total: int, message: str) -> None:
        if total == UNKNOWN_TOTAL or total <= 0:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, total)
            self.bar.setValue(done)
        verb = {"plan": "Reading inputs", "import": "Importing"}.get(stage, stage.capitalize())
        self.status.setText(f"{verb} {done}/{total}: {message}" if total > 0 else verb)

    def show_result(self, result: BatchResult) -> None:
        counts = [
            f"{result.count(status)} {status}"
            for status in ("added", "updated", "skipped", "failed")
            if result.count(status)
        ]
        self._finish(", ".join(counts) or "nothing to import")
        failed = [o for o in result.outcomes if o.status == "failed"]
        lines = []
        for outcome in failed:
            message = outcome.error.message if outcome.error else outcome.reason
            hint = outcome.error.hint_for("app") if outcome.error else ""
            line = f"<b>{escape(outcome.source)}</b>: {escape(message)}"
            if hint:
                line += f"<br>&nbsp;&nbsp;<i>{escape(hint)}</i>"
            lines.append(line)
        self.failures.setText("<br>".join(lines))
        self.failures.setVisible(bool(lines))

    def show_failure(self, message: str, hint: str) -> None:
        self._finish(f"Failed: {message}")
        self.failures.setText(f"<i>{escape(hint)}</i>" if hint else "")
        self.failures.setVisible(bool(hint))

    def show_cancelled(self) -> None:
        self._finish("Cancelled: the videos saved before the cancel stay in the library")

    def _finish(self, text: str) -> None:
        self.done = True
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.cancel.hide()
        self.status.setText(text)


class ImportPanel(QWidget):
    """The imports of this session; finished rows stay until cleared."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self.rows: dict[str, ImportRow] = {}
        self._list = QVBoxLayout()
        self._list.addStretch(1)
        holder = QWidget()
        holder.setLayout(self._list)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        header = QHBoxLayout()
        header.addWidget(QLabel("<b>Imports</b>"), 1)
        self.clear_button = QPushButton("Clear finished")
        self.clear_button.clicked.connect(self.clear_finished)
        header.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(scroll, 1)
        runner.progress.connect(self._on_progress)
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)
        self.hide()

    def track(self, job_id: str, label: str) -> ImportRow:
        row = ImportRow(job_id, label, self._runner)
        self.rows[job_id] = row
        self._list.insertWidget(self._list.count() - 1, row)
        self.show()
        return row

    def clear_finished(self) -> None:
        for job_id, row in list(self.rows.items()):
            if row.done:
                del self.rows[job_id]
                row.deleteLater()
        self.setVisible(bool(self.rows))

    def _on_progress(self, job_id: str, stage: str, done: int, total: int, message: str) -> None:
        if job_id in self.rows:
            self.rows[job_id].show_progress(stage, done, total, message)

    def _on_finished(self, job_id: str, result: Any) -> None:
        if job_id in self.rows and isinstance(result, BatchResult):
            self.rows[job_id].show_result(result)

    def _on_failed(self, job_id: str, _code: str, message: str, hint: str) -> None:
        if job_id in self.rows:
            self.rows[job_id].show_failure(message, hint)

    def _on_cancelled(self, job_id: str) -> None:
        if job_id in self.rows:
            self.rows[job_id].show_cancelled()
