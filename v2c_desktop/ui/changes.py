"""The library's change feed as Qt signals: panes refresh from what changed, whoever changed it.

An agent importing through `v2c mcp`, a `v2c` command or the app itself: every write goes
through the library's owner, which publishes it (`CoreAPI.changes`). One task per window
reads that feed for as long as the window lives. Changes arrive in bursts (an import of a
playlist writes a video, then its index, per item), so they are gathered for a moment and
handed on as one set of subjects; a pane re-reads what it shows once per burst.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from v2c_desktop.core.domain.changes import Change
from v2c_desktop.core.errors import V2CError

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

log = logging.getLogger(__name__)

#: How long a burst of changes is gathered before the panes hear of it.
SETTLE_MS = 150
#: How long to wait before subscribing again after the feed broke (owner gone, re-elected).
RETRY_S = 1.0


class ChangeListener(QObject):
    """Signals:
    changed(subjects): a burst of changes settled; `subjects` is a frozenset of
        "video", "collection", "chat" and "index".
    """

    changed = Signal(object)

    def __init__(self, api: CoreAPI, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._api = api
        self._task: asyncio.Task[None] | None = None
        self._pending: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self._flush)
        self.seen = 0  # changes read so far (tests wait on it)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_event_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                async for change in self._api.changes():
                    self._note(change)
            except asyncio.CancelledError:
                raise
            except V2CError as error:  # the owner went away: the next call re-elects
                log.info("change feed interrupted (%s); subscribing again", error.message)
            except Exception:  # never let the feed kill the window; say so in the log
                log.exception("change feed failed; subscribing again")
            await asyncio.sleep(RETRY_S)

    def _note(self, change: Change) -> None:
        self.seen += 1
        self._pending.add(change.subject)
        if not self._timer.isActive():
            self._timer.start()

    def _flush(self) -> None:
        subjects, self._pending = frozenset(self._pending), set()
        if subjects:
            self.changed.emit(subjects)

    async def aclose(self) -> None:
        self._timer.stop()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
