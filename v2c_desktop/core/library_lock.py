"""One process owns a library file; the others are told who does.

DuckDB lets a single process open a file for writing, and its own error is a traceback
that names the interpreter, not the program. We take an OS lock on `<library>.lock` first
and write our PID and command into it, so a second process can say exactly which program
holds the library. The OS drops the lock when the owner dies (even by SIGKILL), so a stale
lock file never blocks anyone.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any

from .errors import V2CError

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle: IO[str]) -> bool:
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def lock_path_for(library: Path) -> Path:
    return library.with_name(library.name + ".lock")


def read_owner(library: Path) -> dict[str, Any]:
    """What the owner wrote into the lock file (pid, command); empty when unreadable."""
    try:
        data = json.loads(lock_path_for(library).read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def library_in_use(library: Path, owner: dict[str, Any]) -> V2CError:
    pid = owner.get("pid", "unknown")
    command = owner.get("command") or "another v2c process"
    return V2CError(
        "library-in-use",
        f"the library {library} is in use by process {pid} ({command})",
        "close that program (the desktop app or a running v2c command) and try again, "
        "or pass --library to use another library file",
        {"pid": pid, "library": str(library)},
    )


class LibraryLock:
    """An exclusive, crash-safe claim on one library file."""

    def __init__(self, library: Path) -> None:
        self.library = library
        self.path = lock_path_for(library)
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
        if not _try_lock(handle):
            handle.close()
            raise library_in_use(self.library, read_owner(self.library))
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv[:3])}))
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is None:
            return
        try:
            self._handle.seek(0)
            self._handle.truncate()
            _unlock(self._handle)
        finally:
            self._handle.close()
            self._handle = None

    @property
    def held(self) -> bool:
        return self._handle is not None
