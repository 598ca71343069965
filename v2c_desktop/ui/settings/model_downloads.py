"""Model downloads that outlive the dialog that started them.

A catalog model is gigabytes: closing the settings dialog must not stop its download. The
window owns one `ModelDownloads`; every row showing a catalog model (in the model manager
or the first-run dialog) starts, follows and cancels downloads through it, so a dialog
opened again shows a download still running with its progress. Cancelling the job keeps
the `.part` file in the owner: the next download of that model resumes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

from v2c_desktop.core.domain.models import InstalledModelInfo
from v2c_desktop.core.errors import V2CError

from ..bridge import UNKNOWN_TOTAL, JobRunner

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

T = TypeVar("T")


def while_alive(obj: QObject, callback: Callable[[T], None]) -> Callable[[T], None]:
    """`callback`, but doing nothing once `obj` (a widget of a closed dialog) is deleted."""

    def call(value: T) -> None:
        if shiboken6.isValid(obj):
            callback(value)

    return call


@dataclass
class Running:
    """A download in progress: its job and how far it got (`total` -1 while unknown)."""

    job: str
    label: str
    done: int = 0
    total: int = UNKNOWN_TOTAL


class ModelDownloads(QObject):
    """Signals:
    started(model_id)
    progressed(model_id, done, total): bytes so far and in all (-1 while unknown).
    finished(model_id, InstalledModelInfo)
    failed(model_id, V2CError)
    cancelled(model_id): stopped by the user; the part fetched so far is kept.
    """

    started = Signal(str)
    progressed = Signal(str, int, int)
    finished = Signal(str, object)
    failed = Signal(str, object)
    cancelled = Signal(str)

    def __init__(self, api: CoreAPI, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._api, self._runner = api, runner
        self._running: dict[str, Running] = {}
        runner.progress.connect(self._on_progress)

    @property
    def api(self) -> CoreAPI:
        return self._api

    @property
    def runner(self) -> JobRunner:
        return self._runner

    def start(self, model_id: str, label: str) -> str:
        """Download `model_id` through the library's owner (resuming a kept part)."""
        current = self._running.get(model_id)
        if current is not None:
            return current.job
        job = self._runner.start(
            lambda progress: self._api.pull_model(model_id, progress),
            label=f"Download {label}",
            visible=True,
            on_finished=while_alive(self, lambda info: self._finished(model_id, info)),
            on_failed=while_alive(self, lambda error: self._failed(model_id, error)),
            on_cancelled=lambda: self._cancelled(model_id) if shiboken6.isValid(self) else None,
        )
        self._running[model_id] = Running(job, label)
        self.started.emit(model_id)
        return job

    def cancel(self, model_id: str) -> bool:
        current = self._running.get(model_id)
        return current is not None and self._runner.cancel(current.job)

    def cancel_all(self) -> None:
        for model_id in list(self._running):
            self.cancel(model_id)

    def running(self, model_id: str) -> Running | None:
        return self._running.get(model_id)

    def active(self) -> list[str]:
        return list(self._running)

    # -- the job's reports -------------------------------------------------------------------
    def _on_progress(self, job: str, _stage: str, done: int, total: int, _message: str) -> None:
        for model_id, current in self._running.items():
            if current.job == job:
                current.done, current.total = done, total
                self.progressed.emit(model_id, done, total)
                return

    def _finished(self, model_id: str, info: InstalledModelInfo) -> None:
        self._running.pop(model_id, None)
        self.finished.emit(model_id, info)

    def _failed(self, model_id: str, error: V2CError) -> None:
        self._running.pop(model_id, None)
        self.failed.emit(model_id, error)

    def _cancelled(self, model_id: str) -> None:
        self._running.pop(model_id, None)
        self.cancelled.emit(model_id)
