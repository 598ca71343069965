"""Desktop app start-up: seconds from launch to a usable window, and idle memory, on a
library of 500 videos.

The library is built once (and reused) in the temp folder: the Crash Course Psychology
and 3Blue1Brown transcripts of ../shared/corpus are parsed once, then saved 500 times as
VideoRecords with distinct ids through `LibraryStore.save_video`, with no search index
(the app builds the keyword index lazily, at the first search; nothing is embedded).

Each run starts `v2c-desktop --library L --ready-file F` as a subprocess with
QT_QPA_PLATFORM=offscreen, a fresh V2C_HOME and the first-run question already answered
(a returning user). The app writes the wall-clock time to F once the window shows the
library's videos and its status bar; start-up is that time minus the moment just before
the subprocess was started. RSS is read from /proc after RSS_AFTER_S more seconds of idle
(no chat model is loaded), for the app and any child processes.

Targets: <= 1.5 s to a usable window, <= 400 MB RSS.
Run: .venv/bin/python bench/startup_bench.py [--runs 5] [--videos 500]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.library import Library  # noqa: E402
from v2c_desktop.core.store import open_library  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts"
SOURCES = [CORPUS / "crashcourse-psychology", CORPUS / "3blue1brown"]
APP = REPO / ".venv" / "bin" / "v2c-desktop"
READY_TIMEOUT_S = 60.0
RSS_AFTER_S = 3.0
TARGET_S, TARGET_MB = 1.5, 400


async def _parse_sources(scratch: Path) -> list:
    """The corpus transcripts as VideoRecords, parsed by the real importer."""
    store = open_library(scratch)
    library = Library(store)
    try:
        result = await library.add([str(s) for s in SOURCES])
        if result.count("failed"):
            raise SystemExit(f"import failed: {result.to_dict()}")
        return [store.get_video(v.id) for v in store.list_videos()]
    finally:
        await library.aclose()
        store.close()


def build_library(path: Path, count: int) -> None:
    """`count` videos replicated from the corpus, each with its own id and title."""
    if path.exists():
        store = open_library(path)
        try:
            if len(store.list_videos()) == count:
                return
        finally:
            store.close()
        path.unlink()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        records = asyncio.run(_parse_sources(Path(tmp) / "scratch.duckdb"))
    store = open_library(path)
    try:
        for i in range(count):
            record = records[i % len(records)]
            copy = i // len(records)
            video = dataclasses.replace(
                record.video,
                id=f"{record.video.id}~{copy}" if copy else record.video.id,
                title=f"{record.video.title} (copy {copy})" if copy else record.video.title,
            )
            store.save_video(dataclasses.replace(record, video=video))
    finally:
        store.close()
    took = time.perf_counter() - started
    print(f"built {path} ({count} videos from {len(records)} transcripts) in {took:.1f} s")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = (task / "children").read_text().split()
        for kid in map(int, kids):
            found += [kid, *children(kid)]
    return found


def one_run(library: Path) -> tuple[float, float, float]:
    """(seconds to ready, app RSS MB, children RSS MB)."""
    with tempfile.TemporaryDirectory() as home:
        config = Path(home) / "config"
        config.mkdir()
        (config / "desktop.json").write_text(json.dumps({"first_run": "extractive"}))
        env = dict(os.environ, V2C_HOME=home, QT_QPA_PLATFORM="offscreen")
        ready = Path(home) / "ready"
        started = time.time()
        app = subprocess.Popen(
            [str(APP), "--library", str(library), "--ready-file", str(ready)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not (ready.exists() and ready.read_text().strip()):
                if app.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the app did not get ready: {app.stderr.read()}")
                time.sleep(0.01)
            seconds = float(ready.read_text()) - started
            time.sleep(RSS_AFTER_S)
            own = rss_mb(app.pid)
            kids = sum(rss_mb(k) for k in children(app.pid))
            return seconds, own, kids
        finally:
            app.send_signal(signal.SIGTERM)
            app.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--videos", type=int, default=500)
    args = parser.parse_args()
    if not (home := Path(os.environ.get("V2C_HOME", ""))).is_dir():
        os.environ["V2C_HOME"] = tempfile.mkdtemp(prefix="v2c-bench-home-")
    del home
    library = Path(tempfile.gettempdir()) / "v2c-startup-bench" / f"library-{args.videos}.duckdb"
    library.parent.mkdir(exist_ok=True)
    build_library(library, args.videos)
    runs = []
    for i in range(args.runs):
        seconds, own, kids = one_run(library)
        runs.append((seconds, own, kids))
        print(f"run {i + 1}: ready in {seconds:.2f} s, RSS {own:.0f} MB (+{kids:.0f} MB children)")
    times = [r[0] for r in runs]
    rss = [r[1] + r[2] for r in runs]
    median_s, median_mb = statistics.median(times), statistics.median(rss)
    print(
        f"{args.videos} videos: median {median_s:.2f} s to a usable window "
        f"(target <= {TARGET_S} s: {'met' if median_s <= TARGET_S else 'MISSED'}), "
        f"median idle RSS {median_mb:.0f} MB "
        f"(target <= {TARGET_MB} MB: {'met' if median_mb <= TARGET_MB else 'MISSED'})"
    )


if __name__ == "__main__":
    main()
