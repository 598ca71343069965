"""Writing a file so that a reader (Obsidian, a sync client) sees the old or the new
version, never half of one: a temporary file beside the target, flushed, then renamed."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace (or create) `path` with `text` in UTF-8, with `\\n` line ends.

    The temporary file is created exclusively in the same folder (so the rename stays on
    one file system) with a dot name Obsidian ignores; it is removed if anything fails.
    A symlink at `path` is replaced, never followed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f".{path.name[:40]}.{secrets.token_hex(4)}.v2c-tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
