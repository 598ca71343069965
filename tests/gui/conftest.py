"""GUI test set-up: offscreen Qt, a qasync loop per test, a real library, Qt warnings fail.

Qt is told to run offscreen (and Chromium without its sandbox, as these machines run tests
as root) before anything imports Qt widgets. Every test in this folder fails on a Qt
warning, except the few a headless machine always prints (no audio server, no GPU); they
are listed in `HEADLESS_NOISE` with the reason for each.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = "--no-sandbox --disable-gpu"

import asyncio
import gc
import shutil
import threading
import wave
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import qasync
from PySide6 import QtWebEngineWidgets  # noqa: F401  (before the QApplication exists)
from PySide6.QtCore import QCoreApplication, QEvent, QUrl
from pytestqt.qtbot import QtBot

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.library import Library
from v2c_desktop.core.search.engine import SearchEngine
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.core.store import open_library
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_thread_gc import MainThreadCollector
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.player.backend import PlayerBackend
from v2c_desktop.ui.player.choice import Kind
from v2c_desktop.ui.player.dock import PlayerDock
from v2c_desktop.ui.player.local_backend import LocalBackend
from v2c_desktop.ui.player.youtube_backend import YouTubeBackend

T = TypeVar("T")
GUI_DIR = Path(__file__).resolve().parent

# Qt warnings a headless test machine prints whatever the app does; anything else fails.
HEADLESS_NOISE = (
    r"^Couldn't (load|resolve) .+ (library|symbols)$",  # QtMultimedia probing pipewire/VA-API
    r"^PulseAudioService: pa_context_connect\(\) failed",  # no sound server
    r"^No audio device detected",  # ditto, when a test plays audio
    r"^QRhiGles2: Failed to create",  # offscreen has no OpenGL (QtWebEngine, QVideoWidget)
    r"^Failed to create RHI",
    r"^GPUInfo not initialized",  # QtWebEngine with --disable-gpu
    r"^This plugin does not support propagateSizeHints\(\)",  # the offscreen platform plugin
    r"^This plugin does not support raise\(\)$",  # ditto, a video shown again after the reader
)


@pytest.fixture(scope="session", autouse=True)
def gui_thread_gc(qapp: Any) -> Iterator[None]:
    """Collect cycles only in the GUI thread, as the app does (`ui/main_thread_gc.py`)."""
    collector = MainThreadCollector(qapp)
    yield
    collector.stop()


@pytest.fixture(autouse=True)
def destroy_closed_widgets() -> Iterator[None]:
    """Destroy what a test closed before the next test starts.

    pytest-qt closes each test's widgets and calls `deleteLater`, but `processEvents` never
    runs deferred deletions, so a closed window (with its media player, whose FFmpeg
    timers keep firing) lived on into later tests until a stray timer fired on a half-freed
    object and crashed the run far from the test that left it. This fixture is torn down
    after pytest-qt has closed the widgets.
    """
    yield
    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()  # here, in the GUI thread: not later from a worker thread's allocation
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Qt warnings fail every test in this folder (qutebrowser's qt_log_level_fail)."""
    for item in items:
        if GUI_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*HEADLESS_NOISE))


# -- the library ----------------------------------------------------------------------------
CRASHCOURSE = "transcripts/crashcourse-psychology"


def make_core(path: Path) -> CoreAPI:
    """The real core over a library file, with the real (lazily loaded) ONNX embedder.

    Imports skip the embedding step, so the tests stay fast; a search embeds only when a
    test asks for vectors (`index_pending`) or searches in hybrid/vector mode.
    """
    return CoreAPI(Services.open(path, settings=Settings(), index_on_import=False))


def _build_in_thread(path: Path, sources: list[str]) -> None:
    """Import and keyword-index `sources` into a new library file, off any running loop."""

    async def build() -> None:
        store = open_library(path)
        library = Library(store)
        engine = SearchEngine(store, None)
        try:
            result = await library.add(sources)
            assert result.count("failed") == 0, result.to_dict()
            await engine.index_pending(vectors=False)
        finally:
            await engine.aclose()
            await library.aclose()
            store.close()

    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(build())
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


