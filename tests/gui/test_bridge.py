"""JobRunner: core coroutines as tasks on the qasync loop, reported as Qt signals."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pytestqt.qtbot import QtBot

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.progress import Progress, ProgressCallback
from v2c_desktop.ui.bridge import UNKNOWN_TOTAL, JobRunner, _widget_deleted

pytestmark = pytest.mark.gui


def test_progress_and_result_arrive_as_signals(qtbot: QtBot, runner: JobRunner) -> None:
    async def work(progress: ProgressCallback) -> str:
        progress(Progress("import", 1, 3, "first"))
        # progress from a worker thread is delivered on the GUI thread
        await asyncio.to_thread(progress, Progress("index", 2, None, "from a thread"))
        return "done"

    seen: list[tuple[object, ...]] = []
    runner.progress.connect(lambda *args: seen.append((*args, threading.current_thread())))
    results: list[str] = []
    with qtbot.waitSignal(runner.finished) as finished:
        job = runner.start(work, label="Import", visible=True, on_finished=results.append)
        assert [j.id for j in runner.active()] == [job]
    assert finished.args == [job, "done"]
    assert results == ["done"]
    qtbot.waitUntil(lambda: len(seen) == 2)
    assert seen[0][:5] == (job, "import", 1, 3, "first")
    assert seen[1][:5] == (job, "index", 2, UNKNOWN_TOTAL, "from a thread")
    assert all(s[5] is threading.main_thread() for s in seen)
    assert runner.active() == []


def test_a_v2c_error_becomes_failed_with_code_message_and_hint(
    qtbot: QtBot, runner: JobRunner
) -> None:
    async def work(_progress: ProgressCallback) -> None:
        raise V2CError("not-found", "no video 'x' in the library", "import it first")

    errors: list[V2CError] = []
    with qtbot.waitSignal(runner.failed) as failed:
        job = runner.start(work, label="Open", interactive=True, on_failed=errors.append)
    assert failed.args == [job, "not-found", "no video 'x' in the library", "import it first"]
    assert errors[0].code == "not-found"
    assert not runner.is_running(job)


def test_a_bug_is_reported_as_internal_without_a_traceback(qtbot: QtBot, runner: JobRunner) -> None:
    async def work(_progress: ProgressCallback) -> None:
        raise KeyError("boom")

    with qtbot.waitSignal(runner.failed) as failed:
        runner.start(work, label="Search")
    _job, code, message, hint = failed.args
    assert code == "internal"
    assert message == "Search failed: KeyError: 'boom'"
    assert "Traceback" not in message + hint and "log" in hint


def test_cancel_stops_a_running_job(qtbot: QtBot, runner: JobRunner) -> None:
    started = asyncio.Event()

    async def work(_progress: ProgressCallback) -> None:
        started.set()
        await asyncio.Event().wait()  # forever, until cancelled

    cancelled: list[bool] = []
    job = runner.start(
        work, label="Import", visible=True, on_cancelled=lambda: cancelled.append(True)
    )
    qtbot.waitUntil(started.is_set)
    with qtbot.waitSignal(runner.cancelled) as signal, qtbot.waitSignal(runner.jobs_changed):
        assert runner.cancel(job)
    assert signal.args == [job]
    assert cancelled == [True]
    assert runner.active() == []
    assert not runner.cancel(job)  # already gone


def test_a_job_cancelled_before_it_ran_still_reports(qtbot: QtBot, runner: JobRunner) -> None:
    async def work(_progress: ProgressCallback) -> None:
        raise AssertionError("never runs")

    with qtbot.waitSignal(runner.cancelled):
        job = runner.start(work, label="Search")
        runner.cancel(job)
    assert not runner.is_running(job)


def test_shutdown_cancels_every_job(qtbot: QtBot, runner: JobRunner) -> None:
    async def work(_progress: ProgressCallback) -> None:
        await asyncio.Event().wait()

    cancelled: list[str] = []
    runner.cancelled.connect(cancelled.append)
    jobs = [runner.start(work, label=f"job {i}", visible=True) for i in range(3)]
    future = asyncio.ensure_future(runner.shutdown())
    qtbot.waitUntil(future.done)
    assert sorted(cancelled) == sorted(jobs)
    assert runner.active() == []


def test_a_result_for_a_widget_closed_meanwhile_is_dropped_quietly(
    qtbot: QtBot, runner: JobRunner
) -> None:
    """A dialog closed while its list loads: the late result must not raise on the deleted
    combo box (which failed a later test's teardown), and the job still ends."""
    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
    from PySide6.QtWidgets import QComboBox

    gate = asyncio.Event()

    async def work(_progress: ProgressCallback) -> list[str]:
        await gate.wait()
        return ["a", "b"]

    combo = QComboBox()
    with qtbot.waitSignal(runner.finished) as finished:
        job = runner.start(work, label="List", on_finished=combo.addItems)
        combo.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assert not shiboken6.isValid(combo)
        gate.set()
    assert finished.args == [job, ["a", "b"]]
    assert runner.active() == []

    # a callback that emits a signal of a pane deleted meanwhile (the import's "library
    # changed" after its test or window ended) is the same case
    class Pane(QObject):
        changed = Signal()

    pane, gate = Pane(), asyncio.Event()
    with qtbot.waitSignal(runner.finished) as finished:
        job = runner.start(work, label="Import", on_finished=lambda _r: pane.changed.emit())
        pane.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gate.set()
    assert finished.args == [job, ["a", "b"]] and runner.active() == []

    # only those errors are dropped: any other error in a callback is a bug and stays loud
    assert _widget_deleted(RuntimeError("Internal C++ object (QComboBox) already deleted."))
    assert not _widget_deleted(RuntimeError("a real bug"))


@pytest.mark.parametrize("finish", ["result", "progress"])
def test_a_runner_deleted_with_its_window_cancels_its_jobs_quietly(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, finish: str
) -> None:
    """A window closed with reads in flight deletes its runner: the jobs are cancelled, and a
    result or progress arriving afterwards raises nothing (it failed a screenshot test's
    teardown in CI with "Signal source has been deleted")."""
    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent, QObject

    gate = asyncio.Event()
    reached: list[str] = []

    async def shielded(progress: ProgressCallback) -> str:
        reached.append("running")
        try:
            await gate.wait()
        except asyncio.CancelledError:
            reached.append("cancelled")
        # work that ignores the cancel and reports anyway, as a thread finishing late would
        if finish == "progress":
            progress(Progress("index", 1, 2, "late"))
        return "late"

    parent = QObject()
    runner = JobRunner(qloop, parent)
    tasks_before = set(asyncio.all_tasks(qloop))
    runner.start(shielded, label="Read", visible=True)
    (task,) = set(asyncio.all_tasks(qloop)) - tasks_before
    qtbot.waitUntil(lambda: reached == ["running"])
    parent.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(runner)
    qtbot.waitUntil(task.done)
    assert reached == ["running", "cancelled"]  # deleting the runner cancelled the job
    assert task.exception() is None  # and the late outcome was dropped, not raised
