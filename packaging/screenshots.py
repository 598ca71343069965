"""Screenshots of the desktop app for the README: a real window under Xvfb, real data.

    .venv/bin/python packaging/screenshots.py [--out docs/screenshots]

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
from pathlib import Path

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


async def scenario(out: Path, scratch: Path) -> None:
    from PySide6.QtCore import QPoint, QRect, Qt
    from PySide6.QtWidgets import QApplication, QMenu

    from v2c_desktop.core.settings import Settings
    from v2c_desktop.ui.app import open_core
    from v2c_desktop.ui.bridge import JobRunner
    from v2c_desktop.ui.main_window import MainWindow
    from v2c_desktop.ui.owner_state import OwnerState
    from v2c_desktop.ui.panes.chat.scope import ID_ROLE

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
    try:
        await until(lambda: window.library.table.model.rowCount() == len(result.changed_ids))
        window.library.table.select_ids([HOMUNCULUS])
        await until(lambda: window.library.details.video_id == HOMUNCULUS)
        await settle()
        save(window, out / "library.png")

        window.focus_search()
        window.search.filters.mode.setCurrentText("keyword")
        window.search.query.setText("memory")
        window.search.search_now()
        await until(lambda: window.search.shown_query == "memory" and window.search.cards)
        await settle()
        save(window, out / "search.png")

        window.actions_.chat.trigger()
        pane = window.chat_pane
        await until(lambda: pane.scope.videos.count() == len(result.changed_ids))
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
        save(window, out / "chat.png")

        dialog = window.open_settings()
        dialog.show_page("mcp")
        await settle()
        save(dialog, out / "settings-mcp.png")
        dialog.reject()

        models = window.open_model_manager()
        await settle()
        save(models, out / "models.png")
        models.reject()

        # a video imported from a subtitle file alone: a cited second opens its transcript
        subtitles_only = [v for v in await api.list_videos() if v.id.startswith("file:")]
        if subtitles_only:
            record = await api.get_video(subtitles_only[0].id)
            cited = record.transcript.segments[len(record.transcript.segments) // 3]
            window.actions_.library.trigger()
            window.seek(record.video.id, cited.start, cited.text)
            await until(window.player.showing_reader)
            await settle()
            save(window, out / "reader.png")

        # a local recording playing: its key moments as ticks on the scrub bar
        talk = await api.add([str(silent_talk(scratch))])
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
        save(dock, out / "player-moments.png", QRect(0, top, dock.width(), dock.height() - top))

        memory = await api.create_collection("Memory")
        await api.add_to_collection(memory.id, sorted(MEMORY))
        window.actions_.brief.trigger()
        briefs = window.brief_pane
        await until(lambda: briefs.form.collection.count() == 1)
        await until(lambda: "extractive" in briefs.form.models.model_ids())
        briefs.form.choose_collection(memory.id)
        briefs.form.models.select("extractive")
        briefs.form.question.setText("How are memories stored, and why do we forget?")
        await until(lambda: briefs.form.estimate is not None)
        built: list[str] = []
        briefs.build_finished.connect(built.append)
        briefs.form.build.click()
        await until(lambda: len(briefs.progress.stages) >= 2 or bool(built), timeout=120)
        save(window, out / "brief-running.png")
        await until(lambda: bool(built), timeout=300)
        await settle()
        save(window, out / "brief.png")
        if briefs.view.brief is not None:
            export = briefs.export_brief(briefs.view.brief.id)
            export.vault.setText(str(scratch / "Obsidian vault"))
            await settle()
            save(export, out / "brief-export.png")
            export.reject()

        # a collection's menu: check its sources for new videos, on a schedule, export
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
        if not screen.save(str(out / "collection-menu.png")):
            raise SystemExit(f"could not write {out / 'collection-menu.png'}")
        say(f"wrote {out / 'collection-menu.png'} ({screen.width()}x{screen.height()})")
        for popup in QApplication.topLevelWidgets():
            if isinstance(popup, QMenu) and popup.isVisible():
                popup.close()

        notion = window.export_to_notion([], memory.id)  # what it asks, before any export
        await settle()
        save(notion, out / "notion-export.png")
        notion.reject()
    finally:
        window.close()
        await runner.shutdown()
        await window.aclose()
        await session.aclose()


def run_app(out: Path) -> int:
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
        loop.run_until_complete(scenario(out, Path(tmp)))
    qt.shutdown()  # before Xvfb stops: an application left for exit lost its X connection
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    ensure_x_packages()
    server, display = start_xvfb()
    home = tempfile.mkdtemp(prefix="v2c-screens-home-")
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", V2C_HOME=home)
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
    state = Path(home) / "config"
    state.mkdir()
    (state / "desktop.json").write_text('{"first_run": "extractive"}')  # no first-run dialog
    try:
        return run_app(args.out.resolve())
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
