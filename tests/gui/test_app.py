"""Starting and stopping the app: the library choice, the qasync session, a clean close."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from v2c_desktop import ui_main
from v2c_desktop.core.paths import app_paths
from v2c_desktop.core.settings import Settings, load_settings
from v2c_desktop.core.store import open_library
from v2c_desktop.ui import app as app_module
from v2c_desktop.ui import pyside_fixes
from v2c_desktop.ui.links import parse_seek_href, seek_href
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_the_library_comes_from_the_flag_then_env_then_last_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = Settings(last_library=str(tmp_path / "last.duckdb"))
    assert app_module.choose_library(None, Settings()) == app_paths().default_library
    assert app_module.choose_library(None, last) == tmp_path / "last.duckdb"
    monkeypatch.setenv("V2C_LIBRARY", str(tmp_path / "env.duckdb"))
    assert app_module.choose_library(None, last) == tmp_path / "env.duckdb"
    flag = str(tmp_path / "flag.duckdb")
    assert app_module.choose_library(flag, last) == tmp_path / "flag.duckdb"


def test_seek_links_survive_qurl() -> None:
    href = seek_href("youtube:fxZWtc0mYpQ", 42.5)
    assert href == "v2c-seek:?video=youtube%3AfxZWtc0mYpQ&t=42.500"
    assert parse_seek_href(QUrl(href).toString()) == ("youtube:fxZWtc0mYpQ", 42.5)
    assert parse_seek_href("seek://42.5") is None
    assert parse_seek_href("v2c-seek:?video=x&t=nan") is None
    assert parse_seek_href("https://example.com/?video=x&t=1") is None


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        ui_main.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("v2c desktop ")


@pytest.fixture
def app_defaults(qapp: QApplication) -> Iterator[None]:
    """`run` changes application-wide state; put it back for the other tests."""
    quit_on_close = qapp.quitOnLastWindowClosed()
    yield
    qapp.setQuitOnLastWindowClosed(quit_on_close)
    asyncio.set_event_loop(None)


def test_run_owns_the_library_shows_the_window_and_closes_cleanly(
    qtbot: QtBot, tmp_path: Path, app_defaults: None
) -> None:
    path = tmp_path / "lib.duckdb"
    ready_file = tmp_path / "ready"
    # once the window has read the library, the user closes it
    seen: dict[str, str] = {}

    def close_when_ready() -> None:
        # the shown one: a closed window of an earlier test may not be deleted yet
        windows = [
            w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()
        ]
        if windows and ready_file.exists():
            window = windows[0]
            seen["status"] = window.status.library.full_text()
            seen["mcp"] = window.status.mcp.full_text()
            seen["role"] = window.owner.role
            window.close()
        else:
            QTimer.singleShot(20, close_when_ready)

    QTimer.singleShot(0, close_when_ready)
    assert app_module.run(["--library", str(path), "--ready-file", str(ready_file)]) == 0
    assert seen == {
        "status": "No videos yet",
        "mcp": "Agents: none connected",
        "role": "owner",
    }
    assert float(ready_file.read_text()) > 0
    assert load_settings().last_library == str(path)  # remembered for next time
    store = open_library(path)  # the lock was released: the library opens again
    store.close()


def test_signals_cannot_use_up_the_references_to_true() -> None:
    """PySide6 6.12's emit() drops a reference to True each time; the fix pins True."""
    if not pyside_fixes.emit_loses_true_references():
        pytest.skip("this PySide6 keeps its references to True")
    assert pyside_fixes.pin_true()  # applied when v2c_desktop.ui was imported
    assert sys.getrefcount(True) > 1 << 39


def test_the_self_test_opens_a_window_imports_the_sample_and_loads_the_player(
    qtbot: QtBot, app_defaults: None, capfd: pytest.CaptureFixture[str]
) -> None:
    assert app_module.run(["--self-test"]) == 0
    err = capfd.readouterr().err
    assert "self-test ok: window ready, sample imported, player page loaded" in err
    assert load_settings().last_library is None  # a temporary library, not remembered
