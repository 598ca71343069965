"""Where an owner's socket lives: a short, private, per-user path derived from the library.

Unix socket paths are capped near 104-108 bytes, so the socket cannot sit beside a library
in a deep folder. It goes in the per-user runtime directory (XDG_RUNTIME_DIR on Linux) under
a name hashed from the library's absolute path, so every process finds the same socket
without reading anything the owner wrote. The directory must belong to us and be 0700: not
every platform honours permissions on the socket file itself, all of them honour the
directory's, and a directory another user controls could hand us their socket.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import warnings
from pathlib import Path

import platformdirs

from ..errors import V2CError
from ..paths import APP_NAME

# macOS allows 104 bytes including the NUL, Linux 108; stay under both.
SOCKET_PATH_MAX = 100


def socket_name(library: Path) -> str:
    """`<sha256(absolute library path)[:16]>.sock`: the same for every process."""
    absolute = str(Path(library).expanduser().resolve())
    return hashlib.sha256(absolute.encode("utf-8")).hexdigest()[:16] + ".sock"


def _not_private(path: Path, why: str) -> V2CError:
    return V2CError(
        "internal",
        f"cannot use {path} for the library socket: {why}",
        "remove it, or point XDG_RUNTIME_DIR at a directory that only you can open",
        {"path": str(path)},
    )


def ensure_private_dir(path: Path) -> Path:
    """Create `path` as 0700 (or tighten it) and refuse it unless it is our own directory."""
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise _not_private(path, "it is not a plain directory")
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        raise _not_private(path, f"it belongs to user {info.st_uid}, not to you")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def _fits(directory: Path) -> bool:
    return len(os.fsencode(directory / ("0" * 16 + ".sock"))) <= SOCKET_PATH_MAX


def default_runtime_dir() -> Path:
    """platformdirs' user runtime dir, else `<tempdir>/v2c-<uid>`, whichever is usable."""
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        preferred = Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))
    uid = getattr(os, "getuid", lambda: "user")()
    fallback = Path(tempfile.gettempdir()) / f"v2c-{uid}"
    problems: list[str] = []
    for candidate in (preferred, fallback):
        if not _fits(candidate):
            problems.append(f"{candidate}: path too long for a socket")
            continue
        try:
            return ensure_private_dir(candidate)
        except (OSError, V2CError) as exc:
            problems.append(f"{candidate}: {exc}")
    raise V2CError(
        "internal",
        "no private directory is available for the library socket",
        "set XDG_RUNTIME_DIR to a short directory that only you can open",
        {"tried": problems},
    )


def socket_path_for(library: Path, runtime_dir: Path | None = None) -> Path:
    """The socket the owner of `library` serves on (the directory is created if missing)."""
    base = ensure_private_dir(runtime_dir) if runtime_dir is not None else default_runtime_dir()
    path = base / socket_name(library)
    if len(os.fsencode(path)) > SOCKET_PATH_MAX:
        raise V2CError(
            "internal",
            f"the socket path {path} is longer than {SOCKET_PATH_MAX} bytes",
            "use a shorter runtime directory",
        )
    return path
