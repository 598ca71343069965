"""Reading an untrusted local file: only a regular file, only up to its kind's size cap.

A path a user (or an agent) names may be a named pipe that blocks the reader forever, a
device that never ends, or a sparse file that claims gigabytes; each would hang or exhaust
the process that serves the library. So a file is opened without blocking, checked to be a
regular file, refused by its size before a byte is read, and read no further than its cap
(it may grow while it is read). The caps are in `file_kinds`. Messages name the file, never
its content, and run in a worker thread (callers use `asyncio.to_thread`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import V2CError, bad_request, not_found
from ..file_kinds import size_text

_CHUNK = 1 << 20
_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _what(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_regular(path: Path, mode: int) -> V2CError:
    return V2CError(
        "unsupported-input",
        f"{path.name} is not a regular file ({_what(mode)}), so it was not read",
        "Give a regular file: v2c never reads pipes, devices or sockets, which may never end.",
        {"path": str(path)},
    )


def too_big(path: Path, size: int, cap: int, kind: str) -> V2CError:
    said = f"is {size_text(size)}" if size > 0 else f"is larger than {size_text(cap)}"
    return V2CError(
        "unsupported-input",
        f"{path.name} {said}; {kind} may be at most {size_text(cap)}, so it was not read",
        f"Check the file: {kind} that large is not one v2c can import.",
        {"path": str(path), "size": size, "max_bytes": cap},
    )


def check_regular(path: Path) -> None:
    """Raise unless `path` is (a symlink to) a regular file; never opens it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise not_found(f"there is no file {path}", "check the path") from None
    except OSError as exc:
        raise bad_request(f"cannot read {path.name}: {exc.strerror}", "check the file") from None
    if not stat.S_ISREG(mode):
        raise not_regular(path, mode)


def read_limited(path: Path, max_bytes: int, kind: str) -> bytes:
    """The bytes of the regular file `path`, refused (`V2CError`) when larger than `max_bytes`.

    `kind` names the file in messages ("a subtitle file"). Blocking I/O: call it off the
    event loop.
    """
    check_regular(path)  # a pipe or device is never even opened
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise not_found(f"there is no file {path}", "check the path") from None
    except OSError as exc:
        raise bad_request(f"cannot read {path.name}: {exc.strerror}", "check the file") from None
    try:
        info = os.fstat(fd)  # what was opened, should the path have changed since the check
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(path, info.st_mode)
        if info.st_size > max_bytes:
            raise too_big(path, info.st_size, max_bytes, kind)
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            block = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not block:
                return b"".join(chunks)
            chunks.append(block)
            total += len(block)
        raise too_big(path, 0, max_bytes, kind)  # it grew while it was read
    except OSError as exc:
        raise bad_request(f"cannot read {path.name}: {exc.strerror}", "check the file") from None
    finally:
        os.close(fd)
