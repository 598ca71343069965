"""One row per import: its progress and a cancel button, then what happened to every item.

A finished row drops its progress bar and shows its state instead: a tick for an import
that went through, a warning sign (and the status in the palette's warning red) for one with
failures, each failure with its message and hint, and a Retry button that imports the
failed sources again. The videos it added (or found already there) are links that select
them in the table.
Sources and titles are untrusted and any length: shown elided, whole on hover.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.imports import REPLACE_WEB, BatchResult, ImportOutcome

from ...bridge import UNKNOWN_TOTAL, JobRunner
from ...elided_label import ElidedLabel, breakable
from ...rich_text import escape
from ...speech_words import SPEED_TIP, TRANSCRIBE_STAGE, transcribe_status

VIDEO_LINK = "v2c-video:"
SHOWN_LINKS = 5
SOURCE_CHARS = 70
ICON = 16


def short_source(source: str, limit: int = SOURCE_CHARS) -> str:
    """A source as a list shows it: a path's file name, anything long cut in the middle."""
    text = source
    if "://" not in source and ("/" in source or "\\" in source):
        text = Path(source.rstrip("/\\")).name or source
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[-half:]}"


def warning_color(palette: QPalette) -> QColor:
    """A red that reads on this palette's window (lighter on a dark one)."""
    dark = palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5
    return QColor("#ff8a80") if dark else QColor("#c62828")


def wrapping_label(name: str, text_format: Qt.TextFormat) -> QLabel:
    """A word-wrapped label that takes the width it is given and never asks for more."""
    label = QLabel()
    label.setObjectName(name)
    label.setTextFormat(text_format)
    label.setWordWrap(True)
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    label.setSizePolicy(policy)
    return label


