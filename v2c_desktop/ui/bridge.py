"""The one way the GUI runs core work: asyncio tasks on the qasync loop, reported as Qt signals.

Core operations are coroutines that take a `Progress` callback and honour cancellation.
`JobRunner` starts them as tasks on the loop the window runs on, so the GUI thread never
blocks; progress, results, typed failures and cancellations come back as signals that any
pane (and the status bar) can listen to, and a caller may also pass per-job callbacks.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.progress import Progress, ProgressCallback

log = logging.getLogger(__name__)

Work = Callable[[ProgressCallback], Awaitable[Any]]
OnFinished = Callable[[Any], None]
OnFailed = Callable[[V2CError], None]
OnCancelled = Callable[[], None]

UNKNOWN_TOTAL = -1


@dataclass
class JobInfo:
    """What the status bar shows about a running job.

    `visible` jobs are listed (imports); quick reads and searches are not. `interactive`
    marks a job the user started on purpose: its failure deserves a dialog, not only the
    status bar.
    """

    id: str
    label: str
    visible: bool = True
    interactive: bool = False
    stage: str = ""
    done: int = 0
    total: int | None = None
    message: str = ""


@dataclass
class _Job:
    info: JobInfo
    task: asyncio.Task[Any] | None = None
    on_finished: OnFinished | None = None
    on_failed: OnFailed | None = None
    on_cancelled: OnCancelled | None = None


class JobRunner(QObject):
    """Runs core coroutines as tasks and turns their progress and outcome into signals.

    Signals:
        started(job_id, label)
        progress(job_id, stage, done, total, message): `total` is -1 when unknown.
        finished(job_id, result): the coroutine's return value.
        failed(job_id, code, message, hint): a `V2CError` (anything else becomes `internal`).
        cancelled(job_id)
        jobs_changed(): the list of active visible jobs changed.
    """

    started = Signal(str, str)
    progress = Signal(str, str, int, int, str)
    finished = Signal(str, object)
    failed = Signal(str, str, str, str)
    cancelled = Signal(str)
    jobs_changed = Signal()

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._loop = loop or asyncio.get_event_loop()
        self._thread = threading.get_ident()
        self._jobs: dict[str, _Job] = {}
        self._ids = itertools.count(1)
        # a runner deleted with its window leaves no orphan work behind; the closure holds
        # the job table, not the dying QObject
        jobs = self._jobs
        self.destroyed.connect(lambda *_: _cancel_all(jobs))

    # -- starting and stopping ---------------------------------------------------------------
    def start(
        self,
        work: Work,
        *,
        label: str = "",
        visible: bool = False,
        interactive: bool = False,
        on_finished: OnFinished | None = None,
        on_failed: OnFailed | None = None,
        on_cancelled: OnCancelled | None = None,
    ) -> str:
        """Start `work(progress)` as a task and return its job id at once."""
        job_id = f"job-{next(self._ids)}"
        job = _Job(
            JobInfo(job_id, label, visible, interactive), None, on_finished, on_failed, on_cancelled
        )
        self._jobs[job_id] = job
        job.task = self._loop.create_task(self._run(job, work))
        job.task.add_done_callback(lambda task: self._on_task_done(job, task))
        self.started.emit(job_id, label)
        if visible:
            self.jobs_changed.emit()
        return job_id

    def cancel(self, job_id: str) -> bool:
        """Ask a job to stop; its `cancelled` signal follows once the task has unwound."""
        job = self._jobs.get(job_id)
        if job is None or job.task is None or job.task.done():
            return False
        job.task.cancel()
        return True

    async def shutdown(self) -> None:
        """Cancel every job and wait for all of them to unwind (closing the window)."""
        tasks = [j.task for j in self._jobs.values() if j.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- what is running ---------------------------------------------------------------------
    def job(self, job_id: str) -> JobInfo | None:
        """A job's info while it runs, and while its final signal is being delivered."""
        job = self._jobs.get(job_id)
        return job.info if job else None

    def active(self) -> list[JobInfo]:
        return [j.info for j in self._jobs.values() if j.info.visible]

    def is_running(self, job_id: str) -> bool:
        return job_id in self._jobs

    # -- the task ----------------------------------------------------------------------------
    def _progress_callback(self, job: _Job) -> ProgressCallback:
        def report(event: Progress) -> None:
            if threading.get_ident() != self._thread:
                self._loop.call_soon_threadsafe(report, event)
                return
            if job.info.id not in self._jobs or not shiboken6.isValid(self):
                return
            info = job.info
            info.stage, info.done, info.total, info.message = (
                event.stage,
                event.done,
                event.total,
                event.message,
            )
            total = UNKNOWN_TOTAL if event.total is None else event.total
            self.progress.emit(info.id, event.stage, event.done, total, event.message)
            if info.visible:
                self.jobs_changed.emit()

        return report

    async def _run(self, job: _Job, work: Work) -> None:
        job_id = job.info.id
        try:
            result = await work(self._progress_callback(job))
        except asyncio.CancelledError:
            self._settle(job, lambda: self.cancelled.emit(job_id), job.on_cancelled)
        except V2CError as error:
            self._fail(job, error)
        except Exception as exc:  # a bug, not a user error: log it, show no traceback
            log.exception("job %s (%s) failed", job_id, job.info.label)
            self._fail(
                job,
                V2CError(
                    "internal",
                    f"{job.info.label or 'the operation'} failed: {type(exc).__name__}: {exc}",
                    "this is a bug in v2c desktop; the details are in its log",
                ),
            )
        else:
            callback = job.on_finished
            self._settle(
                job,
                lambda: self.finished.emit(job_id, result),
                (lambda: callback(result)) if callback else None,
            )

    def _on_task_done(self, job: _Job, task: asyncio.Task[Any]) -> None:
        """A task cancelled before it ever ran never reached `_run`'s handlers."""
        if job.info.id in self._jobs and task.cancelled():
            self._settle(job, lambda: self.cancelled.emit(job.info.id), job.on_cancelled)

    def _fail(self, job: _Job, error: V2CError) -> None:
        callback = job.on_failed
        self._settle(
            job,
            lambda: self.failed.emit(job.info.id, error.code, error.message, error.hint_for("app")),
            (lambda: callback(error)) if callback else None,
        )

    def _settle(
        self, job: _Job, emit: Callable[[], None], callback: Callable[[], None] | None
    ) -> None:
        """Call the caller's callback, emit the signal, then forget the job.

        A result may arrive after the widget that asked for it was closed and deleted (a
        dialog shut while its list loads, a window closing with its first reads in flight);
        its callback then fails on the deleted C++ object. That is not an error: the job's
        audience is gone, so the callback is skipped and the signal still goes out. When the
        runner itself is gone (its window closed), nobody is listening: the result is dropped.
        """
        if not shiboken6.isValid(self):
            self._jobs.pop(job.info.id, None)
            log.debug("job %s finished after its runner was deleted", job.info.id)
            return
        try:
            if callback is not None:
                try:
                    callback()
                except RuntimeError as exc:
                    if not _widget_deleted(exc):
                        raise
                    log.debug("job %s finished after its widget closed", job.info.id)
            emit()
        finally:
            self._jobs.pop(job.info.id, None)
            if job.info.visible:
                self.jobs_changed.emit()


def _cancel_all(jobs: dict[str, _Job]) -> None:
    for job in list(jobs.values()):
        if job.task is not None and not job.task.done():
            job.task.cancel()


def _widget_deleted(exc: RuntimeError) -> bool:
    """The errors PySide raises when code touches a Qt object already deleted: a method
    called on it, or one of its signals emitted."""
    return "already deleted" in str(exc) or "Signal source has been deleted" in str(exc)
