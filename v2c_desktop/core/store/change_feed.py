"""The store's change feed: every committed write is published to whoever listens.

Writes run on the store's worker thread; listeners are async iterators on event loops. A
listener gets every change from the moment it subscribes, in commit order. One that falls
behind by more than `BACKLOG` changes gets one catch-all change per subject instead of an
unbounded queue: it must re-read what it shows anyway.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

from ..domain.changes import Change

BACKLOG = 1000
#: What a listener that fell behind gets instead of the changes it missed.
EVERYTHING = (
    Change("video", "changed"),
    Change("collection", "changed"),
    Change("chat", "changed"),
    Change("index", "changed"),
    Change("brief", "changed"),
)


class _Listener:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[Change] = asyncio.Queue()

    def put(self, change: Change) -> None:
        """Runs on the listener's own loop (`call_soon_threadsafe`)."""
        if self.queue.qsize() >= BACKLOG:
            while not self.queue.empty():
                self.queue.get_nowait()
            for catch_all in EVERYTHING:
                self.queue.put_nowait(catch_all)
            return
        self.queue.put_nowait(change)


class ChangeFeed:
    """Publish from any thread; subscribe from any event loop."""

    def __init__(self) -> None:
        self._listeners: set[_Listener] = set()
        self._lock = threading.Lock()

    def publish(self, change: Change) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener.loop.call_soon_threadsafe(listener.put, change)
            except RuntimeError:  # that loop is closed: the listener is gone
                with self._lock:
                    self._listeners.discard(listener)

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._listeners)

    async def subscribe(self) -> AsyncIterator[Change]:
        """Changes from now on, until the caller stops iterating (or is cancelled)."""
        listener = _Listener(asyncio.get_running_loop())
        with self._lock:
            self._listeners.add(listener)
        try:
            while True:
                yield await listener.queue.get()
        finally:
            with self._lock:
                self._listeners.discard(listener)