class ImportRow(QFrame):
    """The progress and outcome of one import job.

    Signals:
        retry_requested(sources, collection): import the failed sources again.
        replace_requested(outcomes, collection): the user wants local archives to replace
            the web imports they were kept from (`ImportOutcome.confirm` "replace-web").
        video_requested(video_id): an added video's link was clicked.
    """

    retry_requested = Signal(list, str)
    replace_requested = Signal(list, str)
    video_requested = Signal(str)

    def __init__(
        self,
        job_id: str,
        label: str,
        runner: JobRunner,
        sources: list[str] | None = None,
        collection: str = "",
    ) -> None:
        super().__init__()
        self.setObjectName("importRow")
        self.job_id = job_id
        self.done = False
        self.state = "running"
        self.sources = list(sources or [])
        self.collection = collection
        self.retry_sources: list[str] = []
        #: what a cancel leaves behind, in the row's own terms (an import, a transcription)
        self.cancelled_text = "Cancelled: the videos saved before the cancel stay in the library"
        self.done_text = ""  # a one-video job's own words for done (the reason goes on hover)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.icon = QLabel()
        self.icon.setObjectName("importIcon")
        self.icon.setFixedSize(ICON, ICON)
        self.icon.hide()
        self.title = ElidedLabel(label, preferred=400)
        self.title.setObjectName("importTitle")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setMaximumWidth(200)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.clicked.connect(lambda: runner.cancel(job_id))
        self.cancel.clicked.connect(self._cancelling)
        self.retry = QToolButton()
        self.retry.setObjectName("importRetry")
        self.retry.setText("Retry")
        self.retry.setToolTip("Import the sources that failed again")
        self.retry.clicked.connect(self._retry)
        self.retry.hide()
        self.kept_from_web: list[ImportOutcome] = []
        self.replace = QToolButton()
        self.replace.setObjectName("importReplace")
        self.replace.setText("Replace transcript…")
        self.replace.setToolTip(
            "Some videos were imported from the web before: their transcripts were kept. "
            "Replace them with this archive's?"
        )
        self.replace.clicked.connect(
            lambda: self.replace_requested.emit(list(self.kept_from_web), self.collection)
        )
        self.replace.hide()
        self.status = wrapping_label("importStatus", Qt.TextFormat.PlainText)
        self.status.setText("Starting…")
        self.failures = wrapping_label("importFailures", Qt.TextFormat.RichText)
        self.failures.hide()
        self.added = wrapping_label("importAdded", Qt.TextFormat.RichText)
        self.added.linkActivated.connect(self._open_link)
        self.added.hide()
        top = QHBoxLayout()
        top.addWidget(self.icon)
        top.addWidget(self.title, 1)
        top.addWidget(self.bar)
        top.addWidget(self.cancel)
        top.addWidget(self.retry)
        top.addWidget(self.replace)
        layout = QVBoxLayout(self)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.failures)
        layout.addWidget(self.added)

    def _cancelling(self) -> None:
        """Said at once: the work stops at its next check (a speech model after the piece
        of audio it is on), and the row says Cancelled when it has."""
        self.cancel.setEnabled(False)
        self.status.setText("Cancelling…")

    def show_progress(self, stage: str, done: int, total: int, message: str) -> None:
        if not self.cancel.isEnabled():  # cancelling: its last progress is no news
            return
        if total == UNKNOWN_TOTAL or total <= 0:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, total)
            self.bar.setValue(done)
        if stage == TRANSCRIBE_STAGE:  # done/total are audio seconds: the message says them
            self.status.setText(breakable(transcribe_status(message)))
            self.status.setToolTip(f"{message}\n{SPEED_TIP}" if message else SPEED_TIP)
            return
        verb = {"plan": "Reading inputs", "import": "Importing"}.get(stage, stage.capitalize())
        where = short_source(message) if message else ""
        if total > 0:
            text = f"{verb} {done}/{total}: {breakable(where)}"
        elif stage == "scan" and message:  # a folder's walk: "Scanning Lectures: 1,200 files"
            text = breakable(message[:1].upper() + message[1:])
        else:
            text = verb
        self.status.setText(text)
        self.status.setToolTip(message)

    def show_result(self, result: BatchResult) -> None:
        counts = [
            f"{result.count(status)} {status}"
            for status in ("added", "updated", "skipped", "failed")
            if result.count(status)
        ]
        failed = [o for o in result.outcomes if o.status == "failed"]
        self._finish(", ".join(counts) or "nothing to import", "failed" if failed else "done")
        lines, tips = [], []
        for outcome in failed:
            message = outcome.error.message if outcome.error else outcome.reason
            hint = outcome.error.hint_for("app") if outcome.error else ""
            line = f"<b>{escape(short_source(outcome.source))}</b>: {escape(breakable(message))}"
            if hint:
                line += f"<br>&nbsp;&nbsp;<i>{escape(breakable(hint))}</i>"
            lines.append(line)
            tips.append(f"{outcome.source}: {message}")
        for outcome in result.outcomes:
            if outcome.confirm == REPLACE_WEB:
                title = escape(breakable(short_source(outcome.title or outcome.source, 60)))
                lines.append(
                    f"<b>{title}</b>: imported from the web before, so its transcript was "
                    "kept<br>&nbsp;&nbsp;<i>“Replace transcript…” uses this archive's instead</i>"
                )
                tips.append(f"{outcome.source}: {outcome.reason}")
        self.failures.setText("<br>".join(lines))
        self.failures.setToolTip("\n".join(tips))
        self.failures.setVisible(bool(lines))
        self.retry_sources = [o.source for o in failed]
        self.retry.setVisible(bool(failed))
        self.kept_from_web = [o for o in result.outcomes if o.confirm == REPLACE_WEB]
        self.replace.setVisible(bool(self.kept_from_web))
        self._show_added(result)

    def _show_added(self, result: BatchResult) -> None:
        saved = [o for o in result.outcomes if o.status != "failed" and o.video_id]
        if not saved:
            self.added.hide()
            return
        links = [
            f'<a href="{escape(VIDEO_LINK + str(o.video_id))}">'
            f"{escape(breakable(short_source(o.title or o.source, 60)))}</a>"
            for o in saved[:SHOWN_LINKS]
        ]
        more = len(saved) - SHOWN_LINKS
        text = "Open: " + ", ".join(links) + (f" and {more} more" if more > 0 else "")
        self.added.setText(text)
        self.added.setToolTip("Click a title to select the video in the table")
        self.added.show()

    def show_failure(self, message: str, hint: str) -> None:
        self._finish(f"Failed: {breakable(message)}", "failed")
        self.failures.setText(f"<i>{escape(breakable(hint))}</i>" if hint else "")
        self.failures.setVisible(bool(hint))
        self.retry_sources = list(self.sources)
        self.retry.setVisible(bool(self.sources))

    def show_cancelled(self) -> None:
        self._finish(self.cancelled_text, "cancelled")

    def show_outcome(self, outcome: ImportOutcome) -> None:
        """One video's outcome (a transcription of a saved video): what it did, in words."""
        if outcome.status == "failed":
            error = outcome.error
            message = error.message if error else outcome.reason
            self.show_failure(message, error.hint_for("app") if error else "")
            return
        reason = outcome.reason or outcome.status
        self._finish(
            self.done_text or f"Done: {breakable(reason[:1].upper() + reason[1:])}", "done"
        )
        self.status.setToolTip(reason)
        if outcome.warnings:
            self.failures.setText("<br>".join(escape(breakable(w)) for w in outcome.warnings))
            self.failures.show()
        self._show_added(BatchResult(outcomes=[outcome]))

    def _finish(self, text: str, state: str) -> None:
        self.done = True
        self.state = state
        self.bar.hide()
        self.cancel.hide()
        self.status.setText(text)
        icon = {
            "done": QStyle.StandardPixmap.SP_DialogApplyButton,
            "failed": QStyle.StandardPixmap.SP_MessageBoxWarning,
            "cancelled": QStyle.StandardPixmap.SP_BrowserStop,
        }[state]
        self.icon.setPixmap(self.style().standardIcon(icon).pixmap(ICON, ICON))
        self.icon.show()
        self.setProperty("state", state)
        if state == "failed":
            palette = self.status.palette()
            palette.setColor(QPalette.ColorRole.WindowText, warning_color(self.palette()))
            self.status.setPalette(palette)

    def _retry(self) -> None:
        if self.retry_sources:
            self.retry_requested.emit(list(self.retry_sources), self.collection)

    def _open_link(self, href: str) -> None:
        if href.startswith(VIDEO_LINK):
            self.video_requested.emit(href[len(VIDEO_LINK) :])


