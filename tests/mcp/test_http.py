"""`v2c mcp --http` end to end: a real server process on a free loopback port.

The official MCP client (Streamable HTTP) lists the tools and reads a corpus transcript with
a valid token; plain HTTP requests are refused the way the issue asks: no token or a wrong
one (401 with `WWW-Authenticate`), a foreign `Host` (421) or `Origin` (403), a burst past
the token's rate (429 with `Retry-After`), a session used with another token (404), and
`export_obsidian`, which writes the user's files, is not offered and refused as `isError`.
Tokens are made, listed and revoked with the real `v2c mcp token` commands, and a revoked
token is refused by the running server at once. The server is started as the app starts
it, so the end of its stdin stops it, cleanly.
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import REPO, corpus_path
from tests.mcp.harness import build_library, error_of, server_env, text_of
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.mcp_tokens import add_token
from v2c_desktop.core.settings import ExportSettings, McpHttpSettings, Settings, save_settings
from v2c_desktop.mcp import Deps, build_server

pytestmark = [pytest.mark.corpus]

BITCOIN = "transcripts/3blue1brown/2017_bitcoin/captions.en.srt"
VIDEO = "v2c://video/"
V2C = [sys.executable, "-m", "v2c_desktop.cli.main"]
BURST = 20
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "http-test", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@dataclass
class HttpServer:
    url: str
    port: int
    home: Path
    vault: Path
    tokens: dict[str, str]  # name -> the token itself
    process: subprocess.Popen[bytes]
    stderr_path: Path

    def env(self) -> dict[str, str]:
        return server_env(self.home, self.home.parent / "run")

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def _first_line(process: subprocess.Popen[bytes], timeout: float) -> bytes:
    lines: queue.Queue[bytes] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return b""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    base = short_dir()  # the owner's socket path must stay short
    home, vault, run = base / "home", base / "vault", base / "run"
    for folder in (home, vault, run):
        folder.mkdir(mode=0o700)
    library = base / "library.duckdb"
    settings_file = home / "config" / "settings.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(corpus_path(BITCOIN))])
    # a vault is set up, so export_obsidian would work over stdio: over HTTP it must not
    save_settings(
        Settings(
            export=ExportSettings(vault=str(vault)),
            mcp_http=McpHttpSettings(requests_per_minute=60, burst=BURST),
        ),
        settings_file,
    )
    tokens = {
        name: add_token(name, settings_file)[1] for name in ("reader", "exporter", "burst", "other")
    }
    stderr_path = base / "http.stderr"
    library_arg = ["--library", str(library)]
    with stderr_path.open("wb") as errors:
        process = subprocess.Popen(
            [*V2C, "mcp", "--http", "127.0.0.1:0", "--json", "--exit-with-stdin", *library_arg],
            cwd=REPO,
            env=server_env(home, run),
            stdin=subprocess.PIPE,  # as the app starts it: the end of stdin stops it
            stdout=subprocess.PIPE,
            stderr=errors,
        )
    line = _first_line(process, 60)
    if not line:
        process.kill()
        raise AssertionError(f"the server did not start:\n{stderr_path.read_text()}")
    url = json.loads(line)["url"]
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    assert url == f"http://127.0.0.1:{port}/mcp"
    yield HttpServer(url, port, home, vault, tokens, process, stderr_path)
    assert process.stdin is not None
    process.stdin.close()  # the app that started it is gone: the server stops, cleanly
    assert process.wait(timeout=20) == 0, stderr_path.read_text()
    log = stderr_path.read_text()
    assert "Traceback" not in log, log
    for secret in tokens.values():
        assert secret not in log  # tokens are never logged
    remove_dir(base)


def _session(server: HttpServer, token: str) -> Any:
    """Run `work(session)` in an MCP session over HTTP with `token`."""

    async def run(work: Any) -> Any:
        headers = server.auth(token)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(server.url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    return lambda work: asyncio.run(run(work))


def _initialize(server: HttpServer, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(server.url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=30)


# -- the official client --------------------------------------------------------------------
def test_the_sdk_client_lists_the_tools_and_reads_a_transcript(server: HttpServer) -> None:
    async def work(session: ClientSession) -> tuple[set[str], list[str], Any]:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        uris = [str(r.uri) for r in (await session.list_resources()).resources]
        videos = [unquote(u.removeprefix(VIDEO)) for u in uris if u.startswith(VIDEO)]
        videos = [v for v in videos if not v.endswith("/transcript")]
        read = await session.call_tool("get_transcript", {"url": videos[0], "maxTokens": 800})
        return tools, videos, read

    tools, videos, transcript = _session(server, "reader")(work)
    over_stdio = asyncio.run(build_server(Deps(library=server.home / "unused.duckdb")).list_tools())
    assert {"export_obsidian", "export_notion"} <= {tool.name for tool in over_stdio}
    # the same tools as stdio, minus the ones that write the user's files or pages
    assert tools == {tool.name for tool in over_stdio} - {"export_obsidian", "export_notion"}
    assert len(videos) == 1
    text = text_of(transcript)
    assert not transcript.is_error, text
    assert text.startswith("Title: ") and re.search(r"^\[0:\d\d\] \S", text, re.M)
    assert "bitcoin" in text.lower()


def test_export_obsidian_is_refused_over_http_and_writes_nothing(server: HttpServer) -> None:
    async def work(session: ClientSession) -> Any:
        return await session.call_tool("export_obsidian", {"dry_run": False})

    result = _session(server, "exporter")(work)
    body = error_of(result)
    assert set(body) >= {"error", "message", "hint"}
    assert "HTTP" in body["message"]
    assert "stdio" in body["hint"] and "app" in body["hint"]
    assert list(server.vault.iterdir()) == []


# -- refusals -------------------------------------------------------------------------------
def test_a_request_without_a_token_or_with_a_wrong_one_is_401(server: HttpServer) -> None:
    missing = _initialize(server, {})
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="v2c"'
    assert set(missing.json()) == {"error", "message", "hint"}
    wrong = _initialize(server, {"Authorization": "Bearer v2c_not-a-token"})
    assert wrong.status_code == 401
    assert 'error="invalid_token"' in wrong.headers["WWW-Authenticate"]
    basic = _initialize(server, {"Authorization": f"Basic {server.tokens['reader']}"})
    assert basic.status_code == 401


def test_a_foreign_host_or_origin_is_refused(server: HttpServer) -> None:
    token = server.auth("other")
    rebound = _initialize(server, {**token, "Host": f"attacker.example:{server.port}"})
    assert rebound.status_code == 421, rebound.text
    other_port = _initialize(server, {**token, "Host": f"127.0.0.1:{server.port + 1}"})
    assert other_port.status_code == 421
    page = _initialize(server, {**token, "Origin": "https://attacker.example"})
    assert page.status_code == 403
    assert page.json()["error"] == "forbidden"
    assert _initialize(server, {**token, "Origin": "null"}).status_code == 403
    local = _initialize(server, {**token, "Origin": "http://localhost:5173"})
    assert local.status_code == 200, local.text
    named = _initialize(server, {**token, "Host": f"localhost:{server.port}"})
    assert named.status_code == 200


def test_a_burst_past_the_rate_limit_is_429_with_retry_after(server: HttpServer) -> None:
    with httpx.Client(headers=server.auth("burst"), timeout=30) as client:
        statuses = [client.get(server.url).status_code for _ in range(BURST + 3)]
        refused = client.get(server.url)
    assert 429 not in statuses[: BURST - 1], statuses  # the burst gets through (one may refill)
    assert statuses[-1] == 429 and refused.status_code == 429, statuses
    wait = int(refused.headers["Retry-After"])
    assert 1 <= wait <= 2  # 60 a minute: one more request a second
    assert refused.json()["error"] == "rate-limited"
    # the bucket is the token's own: another token is not slowed down
    assert _initialize(server, server.auth("other")).status_code == 200


def test_a_session_belongs_to_the_token_that_opened_it(server: HttpServer) -> None:
    opened = _initialize(server, server.auth("other"))
    session = opened.headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = {**MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    same = httpx.post(server.url, json=ping, headers={**headers, **server.auth("other")})
    assert same.status_code == 200, same.text
    stolen = httpx.post(server.url, json=ping, headers={**headers, **server.auth("reader")})
    assert stolen.status_code == 404


# -- tokens from the command line -----------------------------------------------------------
def _v2c(server: HttpServer, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*V2C, *words],
        cwd=REPO,
        env=server.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_tokens_made_listed_and_revoked_with_the_cli_apply_at_once(server: HttpServer) -> None:
    made = _v2c(server, "mcp", "token", "add", "cli-client", "--json")
    assert made.returncode == 0, made.stderr
    secret = json.loads(made.stdout)["token"]
    assert secret.startswith("v2c_") and len(secret) > 40
    headers = {"Authorization": f"Bearer {secret}"}
    assert _initialize(server, headers).status_code == 200  # no restart needed
    listed = _v2c(server, "mcp", "token", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)["tokens"]}
    assert {"reader", "exporter", "burst", "other", "cli-client"} <= set(rows)
    assert secret not in listed.stdout and rows["cli-client"]["prefix"] == secret[:8]
    saved = (server.home / "config" / "settings.json").read_text(encoding="utf-8")
    assert secret not in saved  # only its hash is kept
    again = _v2c(server, "mcp", "token", "add", "cli-client")
    assert again.returncode == 1 and "already" in again.stderr
    revoked = _v2c(server, "mcp", "token", "revoke", "cli-client")
    assert revoked.returncode == 0, revoked.stderr
    refused = _initialize(server, headers)
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


def test_a_non_loopback_address_needs_allow_remote(server: HttpServer) -> None:
    refused = _v2c(server, "mcp", "--http", "0.0.0.0:0")
    assert refused.returncode == 1
    assert "not a loopback address" in refused.stderr and "--allow-remote" in refused.stderr
