"""A dropped folder is walked off the event loop, with a count the faces show, and stops
when its import is cancelled (a home folder or `/usr` must not keep a thread busy)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from v2c_desktop.core.importers.folder_scan import ScanState, ScanStopped, scan_files, walk_files
from v2c_desktop.core.importers.inputs import plan_inputs
from v2c_desktop.core.progress import Progress

SRT = "1\n00:00:01,000 --> 00:00:02,000\nHello.\n"


async def no_web(url: str) -> list[str]:
    raise AssertionError(f"no web input here: {url}")


def tree(root: Path, folders: int, files_each: int) -> int:
    """`folders` nested folders of `files_each` plain files; returns how many files."""
    for f in range(folders):
        folder = root / f"part{f // 10}" / f"sub{f}"
        folder.mkdir(parents=True)
        for i in range(files_each):
            (folder / f"note{i}.txt").write_bytes(b"")
    return folders * files_each


def test_the_walk_finds_regular_visible_files_and_never_follows_a_link_loop(
    tmp_path: Path,
) -> None:
    count = tree(tmp_path, 12, 5)
    (tmp_path / ".hidden.srt").write_text(SRT)
    (tmp_path / "part0" / "loop").symlink_to(tmp_path, target_is_directory=True)
    found = walk_files(tmp_path)
    assert len(found) == count and len(set(found)) == count
    assert all(p.name.startswith("note") for p in found)


def test_a_folder_scan_reports_its_count_and_finds_the_videos(tmp_path: Path) -> None:
    count = tree(tmp_path, 20, 10)
    (tmp_path / "part1" / "talk.en.srt").write_text(SRT)
    events: list[Progress] = []
    items, failures = asyncio.run(plan_inputs([str(tmp_path)], no_web, events.append))
    assert not failures and [i.local.base for i in items if i.local] == ["talk"]
    scans = [e for e in events if e.stage == "scan"]
    assert scans and scans[-1].done == count + 1  # the last report is the whole walk
    assert f"{count + 1:,} files" in scans[-1].message and tmp_path.name in scans[-1].message
    assert [e.done for e in scans] == sorted(e.done for e in scans)


class GatedStop(threading.Event):
    """A stop flag whose 50th look waits for the test: the walk is then surely mid-tree."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0
        self.reached = threading.Event()
        self.gate = threading.Event()

    def is_set(self) -> bool:
        self.looks += 1
        if self.looks == 50:
            self.reached.set()
            self.gate.wait(30)
        return super().is_set()


def test_cancelling_the_import_stops_the_walking_thread(tmp_path: Path) -> None:
    count = tree(tmp_path, 30, 10)
    stop = GatedStop()
    state = ScanState(stop=stop)

    async def go() -> None:
        task = asyncio.ensure_future(scan_files(tmp_path, state=state))
        while not stop.reached.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0)  # the scan sees its cancel and raises the flag ...
        assert stop.is_set()
        stop.gate.set()  # ... then the walk may look again, and stops
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert state.files < count  # it stopped mid-tree, not after walking all of it
    with pytest.raises(ScanStopped):
        walk_files(tmp_path, state)  # a raised flag stops any walk at its first entry
