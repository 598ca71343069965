"""A second, independent client: the MCP Inspector's CLI lists the tools and calls one.

It runs the pinned copy that `bash packaging/install_inspector.sh` (run by .ci/run) puts in
.venv/inspector, else whatever npm's local cache holds (`npx --offline`), so the suite never
reaches the internet; where node or the package is missing the test skips and says how to get it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.mcp.harness import server_env
from tests.unit.owner.toys import remove_dir, short_dir

PACKAGE = "@modelcontextprotocol/inspector"
INSTALL = "bash packaging/install_inspector.sh"
#: Where INSTALL puts the pinned Inspector (packaging/inspector/package-lock.json).
LOCAL = REPO / ".venv" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


def _inspector_command() -> list[str]:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed (the MCP Inspector runs on node; install nodejs npm)")
    if LOCAL.exists():
        return [str(LOCAL)]
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip(f"npx is not installed, nor is {LOCAL}; install npm, then `{INSTALL}`")
    return [npx, "--offline", "-y", PACKAGE]


def _inspector(tmp_path: Path, runtime: Path, *method: str) -> subprocess.CompletedProcess[str]:
    env = server_env(tmp_path / "home", runtime)
    command = [*_inspector_command(), "--cli"]
    for key, value in env.items():
        command += ["-e", f"{key}={value}"]
    command += [sys.executable, "-m", "v2c_desktop.cli.main", "mcp", "--library"]
    command += [str(tmp_path / "library.duckdb"), *method]
    try:
        done = subprocess.run(
            command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the MCP Inspector did not answer within 120 s")
    if "ENOTCACHED" in done.stderr or "could not determine executable" in done.stderr:
        pytest.skip(f"{PACKAGE} is neither in {LOCAL} nor in npm's cache; run `{INSTALL}`")
    return done


def test_the_inspector_lists_the_tools_and_calls_one(tmp_path: Path) -> None:
    runtime = short_dir()
    try:
        listed = _inspector(tmp_path, runtime, "--method", "tools/list")
        assert listed.returncode == 0, listed.stderr[-2000:]
        names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
        assert {"get_transcript", "search_transcript", "export_context_pack", "ask"} <= names
        called = _inspector(
            tmp_path, runtime, "--method", "tools/call", "--tool-name", "list_formats"
        )
        assert called.returncode == 0, called.stderr[-2000:]
        result = json.loads(called.stdout)
        assert result["structuredContent"]["formats"][0]["id"] == "text"
    finally:
        remove_dir(runtime)
