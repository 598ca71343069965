"""Starting the desktop app: Qt + qasync, the library, the window, and a clean shutdown.

`open_core` is the one place that opens a library; when the owner session arrives (the
app then talks to the process that owns the library), only that function changes.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from v2c_desktop import __version__
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.paths import library_path
from v2c_desktop.core.settings import Settings, load_settings, save_settings

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

    from .bridge import JobRunner
    from .main_window import MainWindow

log = logging.getLogger(__name__)
APP_NAME = "v2c desktop"


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(prog="v2c-desktop", description="The v2c desktop app.")
    parser.add_argument("--library", metavar="PATH", help="the library file to open")
    parser.add_argument("--version", action="version", version=f"v2c desktop {__version__}")
    return parser.parse_known_args(argv)  # the rest is for Qt (-style, -platform, ...)


def choose_library(explicit: str | None, settings: Settings) -> Path:
    """`--library`, then `V2C_LIBRARY`, then the library used last time, then the default."""
    if explicit or os.environ.get("V2C_LIBRARY"):
        return library_path(explicit)
    return library_path(settings.last_library)


def open_core(path: Path, settings: Settings | None = None) -> CoreAPI:
    """Open the library at `path` as its owner and return the API every pane uses."""
    from v2c_desktop.core.api import CoreAPI
    from v2c_desktop.core.services import Services
    from v2c_desktop.core.sources.web.settings import WebSettings
    from v2c_desktop.core.sources.web_access import WebAccess

    settings = settings or load_settings()
    imports = settings.imports
    web = WebAccess.default(
        WebSettings(
            cookies_from_browser=imports.cookies_from_browser,
            proxy=imports.proxy,
            languages=tuple(imports.languages),
        )
    )
    return CoreAPI(Services.open(path, settings=settings, web=web))


def _prepare_environment() -> None:
    """QtWebEngine's Chromium refuses to run as root without its sandbox switched off."""
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


async def _session(window: MainWindow, runner: JobRunner, api: CoreAPI) -> int:
    closed = asyncio.Event()
    window.closing.connect(closed.set)
    window.show()
    window.start()
    await closed.wait()
    await runner.shutdown()
    await api.aclose()
    return 0


def run(argv: list[str] | None = None) -> int:
    """Run the app until its window closes; the exit status."""
    args, qt_args = parse_args(list(sys.argv[1:] if argv is None else argv))
    _prepare_environment()
    import qasync
    from PySide6.QtWidgets import QApplication, QMessageBox

    from .bridge import JobRunner
    from .main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setQuitOnLastWindowClosed(False)  # the session ends after the core has closed
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        settings = load_settings()
    except V2CError as error:
        QMessageBox.warning(None, APP_NAME, f"{error.message}\n\n{error.hint}")
        settings = Settings()
    path = choose_library(args.library, settings)
    try:
        api = open_core(path, settings)
    except V2CError as error:
        QMessageBox.critical(None, APP_NAME, f"{error.message}\n\n{error.hint}")
        return 1
    settings = _remember_library(settings, path)
    runner = JobRunner(loop)
    window = MainWindow(api, runner, settings)
    with loop:
        return int(loop.run_until_complete(_session(window, runner, api)))
