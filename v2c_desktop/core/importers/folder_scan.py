"""Walking a folder the user dropped, with progress and a way to stop.

A folder may be a yt-dlp archive of ten videos or a home directory of a million files. The
walk runs on a worker thread (the event loop keeps answering, and the library's owner keeps
serving other processes), counts what it has looked at so the face can say "scanning
Lectures: 12,400 files", and stops within one directory entry when the import is cancelled:
a cancelled `asyncio.to_thread` alone would leave the thread walking `/usr` to the end.

Symbolic links to folders are not followed (a link back up the tree would never end), and
hidden files are skipped, as `Path.rglob` did before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..progress import Progress, ProgressCallback, ignore_progress

REPORT_EVERY_S = 0.25


class ScanStopped(Exception):
    """The walk was asked to stop (its import was cancelled)."""


@dataclass
class ScanState:
    """What the walking thread shares with the event loop: a count it writes and a flag it
    reads; a single int and an Event need no lock."""

    files: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


def walk_files(folder: Path, state: ScanState | None = None) -> list[Path]:
    """Every regular, non-hidden file under `folder`, without following links to folders.

    Raises `ScanStopped` when `state.stop` is set during the walk.
    """
    state = state or ScanState()
    found: list[Path] = []
    for path in _walk(folder, state):
        found.append(path)
        state.files += 1
    return found


def _walk(folder: Path, state: ScanState) -> Iterator[Path]:
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:  # unreadable or vanished meanwhile: the rest of the tree still counts
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            if state.stop.is_set():
                raise ScanStopped
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                elif entry.is_file() and not entry.name.startswith("."):
                    yield Path(entry.path)
            except OSError:
                continue


async def scan_files(
    folder: Path, progress: ProgressCallback = ignore_progress, state: ScanState | None = None
) -> list[Path]:
    """`walk_files` on a worker thread, reporting the count as it grows and once more when
    the walk is done; cancelling the awaiting task stops the thread too."""
    state = state or ScanState()
    work = asyncio.ensure_future(asyncio.to_thread(walk_files, folder, state))
    try:
        while True:
            done, _ = await asyncio.wait({work}, timeout=REPORT_EVERY_S)
            progress(Progress("scan", state.files, None, _line(folder, state.files)))
            if done:
                return work.result()
    except asyncio.CancelledError:
        state.stop.set()
        with contextlib.suppress(ScanStopped, OSError):
            await asyncio.shield(work)  # the thread ends within one entry; then unwind
        raise


def _line(folder: Path, files: int) -> str:
    return f"scanning {folder.name or folder}: {files:,} files"
