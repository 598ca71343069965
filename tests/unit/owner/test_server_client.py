"""An owner server and its clients in one process, over a real Unix socket."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.unit.owner.toys import Toy, eventually, remove_dir, run, short_dir
from v2c_desktop.core.domain.videos import Chapter, Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.owner import (
    ConnectedClient,
    OwnerClient,
    OwnerGone,
    OwnerServer,
    RemoteProxy,
)
from v2c_desktop.core.progress import Progress


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    path = short_dir()
    yield path
    remove_dir(path)


@asynccontextmanager
async def serving(
    path: Path, target: object | None = None, **kwargs: object
) -> AsyncIterator[tuple[OwnerServer, OwnerClient, RemoteProxy]]:
    server = OwnerServer(target or Toy(), path, **kwargs)  # type: ignore[arg-type]
    await server.start()
    client = OwnerClient(path, client_name="pytest")
    await client.connect()
    try:
        yield server, client, RemoteProxy(client)
    finally:
        await client.aclose()
        await server.aclose()


def _record() -> VideoRecord:
    video = Video("file:abc", "A talk", "file", "abc", duration=12.0)
    transcript = Transcript("stt", "en", [Segment(0.0, 1.5, "hi"), Segment(1.5, 3.0, "there")])
    return VideoRecord(video, transcript, [Chapter("one", 0.0, 3.0)])


def test_calls_work_like_the_local_object(sock_dir: Path) -> None:
    async def go() -> None:
        async with serving(sock_dir / "s.sock") as (_, client, proxy):
            assert await proxy.echo(_record()) == _record()
            assert await proxy.add(2, b=3) == 5  # positional arguments are bound remotely
            assert await proxy.add(a=4) == 4
            assert await client.call("add", 1, 2) == 3
            assert await proxy.kind_of(["a", "b"]) == "tuple"  # rebuilt from the hint
            assert await proxy.echo({"k": [1, None, "x"]}) == {"k": [1, None, "x"]}
            assert client.owner_pid == os.getpid()
            assert {"echo", "count", "slow"} <= client.methods
            assert not {"sync_method", "aclose", "_private"} & client.methods

    run(go())


def test_streams_deliver_items_and_close_the_generator_early(sock_dir: Path) -> None:
    toy = Toy()

    async def go() -> None:
        async with serving(sock_dir / "s.sock", toy) as (_, _client, proxy):
            assert [i async for i in proxy.count(5)] == [0, 1, 2, 3, 4]
            assert [i async for i in proxy.count(0)] == []
            await eventually(lambda: toy.streams_closed == 2)
            async for i in proxy.count(1000):
                if i == 2:
                    break
            await eventually(lambda: toy.streams_closed == 3)

    run(go())


def test_a_method_returning_an_async_iterator_streams_when_named(sock_dir: Path) -> None:
    async def go() -> None:
        methods = frozenset({"numbers", "add"})
        async with serving(sock_dir / "s.sock", methods=methods) as (server, _, proxy):
            assert server.methods == methods
            assert [i async for i in proxy.numbers()] == [0, 1, 2]
            with pytest.raises(V2CError, match="not a method"):
                await proxy.echo(1)

    run(go())
    with pytest.raises(ValueError):
        OwnerServer(Toy(), sock_dir / "x.sock", methods=frozenset({"_private"}))
    with pytest.raises(ValueError):
        OwnerServer(Toy(), sock_dir / "x.sock", methods=frozenset({"missing"}))


def test_progress_callbacks_are_carried_back_to_the_caller(sock_dir: Path) -> None:
    async def go() -> None:
        async with serving(sock_dir / "s.sock") as (_, _client, proxy):
            seen: list[Progress] = []
            assert await proxy.work(3, progress=seen.append) == 3
            assert seen == [Progress("work", i, 3, f"step {i}") for i in (1, 2, 3)]
            threaded: list[Progress] = []
            assert await proxy.threaded_work(50, progress=threaded.append) == 50
            assert [p.done for p in threaded] == list(range(1, 51))
            assert await proxy.work(2) == 2  # no callback, no progress messages needed

    run(go())


def test_cancelling_a_call_cancels_it_in_the_owner(sock_dir: Path) -> None:
    toy = Toy()

    async def go() -> None:
        async with serving(sock_dir / "s.sock", toy) as (_, _client, proxy):
            task = asyncio.create_task(proxy.slow())
            await toy.started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # (15 s: a hang guard; the call, left running, would take 60 s)
            await asyncio.wait_for(toy.cancelled.wait(), 15)
            assert await proxy.add(1, 1) == 2  # the connection is still good

    run(go())


def test_errors_cross_as_v2c_errors(sock_dir: Path) -> None:
    async def go() -> None:
        async with serving(sock_dir / "s.sock") as (_, client, proxy):
            with pytest.raises(V2CError) as caught:
                await proxy.fail_v2c()
            error = caught.value
            assert (error.code, error.message, error.hint, error.details) == (
                "not-found",
                "no such video",
                "list videos first",
                {"ref": "x"},
            )
            with pytest.raises(V2CError) as caught:
                await proxy.fail_value()
            assert caught.value.code == "internal"
            assert "ValueError: broken" in caught.value.message
            assert "secret" not in caught.value.message
            for method in ("missing", "_private", "sync_method", "aclose"):
                with pytest.raises(V2CError, match="not a method") as caught:
                    await client.call(method)
                assert caught.value.code == "bad-request"
            with pytest.raises(AttributeError):
                _ = proxy._private
            with pytest.raises(V2CError, match="add") as caught:
                await proxy.add(1, 2, 3)
            assert caught.value.code == "bad-request"
            with pytest.raises(V2CError, match="cannot cross") as caught:
                await proxy.bad_result()
            assert caught.value.code == "internal"
            with pytest.raises(V2CError, match="cannot cross") as caught:
                await proxy.echo(lambda: None)
            assert caught.value.code == "bad-request" and "only data" in caught.value.hint
            with pytest.raises(V2CError, match="is a stream"):
                await proxy.count(3)
            with pytest.raises(V2CError, match="not a stream"):
                _ = [x async for x in proxy.add(1)]
            assert await proxy.add(5) == 5

    run(go())


def test_a_hundred_concurrent_calls_on_one_connection(sock_dir: Path) -> None:
    toy = Toy()

    async def go() -> None:
        async with serving(sock_dir / "s.sock", toy) as (_, _client, proxy):
            results = await asyncio.gather(*(proxy.jitter(i) for i in range(100)))
            assert results == list(range(100))
            assert toy.max_in_flight > 10  # they really ran side by side in the owner

    run(go())


def test_many_connections_at_once(sock_dir: Path) -> None:
    async def go() -> None:
        async with serving(sock_dir / "s.sock") as (_, _client, _proxy):
            clients = [OwnerClient(sock_dir / "s.sock", client_name=f"c{i}") for i in range(10)]
            await asyncio.gather(*(c.connect() for c in clients))
            sums = await asyncio.gather(*(c.call("add", i, i) for i, c in enumerate(clients)))
            assert sums == [2 * i for i in range(10)]
            await asyncio.gather(*(c.aclose() for c in clients))

    run(go())


def test_socket_is_user_only_and_removed_on_close(sock_dir: Path) -> None:
    path = sock_dir / "private" / "s.sock"

    async def go() -> None:
        async with serving(path):
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
            assert stat.S_ISSOCK(os.stat(path).st_mode)
            assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        assert not path.exists()

    run(go())


def test_clients_lists_who_is_connected(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"
    changes: list[list[str]] = []

    async def go() -> None:
        server = OwnerServer(
            Toy(), path, on_clients_changed=lambda c: changes.append([x.name for x in c])
        )
        await server.start()
        before = time.time()
        agent = OwnerClient(path, client_name="claude (v2c mcp)")
        cli = OwnerClient(path, client_name="v2c list")
        await agent.connect()
        await cli.connect()
        listed = server.clients()
        assert [c.name for c in listed] == ["claude (v2c mcp)", "v2c list"]
        assert all(isinstance(c, ConnectedClient) and c.pid == os.getpid() for c in listed)
        assert all(before - 1 <= c.connected_at <= time.time() for c in listed)
        await agent.aclose()
        await eventually(lambda: [c.name for c in server.clients()] == ["v2c list"])
        await cli.aclose()
        await eventually(lambda: server.clients() == [])
        await server.aclose()

    run(go())
    assert changes[:2] == [["claude (v2c mcp)"], ["claude (v2c mcp)", "v2c list"]]
    assert changes[-1] == []


def test_a_dropped_owner_raises_owner_gone(sock_dir: Path) -> None:
    toy = Toy()

    async def go() -> None:
        server = OwnerServer(toy, sock_dir / "s.sock")
        await server.start()
        client = OwnerClient(sock_dir / "s.sock", client_name="pytest")
        await client.connect()
        call = asyncio.create_task(client.call("slow"))
        await toy.started.wait()
        await server.aclose(grace=0)
        with pytest.raises(OwnerGone) as caught:
            await call
        assert caught.value.code == "upstream"
        assert caught.value.hint == "the library's owner process exited; retrying"
        assert isinstance(caught.value, V2CError)
        with pytest.raises(OwnerGone):
            await client.call("add", 1)
        await client.aclose()
        with pytest.raises(V2CError, match="closed"):
            await client.call("add", 1)

    run(go())


def test_closing_lets_calls_in_flight_finish(sock_dir: Path) -> None:
    toy = Toy()

    async def go() -> None:
        server = OwnerServer(toy, sock_dir / "s.sock")
        await server.start()
        async with OwnerClient(sock_dir / "s.sock", client_name="pytest") as client:
            call = asyncio.create_task(client.call("slow", 0.2))
            await toy.started.wait()
            await server.aclose(grace=5)
            assert await call == "done"
            assert not toy.cancelled.is_set()

    run(go())


def test_stale_socket_is_replaced_but_a_live_one_is_not(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening, closed: what SIGKILL leaves behind
    stale.close()
    assert path.exists()

    async def go() -> None:
        async with serving(path) as (_, _client, proxy):
            assert await proxy.add(1, 2) == 3
            with pytest.raises(V2CError) as caught:
                await OwnerServer(Toy(), path).start()
            assert caught.value.code == "library-in-use"
            assert await proxy.add(2, 2) == 4  # the live owner kept its socket
        (sock_dir / "plain").write_text("not a socket")
        with pytest.raises(V2CError, match="not a socket"):
            await OwnerServer(Toy(), sock_dir / "plain").start()

    run(go())


def test_malformed_messages_get_errors_not_a_crash(sock_dir: Path) -> None:
    path = sock_dir / "s.sock"

    async def exchange(
        writer: asyncio.StreamWriter, reader: asyncio.StreamReader, line: bytes
    ) -> dict[str, object]:
        writer.write(line)
        await writer.drain()
        reply: dict[str, object] = json.loads(await reader.readline())
        return reply

    async def go() -> None:
        async with serving(path) as (server, _client, _proxy):
            reader, writer = await asyncio.open_unix_connection(str(path))
            bad = await exchange(writer, reader, b"{not json\n")
            assert bad["id"] is None and "error" in bad
            assert "error" in await exchange(writer, reader, b"[1, 2]\n")
            assert "error" in await exchange(writer, reader, b'{"method": "add"}\n')
            reply = await exchange(writer, reader, b'{"id": 1, "method": 5, "params": {}}\n')
            assert reply["id"] == 1 and "error" in reply
            reply = await exchange(
                writer, reader, b'{"id": 2, "method": "add", "params": {"a": 1}}\n'
            )
            assert reply["id"] == 2 and "hello" in reply["error"]["message"]  # not before a hello
            assert [c.name for c in server.clients()] == ["pytest"]  # only a hello lists one
            old = await exchange(writer, reader, b'{"hello": {"version": 99}}\n')
            assert "protocol" in json.dumps(old)
            assert await reader.readline() == b""  # and the owner hangs up
            writer.close()

    run(go())
