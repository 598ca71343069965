"""Starting the desktop app: Qt + qasync, the library session, the window, a clean shutdown.

`open_core` is the one place that opens a library (through `core.open.open_api`). It opens
an owner session: the first process on a library becomes its owner and serves `CoreAPI` to
the others (agents' `v2c mcp`, `v2c` commands), so agents attached while the app runs see
its imports at once; when another process already owns the library, the app becomes its
client.

`--ready-file PATH` writes the wall-clock time to PATH once the window shows the library
(benchmarks wait for it); `--self-test` opens the window offscreen on a temporary library
and checks what a frozen build needs (see `self_test`), exiting 0 when all of it worked.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from v2c_desktop import __version__
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.paths import library_path
from v2c_desktop.core.settings import Settings, load_settings, save_settings

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI
    from v2c_desktop.core.owner import ConnectedClient, Session

    from .main_window import MainWindow

log = logging.getLogger(__name__)
APP_NAME = "v2c desktop"
CLIENT_NAME = "v2c-desktop"


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(prog="v2c-desktop", description="The v2c desktop app.")
    parser.add_argument("--library", metavar="PATH", help="the library file to open")
    parser.add_argument("--version", action="version", version=f"v2c desktop {__version__}")
    parser.add_argument(
        "--ready-file", metavar="PATH", help="write the time to PATH once the window is ready"
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window offscreen on a temporary library, then exit 0 if all worked",
    )
    return parser.parse_known_args(argv)  # the rest is for Qt (-style, -platform, ...)


def choose_library(explicit: str | None, settings: Settings) -> Path:
    """`--library`, then `V2C_LIBRARY`, then the library used last time, then the default."""
    if explicit or os.environ.get("V2C_LIBRARY"):
        return library_path(explicit)
    return library_path(settings.last_library)


async def open_core(
    path: Path,
    settings: Settings | None = None,
    *,
    on_clients_changed: Callable[[list[ConnectedClient]], None] | None = None,
) -> Session[CoreAPI]:
    """Open the library at `path` as its owner (or a client of its owner): the session whose
    `api` every pane uses."""
    from v2c_desktop.core.open import open_api

    return await open_api(
        path,
        client_name=CLIENT_NAME,
        settings=settings or load_settings(),
        on_clients_changed=on_clients_changed,
    )


def _prepare_environment(args: argparse.Namespace) -> None:
    """Offscreen for the self-test; QtWebEngine's Chromium refuses root without --no-sandbox."""
    if args.self_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags:
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --no-sandbox".strip()
    try:  # QtWebEngine must be loaded before the QApplication exists
        import PySide6.QtWebEngineWidgets  # noqa: F401
    except ImportError:
        log.info("QtWebEngine is not available: YouTube videos will open in the browser")


def _remember_library(settings: Settings, path: Path) -> Settings:
    if settings.last_library != str(path):
        settings.last_library = str(path)
        try:
            save_settings(settings)
        except OSError as exc:
            log.warning("could not remember the library location: %s", exc)
    return settings


def _say(text: str) -> None:
    sys.stderr.write(f"v2c-desktop: {text}\n")
    sys.stderr.flush()


def _on_ready(window: MainWindow, args: argparse.Namespace, started: float) -> None:
    def ready() -> None:
        _say(f"ready in {time.perf_counter() - started:.2f} s")
        if args.ready_file:
            Path(args.ready_file).write_text(f"{time.time():.6f}\n", encoding="utf-8")

    window.ready.connect(ready)


async def _session(args: argparse.Namespace, settings: Settings, started: float) -> int:
    from PySide6.QtWidgets import QMessageBox

    from .bridge import JobRunner
    from .main_window import MainWindow
    from .owner_state import OwnerState

    path = choose_library(args.library, settings)
    owner = OwnerState()
    try:
        session = await open_core(path, settings, on_clients_changed=owner.notify)
    except V2CError as error:
        box = QMessageBox(
            QMessageBox.Icon.Critical, APP_NAME, f"{error.message}\n\n{error.hint_for('app')}"
        )
        closed = asyncio.Event()
        box.finished.connect(lambda _r: closed.set())
        box.open()  # never exec(): the loop keeps running
        await closed.wait()
        return 1
    owner.attach(session)
    if not args.self_test:
        settings = _remember_library(settings, path)
    runner = JobRunner(asyncio.get_running_loop())
    window = MainWindow(session.api, runner, settings, owner=owner)
    _on_ready(window, args, started)
    closed = asyncio.Event()
    window.closing.connect(closed.set)
    window.restore_layout()  # the size and place it had last time, or one that fits
    window.show()
    window.start()
    status = 0
    try:
        if args.self_test:
            from .self_test import self_test

            status = await self_test(window, session.api)
            window.close()
        else:
            window.offer_first_run()
        await closed.wait()
    finally:
        await runner.shutdown()
        await window.aclose()
        await session.aclose()
    return status


def run(argv: list[str] | None = None) -> int:
    """Run the app until its window closes; the exit status."""
    started = time.perf_counter()
    args, qt_args = parse_args(list(sys.argv[1:] if argv is None else argv))
    _prepare_environment(args)
    import qasync
    from PySide6.QtWidgets import QApplication, QMessageBox

    from .look import follow_system
    from .main_thread_gc import MainThreadCollector

    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setQuitOnLastWindowClosed(False)  # the session ends after the core has closed
    look = follow_system(app)  # Fusion, light or dark as the system is, and when it changes
    collector = MainThreadCollector(app)  # Qt objects are never freed from a worker thread
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        settings = load_settings()
    except V2CError as error:
        QMessageBox.warning(None, APP_NAME, f"{error.message}\n\n{error.hint_for('app')}")
        settings = Settings()
    scratch: Any = None
    if args.self_test and not args.library:
        scratch = tempfile.TemporaryDirectory(prefix="v2c-self-test-")
        args.library = str(Path(scratch.name) / "self-test.duckdb")
    try:
        with loop:
            return int(loop.run_until_complete(_session(args, settings, started)))
    finally:
        look.stop()
        collector.stop()
        if scratch is not None:
            scratch.cleanup()
