"""A library file is data, not code (issue 22): a planted view or macro, external access,
file modes, a planted lock file, and the socket's folder when the usual ones are taken."""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from v2c_desktop.cli.main import main
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.library_lock import LibraryLock, lock_path_for
from v2c_desktop.core.owner import runtime
from v2c_desktop.core.store import open_library

SECRET = "password: hunter2 (a local secret file)"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes and links")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    return secret


def _planted_library(tmp_path: Path, plant: str) -> Path:
    """A real v2c library, then changed by "someone else" with the SQL in `plant`."""
    library = tmp_path / "sent" / "lib.duckdb"
    open_library(library).close()
    conn = duckdb.connect(str(library))
    try:
        conn.execute(plant)
    finally:
        conn.close()
    return library


def _view_over_collections(secret: Path) -> str:
    return f"""
        DROP TABLE collections;
        CREATE VIEW collections AS
            SELECT 'c1' AS id, content AS name, '' AS description,
                   []::VARCHAR[] AS sources, now()::TIMESTAMP AS created_at
            FROM read_text('{secret}')
    """


# -- a planted view or macro ------------------------------------------------------------------
def test_collections_list_refuses_a_library_with_a_view_and_never_prints_the_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = _planted_library(tmp_path, _view_over_collections(_secret(tmp_path)))
    status = main(["--library", str(library), "collections", "list"])
    out, err = capsys.readouterr()
    assert "hunter2" not in out + err
    assert status != 0
    assert "refusing to open" in err and str(library) in err and "views" in err
    assert "Traceback" not in err


def test_json_output_names_the_error_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = _planted_library(tmp_path, _view_over_collections(_secret(tmp_path)))
    assert main(["--library", str(library), "collections", "list", "--json"]) != 0
    out, err = capsys.readouterr()
    assert "hunter2" not in out + err
    assert '"bad-request"' in out and "main.collections" in out