@pytest.fixture(scope="session")
def crashcourse_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built library of the 10 Crash Course Psychology videos, copied by each test."""
    from tests.conftest import corpus_path

    folder = corpus_path(CRASHCOURSE)
    path = tmp_path_factory.mktemp("crashcourse") / "lib.duckdb"
    _build_in_thread(path, [str(folder)])
    return path


def write_media(folder: Path, name: str = "talk", seconds: int = 120) -> tuple[Path, Path]:
    """A real (silent) WAV file with an SRT beside it: a local video QtMultimedia can play."""
    folder.mkdir(parents=True, exist_ok=True)
    media = folder / f"{name}.wav"
    with wave.open(str(media), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(4000)
        out.writeframes(b"\x80" * 4000 * seconds)
    lines = [
        (5, "Welcome to a short talk about plants."),
        (30, "Chlorophyll absorbs red and blue light."),
        (62.5, "Photosynthesis turns that light into sugar."),
        (95, "Thank you for listening."),
    ]
    cues = []
    for number, (start, text) in enumerate(lines, 1):
        cues.append(f"{number}\n{_srt(start)} --> {_srt(start + 10)}\n{text}\n")
    srt = folder / f"{name}.en.srt"
    srt.write_text("\n".join(cues), encoding="utf-8")
    return media, srt


def _srt(seconds: float) -> str:
    whole = int(seconds)
    millis = round((seconds - whole) * 1000)
    return f"00:{whole // 60:02d}:{whole % 60:02d},{millis:03d}"


# -- the loop, the runner, the window -------------------------------------------------------
@pytest.fixture
def qloop(qapp: Any, qtbot: QtBot) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop that counts as running while pytest-qt spins the Qt event loop."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    problems: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: problems.append(context))
    yield loop
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    qtbot.waitUntil(lambda: all(t.done() for t in tasks), timeout=10000)
    # not loop.stop(): it calls QApplication.exit(), which makes every later nested Qt
    # event loop (qtbot.waitUntil's) return at once, so the next test would never run tasks
    loop._QEventLoop__is_running = False
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)
    assert not problems, f"unhandled errors in asyncio tasks: {problems}"


def wait_for(qtbot: QtBot, awaitable: Awaitable[T], timeout: int = 30000) -> T:
    """Run a coroutine on the qasync loop and wait (by spinning Qt) for its result."""
    future = asyncio.ensure_future(awaitable)
    qtbot.waitUntil(future.done, timeout=timeout)
    return future.result()


@pytest.fixture
def runner(qloop: asyncio.AbstractEventLoop, qtbot: QtBot) -> Iterator[JobRunner]:
    jobs = JobRunner(qloop)
    yield jobs
    wait_for(qtbot, jobs.shutdown())


def _open_core(qtbot: QtBot, path: Path) -> Iterator[CoreAPI]:
    api = make_core(path)
    yield api
    pending = [t for t in asyncio.all_tasks() if not t.done()]  # jobs still using the core
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10000)
    wait_for(qtbot, api.aclose())


@pytest.fixture
def core(tmp_path: Path, qloop: asyncio.AbstractEventLoop, qtbot: QtBot) -> Iterator[CoreAPI]:
    """An empty library."""
    yield from _open_core(qtbot, tmp_path / "lib.duckdb")


@pytest.fixture
def crashcourse(
    crashcourse_file: Path, tmp_path: Path, qloop: asyncio.AbstractEventLoop, qtbot: QtBot
) -> Iterator[CoreAPI]:
    """A library holding the 10 Crash Course Psychology videos (keyword-indexed)."""
    path = tmp_path / "lib.duckdb"
    shutil.copyfile(crashcourse_file, path)
    yield from _open_core(qtbot, path)


@pytest.fixture
def opened_urls() -> list[QUrl]:
    """What the app asked the system browser to open (nothing is really opened)."""
    return []


def offline_backend(kind: Kind) -> PlayerBackend:
    """YouTube without the network (the test provides a stub IFrame API), real local media."""
    if kind == "youtube":
        return YouTubeBackend(allow_remote=False, load_api=False)
    return LocalBackend()


@pytest.fixture
def make_window(
    qtbot: QtBot, runner: JobRunner, opened_urls: list[QUrl]
) -> Callable[[CoreAPI], MainWindow]:
    def make(api: CoreAPI) -> MainWindow:
        def open_url(url: QUrl) -> bool:
            opened_urls.append(url)
            return True

        player = PlayerDock(
            runner, api.get_video, backend_factory=offline_backend, open_url=open_url
        )
        window = MainWindow(api, runner, Settings(), player=player)
        qtbot.addWidget(window)
        window.show()
        window.start()
        return window

    return make
