"""While the app runs, the collections on a schedule are checked for new uploads.

Every few minutes the core is asked for the collections whose next check has come
(`CoreAPI.refresh_due_collections`); each is refreshed as a background job, and what came in
is said in the status bar. One check at a time: a slow source never piles checks up. The
schedule lives in the library (`v2c collections watch`, the collection's "Check
automatically…"), so closing the app pauses it and the next start catches up.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from v2c_desktop.core.domain.follow import RefreshResult
from v2c_desktop.core.errors import V2CError

from .bridge import JobRunner

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

log = logging.getLogger(__name__)
PERIOD_MS = 5 * 60 * 1000
FIRST_MS = 60 * 1000  # after start-up, once the window has read the library


def checked_text(results: list[RefreshResult]) -> str:
    """The status bar's line after a check: what came in, where; '' when nothing did."""
    parts = [f"{r.state.collection_id}: {r.new} new" for r in results if r.new]
    return ("New videos in followed collections: " + ", ".join(parts)) if parts else ""


class FollowSchedule(QObject):
    """Signals:
    checked(text, new): a scheduled check ended; `new` videos came in (text for the bar).
    """

    checked = Signal(str, int)

    def __init__(self, api: CoreAPI, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self._job: str | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(PERIOD_MS)
        self.timer.timeout.connect(self.check_now)
        self._first = QTimer(self)
        self._first.setSingleShot(True)
        self._first.timeout.connect(self.check_now)
        self._stopped = False

    def start(self, first_ms: int = FIRST_MS) -> None:
        self._stopped = False
        self.timer.start()
        self._first.start(first_ms)

    def stop(self) -> None:
        """The window closed: no check starts any more (the loop is about to end)."""
        self._stopped = True
        self.timer.stop()
        self._first.stop()

    def check_now(self) -> str | None:
        """Refresh what is due, unless a check is running or the schedule stopped; the job
        id."""
        if self._job is not None or self._stopped:
            return None
        self._job = self._runner.start(
            lambda progress: self._api.refresh_due_collections(progress),
            label="Check followed collections",
            on_finished=self._finished,
            on_failed=self._failed,
            on_cancelled=self._done,
        )
        return self._job

    def _finished(self, results: list[RefreshResult]) -> None:
        self._done()
        new = sum(r.new for r in results)
        if results:
            self.checked.emit(checked_text(results), new)

    def _failed(self, error: V2CError) -> None:
        self._done()  # a source that cannot be read is the collection's pending list
        log.warning("a scheduled collection check failed: %s: %s", error.code, error.message)

    def _done(self) -> None:
        self._job = None