def test_a_library_with_a_macro_is_refused(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    library = _planted_library(
        tmp_path, f"CREATE MACRO leak() AS TABLE SELECT * FROM read_text('{secret}')"
    )
    with pytest.raises(V2CError) as caught:
        open_library(library)
    assert caught.value.code == "bad-request"
    assert "macros" in caught.value.message and str(library) in caught.value.message
    assert caught.value.hint
    # refused cleanly: the lock is free again, so a fixed file opens at once
    conn = duckdb.connect(str(library))
    conn.execute("DROP MACRO TABLE leak")
    conn.close()
    open_library(library).close()


def test_the_connection_cannot_read_other_files_or_turn_access_back_on(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    with open_library(tmp_path / "lib.duckdb") as store:
        cursor = store.reader()
        with pytest.raises(duckdb.Error, match="disabled"):
            cursor.execute(f"SELECT content FROM read_text('{secret}')").fetchall()
        with pytest.raises(duckdb.Error, match="disabled"):
            cursor.execute(f"SELECT * FROM read_csv('{secret}')").fetchall()
        with pytest.raises(duckdb.Error):
            cursor.execute(f"ATTACH '{tmp_path / 'other.duckdb'}' AS other")
        with pytest.raises(duckdb.Error, match="locked"):
            cursor.execute("SET enable_external_access = true")
        setting = "SELECT current_setting('autoload_known_extensions')"
        assert cursor.execute(setting).fetchone() == (False,)
        assert store.list_collections() == []  # the app itself needs none of it


# -- file modes -------------------------------------------------------------------------------
@posix_only
def test_library_wal_and_lock_are_created_0600_under_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        library = tmp_path / "lib.duckdb"
        with open_library(library) as store:
            store.create_collection("Talks")  # a write: DuckDB makes the WAL now
            wal = library.with_name(library.name + ".wal")
            assert wal.exists()
            assert _mode(wal) == 0o600
            assert _mode(library) == 0o600
            assert _mode(lock_path_for(library)) == 0o600
            store.create_collection("More")  # the WAL of a later write, after a checkpoint
            if wal.exists():
                assert _mode(wal) == 0o600
        assert os.umask(0o022) == 0o022  # the process umask is given back
    finally:
        os.umask(old)


@posix_only
def test_an_older_0644_library_is_tightened_on_open(tmp_path: Path) -> None:
    library = tmp_path / "lib.duckdb"
    duckdb.connect(str(library)).close()
    lock = lock_path_for(library)
    lock.write_text("{}")
    os.chmod(library, 0o644)
    os.chmod(lock, 0o644)
    with open_library(library):
        assert _mode(library) == 0o600
        assert _mode(lock) == 0o600


# -- the lock file ----------------------------------------------------------------------------
@posix_only
def test_a_planted_lock_symlink_is_refused_and_its_target_left_alone(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("do not truncate me", encoding="utf-8")
    library = tmp_path / "lib.duckdb"
    lock_path_for(library).symlink_to(victim)
    with pytest.raises(V2CError) as caught:
        open_library(library)
    assert "symbolic link" in caught.value.message
    assert str(lock_path_for(library)) in caught.value.message
    assert victim.read_text(encoding="utf-8") == "do not truncate me"
    assert not library.exists()  # refused before DuckDB made anything


@posix_only
def test_a_planted_fifo_lock_is_refused_without_hanging(tmp_path: Path) -> None:
    library = tmp_path / "lib.duckdb"
    os.mkfifo(lock_path_for(library))
    with pytest.raises(V2CError, match="not a regular file"):
        LibraryLock(library).acquire()


@pytest.mark.skipif(not IS_ROOT, reason="making a file owned by another user needs root")
def test_a_lock_file_of_another_user_is_refused(tmp_path: Path) -> None:
    library = tmp_path / "lib.duckdb"
    lock = lock_path_for(library)
    lock.write_text('{"pid": 1}', encoding="utf-8")
    os.chown(lock, 54321, 54321)
    with pytest.raises(V2CError, match="belongs to user 54321"):
        open_library(library)
    assert lock.read_text(encoding="utf-8") == '{"pid": 1}'


@posix_only
def test_a_folder_others_can_write_to_is_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with caplog.at_level(logging.WARNING), open_library(shared / "lib.duckdb"):
        pass
    assert any("can be written by other users" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING), open_library(tmp_path / "private" / "lib.duckdb"):
        pass
    assert not any("other users" in r.getMessage() for r in caplog.records)


# -- the socket's folder ----------------------------------------------------------------------
@pytest.fixture
def no_runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """XDG_RUNTIME_DIR unset, a temp dir of our own, and a fresh home (and V2C_HOME), both
    short: a socket path must stay under ~100 bytes."""
    base = Path(tempfile.mkdtemp(prefix="v2c-s-", dir="/tmp"))
    temp, home = base / "tmp", base / "home"
    temp.mkdir()
    home.mkdir()
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("V2C_HOME", str(home))  # where the app keeps its per-user files
    yield temp, home
    shutil.rmtree(base, ignore_errors=True)


def _uid() -> int:
    return os.getuid()


@posix_only
def test_runtime_dirs_taken_by_links_fall_back_to_a_private_folder_in_home(
    no_runtime_dir: tuple[Path, Path], tmp_path: Path
) -> None:
    temp, home = no_runtime_dir
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir()
    (temp / f"runtime-{_uid()}").symlink_to(elsewhere)  # what platformdirs would use
    (temp / f"v2c-{_uid()}").symlink_to(elsewhere)  # and our own temp fallback
    chosen = runtime.default_runtime_dir()
    assert chosen.is_relative_to(home)
    info = os.lstat(chosen)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    assert list(elsewhere.iterdir()) == []
    library = tmp_path / "lib.duckdb"
    assert runtime.socket_path_for(library).parent == chosen


@pytest.mark.skipif(not IS_ROOT, reason="making a folder owned by another user needs root")
def test_runtime_dirs_owned_by_another_user_fall_back_to_home(
    no_runtime_dir: tuple[Path, Path],
) -> None:
    temp, home = no_runtime_dir
    for name in (f"runtime-{_uid()}", f"v2c-{_uid()}"):
        (temp / name).mkdir(mode=0o700)
        os.chown(temp / name, 54321, 54321)
    assert runtime.default_runtime_dir().is_relative_to(home)


@posix_only
def test_no_usable_runtime_dir_is_a_typed_error_not_a_traceback(
    no_runtime_dir: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp, _home = no_runtime_dir
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir()
    (temp / f"runtime-{_uid()}").symlink_to(elsewhere)
    (temp / f"v2c-{_uid()}").symlink_to(elsewhere)
    not_a_dir = tmp_path / "home-file"
    not_a_dir.write_text("")
    monkeypatch.setenv("HOME", str(not_a_dir))
    monkeypatch.setenv("V2C_HOME", str(not_a_dir))
    with pytest.raises(V2CError) as caught:
        runtime.default_runtime_dir()
    assert caught.value.code == "internal"
    assert "no private directory" in caught.value.message
    assert caught.value.hint
