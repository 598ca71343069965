"""Driving real `v2c mcp` processes with the official MCP client, from synchronous tests.

Each `McpProcess` owns one stdio server process and one `ClientSession`, held open by a task
on a private event loop thread (the SDK's contexts must be entered and left in one task), so
a module-scoped fixture can share one server among many small tests. Transport-level faults
(a line on stdout that is not JSON-RPC) are collected in `junk`: it must stay empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
from mcp.types import CallToolResult, Implementation, TextContent

from tests.conftest import REPO, child_env, corpus_path
from v2c_desktop.core.services import Services

T = TypeVar("T")
SERVER = [sys.executable, "-m", "v2c_desktop.cli.main", "mcp"]


def server_env(home: Path, runtime: Path) -> dict[str, str]:
    """What a server process gets: a private home and socket dir, and no way to the internet.

    `child_env` brings the network guard (and its attempt log); the proxy variables point at
    a closed local port besides, so a stray web request fails fast at the proxy.
    """
    dead = "http://127.0.0.1:9"
    return {
        "V2C_HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        **child_env(),
        "PYTHONUNBUFFERED": "1",
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "ALL_PROXY": dead,
        "NO_PROXY": "localhost,127.0.0.1",
        "PATH": os.environ.get("PATH", ""),
    }


def allow_agents(home: Path, folders: list[Path | str], *, private_hosts: bool = False) -> Path:
    """Let the agents of servers under `home` read files in `folders` (the user's setting
    `agents.allowed_folders`: nothing is allowed by default), and, with `private_hosts`,
    reach loopback and private hosts. Other settings in the file are kept."""
    path = home / "config" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data["agents"] = {
        "allowed_folders": [str(folder) for folder in folders],
        "allow_private_hosts": private_hosts,
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def build_library(library: Path, sources: list[str]) -> None:
    """Import `sources` with the core directly, before any server runs.

    Saved without embedding (like `v2c add --no-index`): the first search brings the keyword
    index up to date, and vectors would cost ~5 s a video on a 2-core machine.
    """

    async def build() -> None:
        services = await asyncio.to_thread(lambda: Services.open(library, index_on_import=False))
        try:
            result = await services.library.add(sources)
            failed = [o.to_dict() for o in result.outcomes if o.status == "failed"]
            assert not failed, failed
        finally:
            await services.aclose()

    asyncio.run(build())


def text_of(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error, text_of(result)[:500]
    body: dict[str, Any] = json.loads(text_of(result))
    return body


class McpProcess:
    """One `v2c mcp` server process and a client session to it."""

    def __init__(
        self,
        library: Path,
        env: dict[str, str],
        name: str = "mcp",
        command: list[str] | None = None,
        cwd: Path = REPO,
        start_timeout: float = 90.0,
        client_info: Implementation | None = None,
        list_roots: ListRootsFnT | None = None,
        elicitation: ElicitationFnT | None = None,
        sampling: SamplingFnT | None = None,
    ) -> None:
        self.name = name
        self._client_info = client_info  # what `initialize` says about us (None: the SDK's)
        self._list_roots = list_roots  # the roots we share (None: no roots capability)
        self._elicitation = elicitation  # how we answer forms (None: no elicitation capability)
        self._sampling = sampling  # our "model" (None: no sampling capability)
        self.stderr_path = library.parent / f"{name}.stderr"
        self.junk: list[Exception] = []
        self.notifications: list[Any] = []  # every server notification, in order
        self.progress: list[tuple[float, float | None, str | None]] = []
        self._params = StdioServerParameters(
            command=(command or SERVER)[0],
            args=[*(command or SERVER)[1:], "--library", str(library)],
            env=env,
            cwd=str(cwd),
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._ready: Future[None] = Future()
        self._stop: asyncio.Event | None = None
        self._session: ClientSession | None = None
        self._holder = asyncio.run_coroutine_threadsafe(self._hold(), self._loop)
        try:
            self._ready.result(timeout=start_timeout)
        except Exception:
            raise AssertionError(f"{name} did not start:\n{self.stderr()}") from None

    async def _hold(self) -> None:
        try:
            with self.stderr_path.open("w") as errlog:
                async with (
                    stdio_client(self._params, errlog=errlog) as (read, write),
                    ClientSession(
                        read,
                        write,
                        message_handler=self._on_message,
                        client_info=self._client_info,
                        list_roots_callback=self._list_roots,
                        elicitation_callback=self._elicitation,
                        sampling_callback=self._sampling,
                    ) as session,
                ):
                    await session.initialize()
                    self._session = session
                    self._stop = asyncio.Event()
                    self._ready.set_result(None)
                    await self._stop.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.junk.append(message)
        else:
            self.notifications.append(message)

    def stderr(self) -> str:
        return self.stderr_path.read_text() if self.stderr_path.exists() else ""

    # -- calls ----------------------------------------------------------------------------
    def run(self, work: Callable[[ClientSession], Awaitable[T]], timeout: float = 120.0) -> T:
        async def go() -> T:
            assert self._session is not None
            return await work(self._session)

        return asyncio.run_coroutine_threadsafe(go(), self._loop).result(timeout)

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, progress: bool = False
    ) -> CallToolResult:
        listen = progress

        async def hear(progress: float, total: float | None, message: str | None) -> None:
            self.progress.append((progress, total, message))

        def work(session: ClientSession) -> Awaitable[Any]:
            return session.call_tool(
                name, arguments or {}, progress_callback=hear if listen else None
            )

        result = self.run(work)
        assert isinstance(result, CallToolResult), result
        return result

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """Call a tool that must succeed; its text."""
        result = self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {text_of(result)}\n{self.stderr()[-3000:]}"
        return text_of(result)

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        with contextlib.suppress(Exception):  # a server that died already is closed
            self._holder.result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


@contextlib.contextmanager
def crashcourse_server(base: Path, name: str) -> Iterator[McpProcess]:
    """An MCP server over a library of one CrashCourse talk (`name`: its file stem), its
    captions and info JSON copied from the corpus into `base`; checks stdout stayed clean."""
    from tests.unit.owner.toys import remove_dir, short_dir

    folder = base / "videos"
    folder.mkdir()
    for suffix in (".en.srt", ".info.json"):
        source = corpus_path(f"transcripts/crashcourse-psychology/{name}{suffix}")
        (folder / source.name).write_bytes(source.read_bytes())
    runtime = short_dir()  # the library owner's socket path must stay short
    library, home = base / "library.duckdb", base / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(folder)])
    allow_agents(home, [folder])
    process = McpProcess(library, server_env(home, runtime))
    try:
        yield process
    finally:
        process.close()
        remove_dir(runtime)
    assert not process.junk, f"non-protocol output on stdout: {process.junk}"
