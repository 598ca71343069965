"""A button that runs one core job and, while it runs, stops it (Test → Stop test).

Loading a model to test it, or waiting for a slow server, takes seconds: the user sees it
is running and can stop it, and the GUI never waits for it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton, QWidget

from v2c_desktop.core.errors import V2CError

from ..bridge import JobRunner
from .model_downloads import while_alive

Work = Callable[[], Awaitable[Any]]


class JobButton(QPushButton):
    """Signals:
    running(bool): the job started (True) or ended, however it ended (False).
    succeeded(result)
    failed(V2CError)
    stopped(): the user stopped it.
    """

    running = Signal(bool)
    succeeded = Signal(object)
    failed = Signal(object)
    stopped = Signal()

    def __init__(
        self,
        text: str,
        busy_text: str,
        runner: JobRunner,
        work: Work | None = None,
        *,
        label: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(text, parent)
        self.idle_text, self.busy_text = text, busy_text
        self.work = work
        self.label = label or text
        self._runner = runner
        self.job = ""
        self.clicked.connect(self.toggle)

    def toggle(self) -> None:
        if self.job:
            self._runner.cancel(self.job)
        else:
            self.run()

    def run(self) -> str:
        """Start the job (if none runs); its id."""
        if self.job or self.work is None:
            return self.job
        work = self.work
        self.job = self._runner.start(
            lambda _progress: work(),
            label=self.label,
            on_finished=while_alive(self, self._succeeded),
            on_failed=while_alive(self, self._failed),
            on_cancelled=lambda: while_alive(self, self._stopped)(None),
        )
        self.setText(self.busy_text)
        self.running.emit(True)
        return self.job

    def _end(self) -> None:
        self.job = ""
        self.setText(self.idle_text)
        self.running.emit(False)

    def _succeeded(self, result: object) -> None:
        self._end()
        self.succeeded.emit(result)

    def _failed(self, error: V2CError) -> None:
        self._end()
        self.failed.emit(error)

    def _stopped(self, _none: None) -> None:
        self._end()
        self.stopped.emit()
