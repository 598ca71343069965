"""Real processes on one library: an owner, two clients, a SIGKILL and a stale socket.

The served object is the real `Library` over a real DuckDB `LibraryStore`; each process
imports real corpus transcripts, reads, and fills collections while the others do the
same. Afterwards every process must see every other's writes; then the owner is killed
with SIGKILL and a client's next call must succeed through a newly elected owner, and a
fresh process must recover the socket file a killed owner left behind.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, corpus_path
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.owner import socket_path_for

pytestmark = [pytest.mark.corpus, pytest.mark.slow]
OPS_PER_PROCESS = 110


class Worker:
    """tests/support/owner_worker.py in its own process, driven line by line."""

    def __init__(self, name: str, library: Path, runtime: Path, files: list[Path]) -> None:
        self.name = name
        self.log = (library.parent / f"{name}.stderr").open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.owner_worker",
                "--library",
                str(library),
                "--runtime-dir",
                str(runtime),
                "--name",
                name,
                *map(str, files),
            ],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 30.0) -> dict[str, Any]:
        try:
            reply: dict[str, Any] = json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            log = Path(self.log.name).read_text()
            raise AssertionError(f"{self.name} did not answer; stderr:\n{log}") from None
        return reply

    def ask(self, command: str, timeout: float = 30.0) -> dict[str, Any]:
        self.send(command)
        return self.read(timeout)

    def quit(self) -> None:
        if self.proc.poll() is None:
            assert self.ask("quit")["event"] == "bye"
            self.proc.wait(timeout=10)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.log.close()


def _corpus_files() -> list[Path]:
    babel = corpus_path("transcripts/3blue1brown")
    pycon = corpus_path("transcripts/pycon-us-2023-whisper")
    return sorted(babel.glob("*/captions.en.srt")) + sorted(pycon.rglob("*.srt"))


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except ConnectionRefusedError:
            return False
        return True


@pytest.fixture
def runtime() -> Iterator[Path]:
    path = short_dir()
    yield path
    remove_dir(path)


def test_three_processes_share_a_library_and_survive_sigkill(
    tmp_path: Path, runtime: Path, record_property: Any
) -> None:
    files = _corpus_files()
    library = tmp_path / "library.duckdb"
    sock = socket_path_for(library, runtime)
    workers: list[Worker] = []

    def start(name: str, share: list[Path]) -> Worker:
        worker = Worker(name, library, runtime, share)
        workers.append(worker)
        return worker

    try:
        owner = start("owner", files[0::3])
        assert owner.read()["role"] == "owner"
        clients = [start("client-1", files[1::3]), start("client-2", files[2::3])]
        assert [c.read()["role"] for c in clients] == ["client", "client"]
        everyone = [owner, *clients]

        # -- soak: all three at once ----------------------------------------------------
        began = time.perf_counter()
        for worker in everyone:
            worker.send(f"run {OPS_PER_PROCESS}")
        reports = [w.read(timeout=120) for w in everyone]
        soak_seconds = time.perf_counter() - began
        operations = sum(r["ops"] for r in reports)
        errors = [e for r in reports for e in r["errors"]]
        assert errors == []
        assert operations >= 300
        imported = sorted({v for r in reports for v in r["imported"]})
        collections = sorted({c for r in reports for c in r["collections"]})
        assert len(imported) == len(files) and len(collections) >= 3 * (OPS_PER_PROCESS // 6)
        wanted = json.dumps({"videos": imported, "collections": collections})
        for worker in everyone:  # no lost write: everyone sees everyone's imports
            seen = worker.ask(f"check {wanted}")
            assert (seen["missing_videos"], seen["missing_collections"]) == ([], [])

        # -- SIGKILL the owner: the next call elects a new one ---------------------------
        owner.kill()
        assert sock.exists() and not _answers(sock)  # what SIGKILL leaves behind
        first, second = (c.ask("call") for c in clients)
        assert first["error"] is None and second["error"] is None
        assert first["videos"] == second["videos"] == len(files)
        assert {first["role"], second["role"]} == {"owner", "client"}
        assert _answers(sock)
        for worker in clients:
            seen = worker.ask(f"check {wanted}")
            assert (seen["missing_videos"], seen["missing_collections"]) == ([], [])

        # -- kill the new owner too, with nobody left: a fresh process recovers ----------
        new_owner, other = clients if first["role"] == "owner" else clients[::-1]
        other.quit()
        new_owner.kill()
        assert sock.exists() and not _answers(sock)
        fresh = start("fresh", files[:1])
        ready = fresh.read()
        assert ready["role"] == "owner"
        seen = fresh.ask(f"check {wanted}")
        assert (seen["missing_videos"], seen["missing_collections"]) == ([], [])
        fresh.quit()
        assert not sock.exists()  # a clean exit removes the socket
    finally:
        for worker in workers:
            worker.stop()

    figures = {
        "operations": operations,
        "errors": len(errors),
        "soak_seconds": round(soak_seconds, 2),
        "per_process": [r["counts"] for r in reports],
        "reelect_call_ms": first["ms"] if first["role"] == "owner" else second["ms"],
        "reconnect_call_ms": second["ms"] if first["role"] == "owner" else first["ms"],
        "fresh_owner_over_stale_socket_ms": ready["ms"],
    }
    record_property("owner_soak", figures)
    print("owner soak:", json.dumps(figures))
