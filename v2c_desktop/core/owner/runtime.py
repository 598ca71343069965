"""Where an owner's socket lives: a short, private, per-user path derived from the library.

Unix socket paths are capped near 104-108 bytes, so the socket cannot sit beside a library
in a deep folder. It goes in the per-user runtime directory (XDG_RUNTIME_DIR on Linux) under
a name hashed from the library's absolute path, so every process finds the same socket
without reading anything the owner wrote. The directory must belong to us and be 0700: not
every platform honours permissions on the socket file itself, all of them honour the
directory's, and a directory another user controls could hand us their socket. When no
such directory is usable (XDG_RUNTIME_DIR unset and `/tmp/runtime-<uid>` made by another
user, say) the socket goes in a private folder in the app's cache under the user's home,
and when even that fails the caller gets a typed error, never a traceback.
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
from ..paths import APP_NAME, app_paths

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


def _platform_runtime_dir(problems: list[str]) -> Path | None:
    """platformdirs' choice, or None (with the reason) when it refuses every option: it
    raises when `/tmp/runtime-<uid>` is a link or belongs to another user."""
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            return Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))
    except Exception as exc:  # PermissionError today; any failure means "not usable"
        problems.append(f"the platform's runtime directory: {exc}")
        return None


def _temp_runtime_dir(problems: list[str]) -> Path | None:
    try:
        return Path(tempfile.gettempdir()) / f"v2c-{getattr(os, 'getuid', lambda: 'user')()}"
    except OSError as exc:  # no usable temporary directory at all
        problems.append(f"the temporary directory: {exc}")
        return None


def _home_runtime_dir(problems: list[str]) -> Path | None:
    """`run` in the app's per-user cache folder (`~/.cache/v2c-desktop/run` on Linux; under
    `V2C_HOME` when that is set): private like the home, and short enough for a socket."""
    try:
        return app_paths().cache_dir / "run"
    except (RuntimeError, KeyError, OSError) as exc:  # no home directory to be found
        problems.append(f"the home directory: {exc}")
        return None


def default_runtime_dir() -> Path:
    """platformdirs' user runtime dir, else `<tempdir>/v2c-<uid>`, else a folder under the
    home directory, whichever is usable first."""
    problems: list[str] = []
    candidates = [
        _platform_runtime_dir(problems),
        _temp_runtime_dir(problems),
        _home_runtime_dir(problems),
    ]
    for candidate in (c for c in candidates if c is not None):
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
