"""Awaiting work on a worker thread that stops when asked, without waiting on it for ever.

A thread cannot be cancelled; the work in it checks a `threading.Event` between its pieces
(a transcription's audio windows, a download's blocks). One piece may take long (a window
of audio in CTranslate2 cannot be interrupted), so a cancelled caller raises the flag,
waits at most `wait` seconds for the thread to notice, and then goes on with its
`CancelledError`: nothing the thread returns afterwards reaches anyone. Its late outcome
is still retrieved, so asyncio does not log it as never retrieved.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TypeVar

T = TypeVar("T")


async def await_stoppable(work: asyncio.Future[T], stop: threading.Event, wait: float) -> T:
    """`work`'s result; if the awaiting task is cancelled, set `stop`, wait up to `wait`
    seconds for `work` to end, then re-raise the cancel. Other errors pass through."""
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        stop.set()
        work.add_done_callback(_retrieve)
        with contextlib.suppress(BaseException):  # the work checks the flag between pieces
            await asyncio.wait_for(asyncio.shield(work), wait)
        raise


def _retrieve(work: asyncio.Future[T]) -> None:
    if not work.cancelled():
        work.exception()
