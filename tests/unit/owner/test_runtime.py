"""The socket's directory is short, private and ours; its name is the library's hash."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.owner import runtime
from v2c_desktop.core.owner.runtime import (
    default_runtime_dir,
    ensure_private_dir,
    socket_name,
    socket_path_for,
)


@pytest.fixture
def base() -> Iterator[Path]:
    path = short_dir()
    yield path
    remove_dir(path)


def test_socket_name_is_a_hash_of_the_absolute_library_path(tmp_path: Path) -> None:
    library = tmp_path / "a" / ".." / "lib.duckdb"
    expected = hashlib.sha256(str((tmp_path / "lib.duckdb").resolve()).encode()).hexdigest()
    assert socket_name(library) == expected[:16] + ".sock"
    assert socket_name(tmp_path / "other.duckdb") != socket_name(library)


def test_private_dir_is_created_0700_and_tightened(base: Path) -> None:
    made = ensure_private_dir(base / "new")
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o700
    loose = base / "loose"
    loose.mkdir(mode=0o755)
    os.chmod(loose, 0o755)
    ensure_private_dir(loose)
    assert stat.S_IMODE(os.stat(loose).st_mode) == 0o700


def test_a_symlink_or_a_file_is_refused(base: Path) -> None:
    (base / "real").mkdir()
    (base / "link").symlink_to(base / "real")
    with pytest.raises(V2CError, match="not a plain directory"):
        ensure_private_dir(base / "link")
    (base / "file").write_text("x")
    with pytest.raises((V2CError, OSError)):
        ensure_private_dir(base / "file")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_a_dir_owned_by_someone_else_is_refused(base: Path) -> None:
    theirs = base / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(V2CError, match="belongs to user 65534"):
        ensure_private_dir(theirs)


def test_default_dir_follows_xdg_runtime_dir(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    assert default_runtime_dir() == base / "v2c-desktop"
    assert stat.S_IMODE(os.stat(base / "v2c-desktop").st_mode) == 0o700


def test_default_dir_falls_back_to_the_temp_dir(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/" + "x" * 120)  # far too long for a socket
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(base))
    assert default_runtime_dir() == base / f"v2c-{os.getuid()}"
    (base / f"v2c-{os.getuid()}").rmdir()
    (base / f"v2c-{os.getuid()}").write_text("in the way")
    monkeypatch.setenv("V2C_HOME", str(base / "home"))  # then the app's cache, in the home
    assert default_runtime_dir() == base / "home" / "cache" / "run"
    monkeypatch.setenv("V2C_HOME", str(base / f"v2c-{os.getuid()}"))  # a file: nothing left
    with pytest.raises(V2CError, match="no private directory"):
        default_runtime_dir()


def test_socket_path_is_short_or_refused(base: Path, tmp_path: Path) -> None:
    path = socket_path_for(tmp_path / "lib.duckdb", base)
    assert path.parent == base and len(os.fsencode(path)) <= runtime.SOCKET_PATH_MAX
    with pytest.raises(V2CError, match="longer than"):
        socket_path_for(tmp_path / "lib.duckdb", base / ("d" * 90))
