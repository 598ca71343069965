"""One library, shared: an owner, two `v2c mcp` servers and an importer working at once.

A plain v2c owner holds the library; two MCP servers (each driven by its own official MCP
client session) and an importer process use it through the owner while all of them read
and write: searches, metadata, transcript pages, collections created and filled, and imports
of different corpus files given as file paths to tools and to the importer. Afterwards no
call may have failed (no lock error), no write may be lost, and every process must see the
others' imports. Then the owner is killed with SIGKILL, and the next tool call must succeed
through a newly elected owner.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, corpus_path
from tests.mcp.harness import McpProcess, allow_agents, build_library, server_env, text_of
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.ids import file_video_id

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

OPS_PER_CLIENT = 260
KINDS = ("search", "metadata", "page", "collections", "create", "member", "import", "page")
QUERIES = ("memory", "neural network", '"proof of work"', "attention -magic", "sleep dreams")
CRASH = "transcripts/crashcourse-psychology"
BLUE = "transcripts/3blue1brown"


def v2c(library: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """One `v2c --library LIBRARY ARGS...` command as its own process, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "v2c_desktop.cli.main", "--library", str(library), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


class Owner:
    """tests/support/library_session.py as the library's owner."""

    def __init__(self, library: Path, env: dict[str, str]) -> None:
        self.log = (library.parent / "owner.stderr").open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.library_session",
                "owner",
                "--library",
                str(library),
            ],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        ready = self.read()
        assert ready["role"] == "owner", ready

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, Path(self.log.name).read_text()
        reply: dict[str, Any] = json.loads(line)
        return reply

    def count(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        return self.read()


@dataclass
class Driver:
    """One MCP client session doing a mix of reads and writes; what it did and expects."""

    name: str
    server: McpProcess
    files: list[str]
    known: list[str]
    counts: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    created: dict[str, set[str]] = field(default_factory=dict)
    imported: set[str] = field(default_factory=set)

    def run(self, n: int) -> None:
        rng = random.Random(self.name)
        cursor: str | None = None
        page_video = self.known[0]
        for i in range(n):
            kind = KINDS[i % len(KINDS)]
            args: dict[str, Any]
            if kind == "search":
                tool, args = "search_transcript", {"query": QUERIES[i % len(QUERIES)], "limit": 5}
            elif kind == "metadata":
                tool, args = "get_metadata", {"url": rng.choice(self.known)}
            elif kind == "page":
                if cursor is None:
                    page_video = rng.choice(self.known)
                tool = "get_transcript"
                args = {
                    "url": page_video,
                    "maxTokens": 800,
                    **({"cursor": cursor} if cursor else {}),
                }
            elif kind == "collections":
                tool, args = "list_collections", {}
            elif kind == "create":
                tool, args = "create_collection", {"name": f"{self.name} soak {i}"}
            elif self.created:
                target = list(self.created)[-1]
                own = self.files[self.counts["import"] % len(self.files)]
                pick = rng.choice(self.known) if kind == "member" else own
                tool, args = "add_to_collection", {"collection": target, "urls": [pick]}
            else:
                continue
            result = self.server.call(tool, args)
            self.counts[kind] += 1
            if result.is_error:
                self.errors.append(f"{tool} {args}: {text_of(result)[:300]}")
                continue
            self._note(kind, args, text_of(result))
            if kind == "page":
                last = text_of(result).rstrip().splitlines()[-1]
                cursor = (
                    last.split("next_cursor: ")[1].rstrip("]") if "next_cursor" in last else None
                )

    def _note(self, kind: str, args: dict[str, Any], text: str) -> None:
        if kind == "create":
            self.created[json.loads(text)["collection"]["id"]] = set()
        elif kind in ("member", "import"):
            summary = json.loads(text)["summary"]
            if summary["failed"]:
                self.errors.append(f"add_to_collection {args}: {summary['failed']}")
            ids = {a["id"] for a in summary["added"]} | {s["id"] for s in summary["skipped"]}
            self.created[args["collection"]] |= ids
            if kind == "import":
                self.imported |= ids


def _outcomes(out: str) -> list[dict[str, Any]]:
    """`v2c add --json`'s per-file outcomes (its one JSON document; anything else fails)."""
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


def _call_ms(server: McpProcess, tool: str, args: dict[str, Any]) -> tuple[float, str]:
    started = time.perf_counter()
    result = server.call(tool, args)
    assert not result.is_error, text_of(result)
    return (time.perf_counter() - started) * 1000, text_of(result)


def test_owner_two_mcp_servers_and_an_importer_share_one_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blue = sorted(str(p) for p in corpus_path(BLUE).glob("*/captions.en.srt"))
    assert len(blue) >= 15
    runtime = short_dir()
    home, library = tmp_path / "home", tmp_path / "library.duckdb"
    env = server_env(home, runtime)
    monkeypatch.setenv("V2C_HOME", str(home))  # the build, like the processes, uses this home
    build_library(library, [str(corpus_path(CRASH)), *blue[:3]])
    allow_agents(home, [corpus_path(BLUE)])  # the agents import these files (issue 22)
    known = [
        "youtube:" + json.loads(p.read_text())["id"]
        for p in sorted(corpus_path(CRASH).glob("*.info.json"))
    ] + [str(file_video_id(Path(p))) for p in blue[:3]]
    a_files, b_files, add_files = blue[3:7], blue[7:11], blue[11:15]
    owner = Owner(library, env)
    clients: list[McpProcess] = []
    add_proc: subprocess.Popen[str] | None = None
    try:
        clients = [McpProcess(library, env, name=n) for n in ("mcp-a", "mcp-b")]
        drivers = [
            Driver("alpha", clients[0], a_files, list(known)),
            Driver("beta", clients[1], b_files, list(known)),
        ]
        # `v2c add` itself, through the owner: a refusal here is the regression to catch
        sample = v2c(library, env, "add", "--no-index", str(REPO / "resources" / "samples"))
        assert sample.returncode == 0, sample.stderr
        adder = [
            sys.executable,
            "-m",
            "v2c_desktop.cli.main",
            "--library",
            str(library),
            "add",
            "--json",
            *add_files,
        ]
        started = time.perf_counter()
        add_proc = subprocess.Popen(
            adder,
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=(tmp_path / "add.stderr").open("w"),
            text=True,
        )
        threads = [threading.Thread(target=d.run, args=(OPS_PER_CLIENT,)) for d in drivers]
        for thread in threads:
            thread.start()
        add_out, _ = add_proc.communicate(timeout=120)
        for thread in threads:
            thread.join(timeout=180)
        seconds = time.perf_counter() - started
        add_failed = [o for o in _outcomes(add_out) if o.get("status") == "failed"] + (
            [] if add_proc.returncode == 0 else [{"returncode": add_proc.returncode}]
        )
        errors = [e for d in drivers for e in d.errors] + [f"add: {f}" for f in add_failed]
        ops = sum(sum(d.counts.values()) for d in drivers) + len(add_files)

        # every process sees every other's writes
        imports = {str(file_video_id(Path(p))) for p in a_files + b_files + add_files}
        for driver, other in ((drivers[0], drivers[1]), (drivers[1], drivers[0])):
            assert driver.imported >= {str(file_video_id(Path(p))) for p in driver.files}
            listed = json.loads(other.server.text("list_collections"))["collections"]
            names = {c["id"] for c in listed}
            assert set(driver.created) <= names, "a created collection was lost"
            for cid, members in driver.created.items():
                view = json.loads(other.server.text("get_collection", {"collection": cid}))
                assert {v["id"] for v in view["videos"]} == members, f"lost members of {cid}"
            for vid in sorted(imports):
                assert not other.server.call("get_metadata", {"url": vid}).is_error, (vid, add_out)
        held = owner.count()
        assert imports <= set(held["videos"]), "the owner does not hold every import"
        created_names = {f"{d.name} soak" for d in drivers}
        assert sum(1 for n in held["collections"] if n.rsplit(" ", 1)[0] in created_names) == sum(
            len(d.created) for d in drivers
        )
        # a `v2c` command started now sees what the agents imported
        listed_by_cli = v2c(library, env, "list", "--json")
        cli_ids = {v["id"] for v in json.loads(listed_by_cli.stdout)["videos"]}
        assert imports <= cli_ids, "a `v2c` command does not see every import"
        lock_errors = [e for e in errors if "library-in-use" in e]
        assert not lock_errors and not errors, errors[:5]

        # the owner dies; the next tool call goes through a newly elected owner
        owner.proc.send_signal(signal.SIGKILL)
        owner.proc.wait(timeout=10)
        first_ms, text = _call_ms(clients[0], "search_transcript", {"query": "memory"})
        assert "hits for" in text or "hit for" in text
        second_ms, _ = _call_ms(clients[1], "get_metadata", {"url": known[0]})
        for client in clients:
            assert not client.junk
        counts = sum((d.counts for d in drivers), Counter())
        with capsys.disabled():
            print(
                f"\nshared-library soak: {ops} operations ({dict(counts)}, {len(add_files)} "
                f"imports by `v2c add`) in {seconds:.1f} s across 2 MCP servers + importer + "
                f"owner; errors: {len(errors)}; after SIGKILL of the owner: first call "
                f"{first_ms:.0f} ms, next {second_ms:.0f} ms"
            )
        assert ops >= 500
    finally:
        if add_proc is not None and add_proc.poll() is None:
            add_proc.kill()
        for client in clients:
            client.close()
        if owner.proc.poll() is None:
            owner.proc.kill()
        owner.proc.wait(timeout=10)
        remove_dir(runtime)


def test_v2c_add_goes_through_the_owner(tmp_path: Path) -> None:
    runtime = short_dir()
    env = server_env(tmp_path / "home", runtime)
    library = tmp_path / "library.duckdb"
    owner = Owner(library, env)
    try:
        done = v2c(library, env, "add", "--no-index", str(REPO / "resources" / "samples"))
        assert done.returncode == 0, done.stderr
    finally:
        owner.proc.kill()
        owner.proc.wait(timeout=10)
        remove_dir(runtime)
