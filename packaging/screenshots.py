"""Screenshots of the desktop app for the README: a real window under Xvfb, real data.

    .venv/bin/python packaging/screenshots.py [--out docs/screenshots] [--only brief ...]

Starts Xvfb (installing it and the X libraries Qt's xcb plugin needs with apt-get when it
is missing and this runs as root on Debian/Ubuntu), builds a library from the corpus
transcripts (Crash Course Psychology and a few 3Blue1Brown captions, through
`CoreAPI.add`) in a temporary home, opens the app's window on it and saves one PNG per
pane: the library with a video selected, the search pane with results, the chat pane with
an extractive answer and its citations, the settings dialog's MCP section and its model
manager, the transcript reader at a cited second (a video with nothing to play), the player
with a local recording's key moments on its scrub bar, the brief pane (building, then the
cited brief) with its Export to Obsidian dialog, a collection's menu (checking its sources for
new videos, exports) and the Export to Notion dialog.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus" / "transcripts"
CRASHCOURSE = CORPUS / "crashcourse-psychology"
THREE_BLUE = CORPUS / "3blue1brown"
THREE_BLUE_TALKS = ("2019_bayes-theorem", "2017_neural-networks", "2017_gradient-descent")
X_PACKAGES = [
    "xvfb",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-xinerama0",
    "libxcb-xinput0",
    "libxcb-cursor0",
    "libxkbcommon-x11-0",
]
SIZE = (1500, 920)
HOMUNCULUS = "youtube:fxZWtc0mYpQ"
MEMORY = ("youtube:bSycdIx-C48", "youtube:HVWbrNls-Kw")
#: What the brief reads: the two memory episodes and three that touch on memory (sleep,
#: consciousness, the introduction).
MEMORY_COLLECTION = (*MEMORY, "youtube:rMHus-0wFSo", "youtube:jReX7qKU2yc", "youtube:vo4pMVb0R6M")


def say(text: str) -> None:
    sys.stderr.write(f"screenshots: {text}\n")


# -- the X server ---------------------------------------------------------------------------
def ensure_x_packages() -> None:
    missing = [
        p for p in X_PACKAGES if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode
    ]
    if not missing:
        return
    debian = Path("/etc/debian_version").exists() and shutil.which("apt-get")
    if not (debian and os.geteuid() == 0):
        raise SystemExit(f"install these first (apt-get as root): {' '.join(missing)}")
    say(f"installing {' '.join(missing)}")
    subprocess.run(["apt-get", "update", "-qq"], check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    for number in range(90, 110):
        if not Path(f"/tmp/.X11-unix/X{number}").exists():
            break
    display = f":{number}"
    width, height = SIZE
    server = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", f"{width + 100}x{height + 100}x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("Xvfb did not start")
        time.sleep(0.05)
    return server, display


# -- the library ----------------------------------------------------------------------------
def corpus_sources(scratch: Path) -> list[str]:
    """Crash Course as it is; 3Blue1Brown captions in folders named by their titles (a bare
    `captions.en.srt` is named after its folder)."""
    sources = [str(CRASHCOURSE)]
    for name in THREE_BLUE_TALKS:
        folder = THREE_BLUE / name
        title = json.loads((folder / "meta.json").read_text())["title"]
        target = scratch / "3blue1brown" / title.replace("/", "-")
        target.mkdir(parents=True)
        shutil.copyfile(folder / "captions.en.srt", target / "captions.en.srt")
        sources.append(str(target))
    return sources


def silent_talk(scratch: Path) -> Path:
    """A Crash Course talk's captions beside a silent WAV of its length: a local recording
    the player plays (no chapters: its key moments are found in its transcript)."""
    import wave

    folder = scratch / "recording"
    folder.mkdir()
    name = "homunculus_crash_course_psychology_6"
    shutil.copyfile(CRASHCOURSE / f"{name}_fxZWtc0mYpQ.en.srt", folder / "homunculus.en.srt")
    media = folder / "homunculus.wav"
    with wave.open(str(media), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(4000)
        out.writeframes(b"\x80" * 4000 * 625)
    return media


# -- driving the window ---------------------------------------------------------------------
async def until(check: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the window")
        await asyncio.sleep(0.05)


async def settle() -> None:
    """Let layouts and paints that follow the last change run (the loop is Qt's)."""
    await asyncio.sleep(0.5)


def save(widget: object, path: Path, rect: object = None) -> None:
    """A PNG of `widget` (or of `rect` of it)."""
    pixmap = widget.grab() if rect is None else widget.grab(rect)  # type: ignore[attr-defined]
    if not pixmap.save(str(path)):
        raise SystemExit(f"could not write {path}")
    say(f"wrote {path} ({pixmap.width()}x{pixmap.height()})")


@dataclass
class Scene:
    """What every picture works with: the window, its library, where pictures go."""

    window: Any  # MainWindow (imported once Qt runs)
    api: Any  # CoreAPI
    out: Path
    scratch: Path
    videos: int
    made: list[Any] = field(default_factory=list)

    async def memory(self) -> Any:
        """The collection the brief reads, made when a picture first needs it."""
        if not self.made:
            self.made.append(await self.api.create_collection("Memory"))
            await self.api.add_to_collection(self.made[0].id, list(MEMORY_COLLECTION))
        return self.made[0]

    def clear_status(self) -> None:
        """No message left in the status bar by an earlier picture."""
        self.window.status.clearMessage()


async def library_shot(scene: Scene) -> None:
    window = scene.window
    window.library.table.select_ids([HOMUNCULUS])
    await until(lambda: window.library.details.video_id == HOMUNCULUS)
    await settle()
    save(window, scene.out / "library.png")


async def search_shot(scene: Scene) -> None:
    window = scene.window
    window.focus_search()
    window.search.filters.mode.setCurrentText("keyword")
    window.search.query.setText("memory")
    window.search.search_now()
    await until(lambda: window.search.shown_query == "memory" and window.search.cards)
    await settle()
    save(window, scene.out / "search.png")


async def chat_shot(scene: Scene) -> None:
    from PySide6.QtCore import Qt

    from v2c_desktop.ui.panes.chat.scope import ID_ROLE

    window = scene.window
    window.actions_.chat.trigger()
    pane = window.chat_pane
    await until(lambda: pane.scope.videos.count() == scene.videos)
    pane.models.select("extractive")
    for row in range(pane.scope.videos.count()):
        item = pane.scope.videos.item(row)
        if item.data(ID_ROLE) in MEMORY:
            item.setCheckState(Qt.CheckState.Checked)
    pane.question.setText("How do we store memories, and why do we forget?")
    finished: list[str] = []
    pane.answer_finished.connect(finished.append)
    pane.ask()
    await until(lambda: finished == ["done"])
    await settle()
    save(window, scene.out / "chat.png")


async def settings_mcp_shot(scene: Scene) -> None:
    dialog = scene.window.open_settings()
    dialog.show_page("mcp")
    await settle()
    save(dialog, scene.out / "settings-mcp.png")
    dialog.reject()


async def models_shot(scene: Scene) -> None:
    models = scene.window.open_model_manager()
    await settle()
    save(models, scene.out / "models.png")
    models.reject()


async def reader_shot(scene: Scene) -> None:
    """A video imported from a subtitle file alone: a cited second opens its transcript."""
    window, api = scene.window, scene.api
    subtitles_only = [v for v in await api.list_videos() if v.id.startswith("file:")]
    if subtitles_only:
        record = await api.get_video(subtitles_only[0].id)
        cited = record.transcript.segments[len(record.transcript.segments) // 3]
        window.actions_.library.trigger()
        window.seek(record.video.id, cited.start, cited.text)
        await until(window.player.showing_reader)
        await settle()
        save(window, scene.out / "reader.png")


async def player_moments_shot(scene: Scene) -> None:
    """A local recording playing: its key moments as ticks on the scrub bar."""
    from PySide6.QtCore import QPoint, QRect

    window, api = scene.window, scene.api
    talk = await api.add([str(silent_talk(scene.scratch))])
    (talk_id,) = talk.changed_ids
    window.actions_.library.trigger()
    window.seek(talk_id, 150.0)
    moments = window.player.moments
    await until(lambda: bool(moments.moments) and window.player.transport.duration() > 0)
    backend = window.player.backend
    if backend is not None:
        await until(lambda: backend.position() > 150.0)
        backend.pause()  # so the picture shows one moment
    await settle()
    dock = window.player
    top = dock.transport.mapTo(dock, QPoint(0, 0)).y() - 12  # the controls and the line
    save(dock, scene.out / "player-moments.png", QRect(0, top, dock.width(), dock.height() - top))


async def brief_shots(scene: Scene) -> None:
    """The brief pane building, then the cited brief, then Export to Obsidian after a
    re-export that met a note the user had edited (the dialog's summary, Open in Obsidian).

    The player is closed: what an earlier picture played is no part of the brief."""
    window = scene.window
    memory = await scene.memory()
    window.player.hide()
    window.actions_.brief.trigger()
    briefs = window.brief_pane
    await until(lambda: briefs.form.collection.findData(memory.id) >= 0)
    await until(lambda: "extractive" in briefs.form.models.model_ids())
    briefs.form.choose_collection(memory.id)
    briefs.form.models.select("extractive")
    briefs.form.question.setText("How are memories stored, and why do we forget?")
    await until(lambda: briefs.form.estimate is not None)
    built: list[str] = []
    briefs.build_finished.connect(built.append)
    scene.clear_status()
    briefs.form.build.click()
    await until(lambda: len(briefs.progress.stages) >= 2 or bool(built), timeout=120)
    save(window, scene.out / "brief-running.png")
    await until(lambda: bool(built), timeout=300)
    await settle()
    scene.clear_status()
    save(window, scene.out / "brief.png")
    if briefs.view.brief is None:
        raise SystemExit(f"the brief was not built: {briefs.progress.stage.text()}")
    await export_shot(scene, briefs, briefs.view.brief.id)


async def export_shot(scene: Scene, briefs: Any, brief_id: str) -> None:
    """Export to a vault at ~/Notes (HOME is the scratch home), edit the brief's note where
    v2c writes, export again: the look finds the conflict, the write keeps the user's note."""
    vault = Path.home() / "Notes"
    vault.mkdir()
    first = briefs.export_brief(brief_id)
    first.vault.setText("~/Notes")
    done: list[Any] = []
    first.exported.connect(done.append)
    first.export.click()
    await until(lambda: bool(done))
    first.reject()
    (note,) = [n for n in done[0].created if n.kind == "brief"]
    path = vault / note.path
    lines = path.read_text(encoding="utf-8").split("\n")
    owned = next(i for i, line in enumerate(lines) if line.startswith("%% v2c:start"))
    lines.insert(owned + 1, "My note: compare with the sleep episode.")
    path.write_text("\n".join(lines), encoding="utf-8")
    again = briefs.export_brief(brief_id)
    again.export.click()  # the look: what would change, the conflict
    await until(lambda: again.dry is not None)
    written: list[Any] = []
    again.exported.connect(written.append)
    again.export.click()  # "Write the notes"
    await until(lambda: bool(written) and again.open_obsidian.isEnabled())
    await settle()
    save(again, scene.out / "brief-export.png")
    again.reject()


async def collection_menu_shot(scene: Scene) -> None:
    """A collection's menu: check its sources for new videos, on a schedule, export."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication, QMenu

    window = scene.window
    memory = await scene.memory()
    window.actions_.library.trigger()
    sidebar = window.library.sidebar
    await until(lambda: sidebar.collection(memory.id) is not None)
    sidebar.select(memory.id)
    await settle()
    row = sidebar.list.visualItemRect(sidebar.list.currentItem()).center()
    sidebar.list.customContextMenuRequested.emit(row)
    await settle()
    corner = window.library.mapToGlobal(QPoint(0, 0))
    screen = window.screen().grabWindow(0, corner.x(), corner.y(), 520, 300)
    target = scene.out / "collection-menu.png"
    if not screen.save(str(target)):
        raise SystemExit(f"could not write {target}")
    say(f"wrote {target} ({screen.width()}x{screen.height()})")
    for popup in QApplication.topLevelWidgets():
        if isinstance(popup, QMenu) and popup.isVisible():
            popup.close()


async def notion_export_shot(scene: Scene) -> None:
    notion = scene.window.export_to_notion([], (await scene.memory()).id)  # before exporting
    await settle()
    save(notion, scene.out / "notion-export.png")
    notion.reject()


SHOTS: dict[str, Callable[[Scene], Awaitable[None]]] = {
    "library": library_shot,
    "search": search_shot,
    "chat": chat_shot,
    "settings-mcp": settings_mcp_shot,
    "models": models_shot,
    "reader": reader_shot,
    "player-moments": player_moments_shot,
    "brief": brief_shots,  # brief-running, brief and brief-export
    "collection-menu": collection_menu_shot,
    "notion-export": notion_export_shot,
}


async def scenario(out: Path, scratch: Path, only: Sequence[str] = ()) -> None:
    """Open the window on a new library and take the pictures (`only`: those named)."""
    from v2c_desktop.core.settings import Settings
    from v2c_desktop.ui.app import open_core
    from v2c_desktop.ui.bridge import JobRunner
    from v2c_desktop.ui.main_window import MainWindow
    from v2c_desktop.ui.owner_state import OwnerState

    settings = Settings()
    owner = OwnerState()
    session = await open_core(scratch / "library.duckdb", settings, on_clients_changed=owner.notify)
    owner.attach(session)
    api = session.api
    result = await api.add(corpus_sources(scratch))
    say(f"library: {len(result.changed_ids)} videos")
    runner = JobRunner(asyncio.get_running_loop())
    window = MainWindow(api, runner, settings, owner=owner)
    window.resize(*SIZE)
    window.show()
    window.start()
    scene = Scene(window, api, out, scratch, len(result.changed_ids))
    try:
        await until(lambda: window.library.table.model.rowCount() == scene.videos)
        for name, shot in SHOTS.items():
            if not only or name in only:
                await shot(scene)
    finally:
        window.close()
        await runner.shutdown()
        await window.aclose()
        await session.aclose()


def run_app(out: Path, only: Sequence[str] = ()) -> int:
    from v2c_desktop.ui import app as app_module

    args, _ = app_module.parse_args([])
    app_module._prepare_environment(args)
    import qasync
    from PySide6.QtWidgets import QApplication

    qt = QApplication([sys.argv[0]])
    qt.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(qt)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="v2c-screens-") as tmp, loop:
        loop.run_until_complete(scenario(out, Path(tmp), only))
    qt.shutdown()  # before Xvfb stops: an application left for exit lost its X connection
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=list(SHOTS),
        default=(),
        help="take only these pictures (brief: brief-running, brief and brief-export)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    ensure_x_packages()
    server, display = start_xvfb()
    home = tempfile.mkdtemp(prefix="v2c-screens-home-")
    # HOME too: the export picture's vault reads ~/Notes, not a temporary path
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", V2C_HOME=home, HOME=home)
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
    state = Path(home) / "config"
    state.mkdir()
    (state / "desktop.json").write_text('{"first_run": "extractive"}')  # no first-run dialog
    try:
        return run_app(args.out.resolve(), args.only)
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
