"""Running a transcriber off the event loop: a worker thread, progress back on the loop,
and cancellation that reaches the worker (it stops within a few seconds)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

from ..progress import Progress, ProgressCallback, ignore_progress
from .types import Cancelled, SpeechResult, Transcriber


async def transcribe_in_worker(
    transcriber: Transcriber,
    path: Path,
    *,
    language: str | None = None,
    progress: ProgressCallback = ignore_progress,
    cancel: threading.Event | None = None,
) -> SpeechResult:
    """`transcriber.transcribe` in a worker thread.

    Cancelling the awaiting task sets the worker's cancel flag and waits for the worker to
    stop before `CancelledError` goes on, so nothing runs on behind the caller's back.
    Setting `cancel` from elsewhere (a Cancel button) raises `CancelledError` here too.
    """
    loop = asyncio.get_running_loop()
    flag = cancel or threading.Event()

    def report(event: Progress) -> None:  # listeners live on the loop's thread
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
            loop.call_soon_threadsafe(progress, event)

    work = asyncio.ensure_future(
        asyncio.to_thread(
            transcriber.transcribe, path, language=language, progress=report, cancel=flag
        )
    )
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        flag.set()
        with contextlib.suppress(BaseException):
            await asyncio.shield(work)  # the worker checks the flag between pieces of work
        raise
    except Cancelled:
        raise asyncio.CancelledError() from None
