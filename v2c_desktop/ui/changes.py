"""The library's change feed as Qt signals: panes refresh from what changed, whoever changed it.

An agent importing through `v2c mcp`, a `v2c` command or the app itself: every write goes
through the library's owner, which publishes it (`CoreAPI.changes`). One task per window
reads that feed for as long as the window lives. Changes arrive in bursts (an import of a
playlist writes a video, then its index, per item), so they are gathered for a moment and
handed on as one set of subjects; a pane re-reads what it shows once per burst.

When the feed breaks (the owner exited and another process, or this one, took over) the
listener subscribes again after `RETRY_S`. Whatever was written in between never reaches
the new subscription, so the first burst after subscribing again names every subject: each
pane re-reads all it shows, after the new subscription was asked for, so a change is either
in what the panes read or in the feed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, get_args

from PySide6.QtCore import QObject, QTimer, Signal

from v2c_desktop.core.domain.changes import Change, Subject
from v2c_desktop.core.errors import V2CError

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

log = logging.getLogger(__name__)

#: How long a burst of changes is gathered before the panes hear of it.
SETTLE_MS = 150
#: How long to wait before subscribing again after the feed broke (owner gone, re-elected).
RETRY_S = 1.0
#: What a re-subscription announces: every subject, since any of them may have changed.
EVERY_SUBJECT = frozenset(get_args(Subject))


class ChangeListener(QObject):
    """Signals:
    changed(subjects): a burst of changes settled; `subjects` is a frozenset of the
        subjects of `Change` ("video", "collection", "chat", "index", ...); all of them
        after the feed was subscribed to again.
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
        self.subscriptions = 0  # how often the feed was subscribed to (tests wait on it)
        self.breaks = 0  # how often it broke
        #: The pause before subscribing again (a test may hold it until it has written).
        self.pause: Callable[[], Awaitable[None]] = lambda: asyncio.sleep(RETRY_S)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_event_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                stream = self._api.changes()
                self.subscriptions += 1
                if self.breaks:  # what was written while the feed was down is not in it
                    self._note_all()
                async for change in stream:
                    self._note(change)
            except asyncio.CancelledError:
                raise
            except V2CError as error:  # the owner went away: the next call re-elects
                log.info("change feed interrupted (%s); subscribing again", error.message)
            except Exception:  # never let the feed kill the window; say so in the log
                log.exception("change feed failed; subscribing again")
            self.breaks += 1
            await self.pause()

    def _note_all(self) -> None:
        """Every pane re-reads once the burst settles: the settle time also lets the new
        subscription reach the owner before the panes' reads do."""
        self._pending |= EVERY_SUBJECT
        if not self._timer.isActive():
            self._timer.start()

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
