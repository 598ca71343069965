"""The owner protocol trusts no client blindly (issue 22): line cap, clipped echoes, hello
first, the peer's user id, a connection cap. A real owner server on a real Unix socket."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.unit.owner.toys import Toy, eventually, remove_dir, run, short_dir
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.owner import OwnerClient, OwnerServer, RemoteProxy, protocol
from v2c_desktop.core.owner import server as server_module

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
HAS_PEERCRED = hasattr(socket, "SO_PEERCRED")
HUGE = "x" * 5_000_000  # under the line cap, far over anything worth echoing


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    path = short_dir()
    yield path
    remove_dir(path)


@asynccontextmanager
async def serving(path: Path, **kwargs: Any) -> AsyncIterator[tuple[OwnerServer, RemoteProxy]]:
    server = OwnerServer(Toy(), path, **kwargs)
    await server.start()
    client = OwnerClient(path, client_name="pytest")
    await client.connect()
    try:
        yield server, RemoteProxy(client)
    finally:
        await client.aclose()
        await server.aclose()


class Raw:
    """A hand-driven connection: what a hostile or broken client sends."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, path: Path) -> Raw:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=protocol.LINE_LIMIT)
        return cls(reader, writer)

    async def send(self, data: bytes | dict[str, Any]) -> None:
        self.writer.write(data if isinstance(data, bytes) else protocol.dumps(data))
        await self.writer.drain()

    async def line(self) -> bytes:
        return await self.reader.readline()

    async def reply(self) -> dict[str, Any]:
        line = await self.line()
        assert line, "the owner hung up instead of answering"
        message: dict[str, Any] = json.loads(line)
        return message

    async def hello(self) -> None:
        await self.send(protocol.client_hello(os.getpid(), "raw"))
        assert "hello" in await self.reply()

    def close(self) -> None:
        self.writer.close()


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_texts(k), *_texts(v))]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def _assert_clipped(reply: dict[str, Any]) -> None:
    assert "error" in reply
    for text in _texts(reply["error"]):
        assert len(text) <= protocol.ERROR_TEXT_LIMIT + 50
        assert "x" * (protocol.ECHO_LIMIT + 1) not in text


