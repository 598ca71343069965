"""A client renames itself after it connected (`v2c mcp` learns its agent's name from MCP
`initialize`): the owner lists the new name, and the wire stays compatible both ways."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.owner.test_session import join
from tests.unit.owner.toys import LockedToy, Toy, eventually, remove_dir, run, short_dir
from v2c_desktop.core.owner import OwnerClient, OwnerServer, RemoteProxy, protocol
from v2c_desktop.core.owner.connection import client_name


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    path = short_dir()
    yield path
    remove_dir(path)


def test_a_renamed_client_is_listed_by_its_new_name_and_keeps_working(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"
    heard: list[list[str]] = []

    async def go() -> None:
        server = OwnerServer(
            Toy(), path, on_clients_changed=lambda c: heard.append([x.name for x in c])
        )
        await server.start()
        client = OwnerClient(path, client_name="v2c mcp (4242)")
        await client.connect()
        (before,) = server.clients()
        time.sleep(0.01)  # a rename must not look like a new connection
        await client.rename("Claude Desktop 1.2")
        await eventually(lambda: [c.name for c in server.clients()] == ["Claude Desktop 1.2"])
        (after,) = server.clients()
        assert after.connected_at == before.connected_at and after.pid == os.getpid()
        assert after.connection == before.connection
        assert await RemoteProxy(client).add(2, 3) == 5  # no stray answer confused the call
        assert client.client_name == "Claude Desktop 1.2"
        await client.aclose()
        await server.aclose()

    run(go())
    assert heard[:2] == [["v2c mcp (4242)"], ["Claude Desktop 1.2"]]


def test_the_owner_answers_only_the_first_hello(sock_dir: Path) -> None:
    """What an older client would read: one answer to its hello, then only its calls."""
    path = sock_dir / "s.sock"

    async def go() -> None:
        async with OwnerServer(Toy(), path):
            reader, writer = await asyncio.open_unix_connection(str(path))
            writer.write(protocol.dumps(protocol.client_hello(1, "first")))
            assert "hello" in json.loads(await reader.readline())
            writer.write(protocol.dumps(protocol.client_hello(1, "second")))
            writer.write(protocol.dumps(protocol.request(7, "add", {}, [1, 1])))
            await writer.drain()
            assert json.loads(await reader.readline()) == {"id": 7, "result": 2}
            writer.close()

    run(go())


def test_a_renaming_client_ignores_an_older_owner_that_answers_every_hello(
    sock_dir: Path,
) -> None:
    """An owner from before renames answers a repeated hello like the first one."""
    path = sock_dir / "old.sock"
    names: list[str] = []

    async def old_owner(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := await reader.readline():
            message = json.loads(line)
            if "hello" in message:
                names.append(message["hello"]["client"])
                writer.write(protocol.dumps(protocol.owner_hello(99, frozenset({"add"}))))
            else:
                total = sum(message.get("args") or [])
                writer.write(protocol.dumps(protocol.result(message["id"], total)))
            await writer.drain()

    async def go() -> None:
        server = await asyncio.start_unix_server(old_owner, path=str(path))
        client = OwnerClient(path, client_name="v2c mcp (1)")
        await client.connect()
        await client.rename("Cursor 0.50")
        assert await client.call("add", 2, 2) == 4
        assert names == ["v2c mcp (1)", "Cursor 0.50"]
        await client.aclose()
        server.close()
        await server.wait_closed()

    run(go())


def test_a_renamed_session_keeps_its_name_with_the_next_owner(
    tmp_path: Path, sock_dir: Path
) -> None:
    """The owner is replaced; the agent's next call reconnects under its new name."""
    library = tmp_path / "library.duckdb"
    made: list[LockedToy] = []

    async def go() -> None:
        first = await join(library, made, sock_dir, "gui")
        agent = await join(library, made, sock_dir, "v2c mcp (7)")
        await agent.rename("Claude Desktop 1.2")
        await eventually(lambda: [c.name for c in first.clients()] == ["Claude Desktop 1.2"])
        await first.aclose()
        second = await join(library, made, sock_dir, "gui again")  # the new owner
        assert second.role == "owner"
        assert await agent.api.add(1, 1) == 2  # the dead connection: re-elected, retried
        assert agent.role == "client"
        assert [c.name for c in second.clients()] == ["Claude Desktop 1.2"]
        await agent.aclose()
        await second.aclose()

    run(go())


def test_names_are_one_printable_line() -> None:
    assert client_name("Claude\nDesktop\t1.2\x1b[31m") == "Claude Desktop 1.2[31m"
    assert client_name("") == "unknown" and client_name(None) == "unknown"
    assert len(client_name("x" * 1000)) == 200
