"""Running a transcriber off the event loop: a worker thread, progress back on the loop,
and cancellation that reaches the worker.

The worker checks its cancel flag between pieces of work, but one piece (a 30-second window
of audio in the model) cannot be interrupted and takes from a second to half a minute on a
busy laptop. So a cancel waits for the worker only `CANCEL_WAIT` seconds: the caller hears
`CancelledError` then (nothing was returned, so nothing gets saved) and the worker, which
no longer has anyone to report to, ends at its next check, holding the model's lock until
then (a new transcription waits for it, saying so).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

from ..progress import Progress, ProgressCallback, ignore_progress
from ..stoppable import await_stoppable
from .types import Cancelled, SpeechResult, Transcriber

#: How long a cancelled call waits for its worker to stop before it gives up waiting.
CANCEL_WAIT = 2.0


async def transcribe_in_worker(
    transcriber: Transcriber,
    path: Path,
    *,
    language: str | None = None,
    progress: ProgressCallback = ignore_progress,
    cancel: threading.Event | None = None,
) -> SpeechResult:
    """`transcriber.transcribe` in a worker thread.

    Cancelling the awaiting task sets the worker's cancel flag and waits (at most
    `CANCEL_WAIT` seconds) for the worker to stop before `CancelledError` goes on.
    Setting `cancel` from elsewhere (a Cancel button) raises `CancelledError` here too.
    """
    loop = asyncio.get_running_loop()
    flag = cancel or threading.Event()

    def report(event: Progress) -> None:  # listeners live on the loop's thread
        if flag.is_set():  # cancelled: what a worker left behind says is no news
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
            loop.call_soon_threadsafe(progress, event)

    work = asyncio.ensure_future(
        asyncio.to_thread(
            transcriber.transcribe, path, language=language, progress=report, cancel=flag
        )
    )
    try:
        return await await_stoppable(work, flag, CANCEL_WAIT)
    except Cancelled:
        raise asyncio.CancelledError() from None
