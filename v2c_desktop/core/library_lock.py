"""One process owns a library file; the others are told who does.

DuckDB lets a single process open a file for writing, and its own error is a traceback
that names the interpreter, not the program. We take an OS lock on `<library>.lock` first
and write our PID and command into it, so a second process can say exactly which program
holds the library. The OS drops the lock when the owner dies (even by SIGKILL), so a stale
lock file never blocks anyone.

The lock file sits beside the library, in a folder someone else may be able to write to, so
it is opened without following a symbolic link (a planted `<library>.lock` link would
otherwise have us truncate the file it points at), must be a regular file of ours, and is
kept 0600 like the library itself.
"""

from __future__ import annotations

import json
import os
import stat
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


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted there must not hang the open


def _refused_lock(path: Path, why: str) -> V2CError:
    return V2CError(
        "bad-request",
        f"refusing the lock file {path}: {why}",
        "remove that file (v2c makes a new one), or pass --library to use a library "
        "in a folder only you can write to",
        {"path": str(path)},
    )


def open_lock_file(path: Path) -> IO[str]:
    """`path` opened read-write (created 0600), never through a symbolic link, and only
    when it is a regular file owned by this user."""
    flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC | _NONBLOCK
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise _refused_lock(path, "it is a symbolic link") from None
        raise V2CError(
            "internal",
            f"cannot open the lock file {path}: {exc.strerror or exc}",
            "check that the library's folder exists and is writable",
            {"path": str(path)},
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refused_lock(path, "it is not a regular file")
        getuid = getattr(os, "getuid", None)
        if getuid is not None and info.st_uid != getuid():
            raise _refused_lock(path, f"it belongs to user {info.st_uid}, not to you")
        if hasattr(os, "fchmod") and stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, "r+", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def read_owner(library: Path) -> dict[str, Any]:
    """What the owner wrote into the lock file (pid, command); empty when unreadable."""
    try:
        fd = os.open(lock_path_for(library), os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK)
        with os.fdopen(fd, encoding="utf-8") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return {}
            data = json.loads(handle.read(4096) or "{}")
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
        handle = open_lock_file(self.path)  # held until release
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
