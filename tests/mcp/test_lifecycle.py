"""How a `v2c mcp` process ends: at end of input, or on SIGTERM, handing the library on."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.mcp.harness import server_env
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.store import open_library

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "lifecycle-test", "version": "1"},
    },
}


def _started(library: Path, runtime: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "v2c_desktop.cli.main", "mcp", "--library", str(library)],
        cwd=REPO,
        env=server_env(library.parent / "home", runtime),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    assert reply["result"]["serverInfo"]["name"] == "v2c"
    return process


@pytest.mark.parametrize("ending", ["end of input", "SIGTERM"])
def test_the_server_exits_and_releases_the_library(tmp_path: Path, ending: str) -> None:
    runtime = short_dir()
    library = tmp_path / "library.duckdb"
    process = _started(library, runtime)
    try:
        if ending == "SIGTERM":
            process.send_signal(signal.SIGTERM)
        else:
            assert process.stdin is not None
            process.stdin.close()
        # A server that missed its ending would serve forever: the timeout only turns that
        # hang into a failure (how fast it exits belongs in bench/).
        assert process.wait(timeout=60) == 0
        store = open_library(library)  # the lock is free: the next process can own it
        store.close()
        assert not list(runtime.rglob("*.sock")), "the owner's socket was left behind"
    finally:
        if process.poll() is None:
            process.kill()
        remove_dir(runtime)