class ImportPanel(QWidget):
    """The imports of this session; finished rows stay until cleared.

    Signals:
        retry_requested(sources, collection): a row's Retry was clicked.
        replace_requested(outcomes, collection): a row's Replace… was clicked.
        video_requested(video_id): a row's link to an imported video was clicked.
    """

    retry_requested = Signal(list, str)
    replace_requested = Signal(list, str)
    video_requested = Signal(str)

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
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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

    def track(
        self,
        job_id: str,
        label: str,
        sources: list[str] | None = None,
        collection: str = "",
        *,
        cancelled_text: str = "",
        done_text: str = "",
    ) -> ImportRow:
        row = ImportRow(job_id, label, self._runner, sources, collection)
        if cancelled_text:
            row.cancelled_text = cancelled_text
        row.done_text = done_text
        row.retry_requested.connect(self.retry_requested)
        row.replace_requested.connect(self.replace_requested)
        row.video_requested.connect(self.video_requested)
        self.rows[job_id] = row
        self._list.insertWidget(self._list.count() - 1, row)
        self.show()
        return row

    def drop(self, job_id: str) -> None:
        row = self.rows.pop(job_id, None)
        if row is not None:
            row.deleteLater()
        self.setVisible(bool(self.rows))

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
        elif job_id in self.rows and isinstance(result, ImportOutcome):
            self.rows[job_id].show_outcome(result)

    def _on_failed(self, job_id: str, _code: str, message: str, hint: str) -> None:
        if job_id in self.rows:
            self.rows[job_id].show_failure(message, hint)

    def _on_cancelled(self, job_id: str) -> None:
        if job_id in self.rows:
            self.rows[job_id].show_cancelled()