# -- line cap ---------------------------------------------------------------------------------
def test_a_line_over_the_request_cap_is_refused_and_the_connection_closed(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"
    assert protocol.REQUEST_LINE_LIMIT <= 16 * 1024 * 1024

    async def go() -> None:
        async with serving(path) as (_server, proxy):
            raw = await Raw.open(path)
            await raw.hello()
            value = "y" * (protocol.REQUEST_LINE_LIMIT + 1024)
            await raw.send({"id": 1, "method": "echo", "params": {"value": value}})
            reply = await raw.reply()
            assert reply["id"] is None and "MiB" in reply["error"]["message"]
            assert len(json.dumps(reply)) < 2000  # nothing of the line comes back
            assert await raw.line() == b""  # and the owner hangs up
            raw.close()
            assert await proxy.add(1, 2) == 3  # everyone else is still served

    run(go())


# -- echoed text ------------------------------------------------------------------------------
def test_echoed_names_are_clipped_in_errors_and_logs(
    sock_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = sock_dir / "s.sock"

    async def go() -> None:
        async with serving(path) as (_server, _proxy):
            raw = await Raw.open(path)
            await raw.hello()
            await raw.send({"id": 1, "method": HUGE, "params": {}})
            unknown = await raw.reply()
            assert unknown["id"] == 1 and "is not a method" in unknown["error"]["message"]
            _assert_clipped(unknown)
            await raw.send({"id": 2, "method": "add", "params": {"a": 1, HUGE: 2}})
            bad_keyword = await raw.reply()
            assert bad_keyword["id"] == 2
            _assert_clipped(bad_keyword)
            await raw.send({"id": 3, "method": "echo", "params": {"value": {"__t": HUGE}}})
            _assert_clipped(await raw.reply())
            raw.close()

            old = await Raw.open(path)
            await old.send({"hello": {"version": HUGE}})
            refusal = await old.reply()
            assert "protocol" in refusal["error"]["message"]
            _assert_clipped(refusal)
            old.close()

    with caplog.at_level(logging.DEBUG):
        run(go())
    assert all(len(r.getMessage()) < 5000 for r in caplog.records)


def test_an_error_without_an_id_is_logged_clipped_by_the_client(
    sock_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An owner's stray error (no id) goes to the client's log, at most ECHO_LIMIT long."""
    path = sock_dir / "s.sock"

    async def fake_owner(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(protocol.dumps(protocol.owner_hello(1, frozenset({"add"}))))
        writer.write(protocol.dumps({"id": None, "error": {"message": HUGE}}))
        await writer.drain()
        await reader.readline()

    async def go() -> None:
        fake = await asyncio.start_unix_server(fake_owner, path=str(path))
        client = OwnerClient(path, client_name="pytest")
        await client.connect()
        await eventually(lambda: any("library owner" in r.getMessage() for r in caplog.records))
        await client.aclose()
        fake.close()
        await fake.wait_closed()

    with caplog.at_level(logging.WARNING):
        run(go())
    logged = [r.getMessage() for r in caplog.records if "library owner" in r.getMessage()]
    assert logged and all(len(m) < protocol.ECHO_LIMIT + 100 for m in logged)


# -- hello first ------------------------------------------------------------------------------
def test_calls_before_hello_are_refused_and_served_after_it(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"

    async def go() -> None:
        async with serving(path) as (server, _proxy):
            raw = await Raw.open(path)
            await raw.send({"id": 1, "method": "add", "params": {"a": 1, "b": 2}})
            refused = await raw.reply()
            assert refused["id"] == 1 and "result" not in refused
            assert "hello" in refused["error"]["message"]
            await raw.send({"id": 2, "method": "count", "params": {"n": 3}})
            assert "error" in await raw.reply()  # streams too
            assert [c.name for c in server.clients()] == ["pytest"]
            await raw.hello()
            await raw.send({"id": 3, "method": "add", "params": {"a": 1, "b": 2}})
            assert await raw.reply() == {"id": 3, "result": 3}
            raw.close()

    run(go())


# -- the peer's user --------------------------------------------------------------------------
@pytest.mark.skipif(not HAS_PEERCRED, reason="SO_PEERCRED is Linux's")
def test_a_peer_of_another_user_is_refused(sock_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner sees our real uid through SO_PEERCRED; an owner running as someone else
    (here: told its own uid is another) refuses us before reading anything."""
    path = sock_dir / "s.sock"
    me = os.geteuid()

    async def go() -> None:
        async with serving(path) as (server, proxy):
            assert await proxy.add(1, 1) == 2  # the same user is served
            monkeypatch.setattr(server_module, "own_uid", lambda: me + 1)
            raw = await Raw.open(path)
            refusal = await raw.reply()  # before we sent anything
            assert f"not user {me}" in refusal["error"]["message"]
            assert await raw.line() == b""
            raw.close()
            with pytest.raises(V2CError, match="serves only its own user"):
                await OwnerClient(path, client_name="other").connect()
            assert len(server.clients()) == 1

    run(go())


@pytest.mark.skipif(not (IS_ROOT and HAS_PEERCRED), reason="needs root to run as another user")
def test_a_real_process_of_another_user_is_refused(sock_dir: Path) -> None:
    """With the folder and socket opened up to everyone, only the uid check is left."""
    path = sock_dir / "s.sock"
    script = (
        "import json, os, socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "s.settimeout(10)\n"
        "s.connect(sys.argv[1])\n"
        "hello = {'hello': {'pid': os.getpid(), 'client': 'x', 'version': 1}}\n"
        "try:\n"
        "    s.sendall(json.dumps(hello).encode() + b'\\n')\n"
        "except OSError:\n"
        "    pass  # refused before it spoke\n"
        "print(s.makefile('rb').readline().decode().strip())\n"
    )
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

    async def go() -> None:
        async with serving(path) as (server, _proxy):
            os.chmod(sock_dir, 0o711)
            os.chmod(path, 0o777)
            child = await asyncio.create_subprocess_exec(
                python, "-c", script, str(path), user=65534, group=65534,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await child.communicate()
            assert child.returncode == 0, err.decode()
            reply = json.loads(out)
            assert "hello" not in reply
            assert "not user 65534" in reply["error"]["message"]
            assert [c.name for c in server.clients()] == ["pytest"]

    run(go())


# -- connection cap ---------------------------------------------------------------------------
def test_connections_are_capped(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"
    cap = protocol.MAX_CONNECTIONS
    assert 8 <= cap <= 256

    async def go() -> None:
        async with serving(path) as (server, proxy):
            held = [await Raw.open(path) for _ in range(cap - 1)]  # the proxy holds one
            for raw in held[:3]:
                await raw.hello()
            await eventually(lambda: len(server._connections) == cap)
            extra = await Raw.open(path)
            refusal = await extra.reply()
            assert refusal["error"]["code"] == "library-in-use"
            assert str(cap) in refusal["error"]["message"]
            assert await extra.line() == b""
            extra.close()
            assert await proxy.add(2, 2) == 4  # those already in are still served
            held.pop().close()
            await eventually(lambda: len(server._connections) < cap)
            again = await Raw.open(path)
            await again.hello()  # a freed place is taken again
            again.close()
            for raw in held:
                with suppress(Exception):
                    raw.close()

    run(go())


def test_the_cap_is_a_setting_of_the_server(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"

    async def go() -> None:
        async with serving(path, max_connections=1) as (_server, proxy):
            with pytest.raises(V2CError, match="already serves 1 clients"):
                await OwnerClient(path, client_name="second").connect()
            assert await proxy.add(1, 2) == 3

    run(go())


def test_a_client_that_never_says_hello_is_closed_and_frees_its_place(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"

    async def go() -> None:
        async with serving(path, max_connections=2, hello_timeout=0.5) as (server, proxy):
            silent = await Raw.open(path)  # takes the last place and says nothing
            await eventually(lambda: len(server._connections) == 2)
            refusal = await silent.reply()  # told why, after the deadline ...
            assert "no hello within 0.5 s" in refusal["error"]["message"]
            assert await silent.line() == b""  # ... and hung up on
            await eventually(lambda: len(server._connections) == 1)
            late = await Raw.open(path)
            await late.hello()  # the freed place serves a client that does introduce itself
            await late.send({"id": 1, "method": "add", "params": {"a": 1, "b": 2}})
            assert await late.reply() == {"id": 1, "result": 3}
            await asyncio.sleep(0.8)  # past the deadline: a client that said hello stays
            await late.send({"id": 2, "method": "add", "params": {"a": 2, "b": 2}})
            assert await late.reply() == {"id": 2, "result": 4}
            assert await proxy.add(1, 1) == 2
            late.close()
            silent.close()

    run(go())
