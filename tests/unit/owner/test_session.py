"""Sessions in one process: the lock decides the owner, and a closed owner is replaced.

A LibraryLock is per open file, so two sessions in one process contend exactly as two
processes do; the real multi-process checks are in tests/integration/test_owner_processes.py.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.unit.owner.toys import (
    LockedToy,
    Toy,
    eventually,
    later,
    maker,
    remove_dir,
    run,
    short_dir,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.library_lock import LibraryLock
from v2c_desktop.core.owner import (
    OwnerGone,
    OwnerServer,
    RemoteProxy,
    Session,
    open_session,
    socket_path_for,
)


async def join(
    library: Path,
    made: list[LockedToy],
    runtime: Path,
    name: str,
    refused: list[V2CError] | None = None,
) -> Session[Any]:
    """Open a session on `library` as client `name`; an owner's toy target goes in `made`,
    and each time an election finds the lock held the refusal goes in `refused`."""
    make = maker(library, made)

    async def make_target() -> LockedToy:
        try:
            toy: LockedToy = await make()
        except V2CError as refusal:
            if refused is not None:
                refused.append(refusal)
            raise
        return toy

    return await open_session(
        library, make_target=make_target, client_name=name, runtime_dir=runtime
    )


@pytest.fixture
def runtime() -> Iterator[Path]:
    path = short_dir()
    yield path
    remove_dir(path)


def test_first_session_owns_and_the_next_is_a_client(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "deep" / "folders" / "library.duckdb"
    made: list[LockedToy] = []

    heard: list[list[str]] = []

    async def go() -> None:
        owner = await open_session(
            library,
            make_target=maker(library, made),
            client_name="gui",
            runtime_dir=runtime,
            on_clients_changed=lambda clients: heard.append([c.name for c in clients]),
        )
        client = await open_session(
            library, make_target=maker(library, made), client_name="agent", runtime_dir=runtime
        )
        assert (owner.role, client.role) == ("owner", "client")
        assert owner.api is made[0] and len(made) == 1
        assert isinstance(client.api, RemoteProxy)
        assert await client.api.add(1, 2) == 3
        assert [i async for i in client.api.count(3)] == [0, 1, 2]
        assert client.owner_pid == owner.owner_pid == os.getpid()
        assert [c.name for c in owner.clients()] == ["agent"] and heard == [["agent"]]
        assert client.clients() == []
        assert owner.socket_path == client.socket_path == socket_path_for(library, runtime)
        await client.aclose()
        await owner.aclose()
        assert made[0].closed and not made[0].lock.held
        with pytest.raises(V2CError, match="closed"):
            await client.api.add(1)

    run(go())


def test_the_next_call_after_the_owner_leaves_re_elects(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    made: list[LockedToy] = []

    async def go() -> None:
        first = await join(library, made, runtime, "a")
        second = await join(library, made, runtime, "b")
        await first.aclose()
        # twenty calls hit the dead connection at once; one election, every call retried
        results = await asyncio.gather(*(second.api.add(i, 1) for i in range(20)))
        assert results == [i + 1 for i in range(20)]
        assert second.role == "owner" and len(made) == 2
        third = await join(library, made, runtime, "c")
        assert third.role == "client" and await third.api.add(5) == 5
        await second.aclose()
        # a stream that fails before its first item is retried too
        assert [i async for i in third.api.count(2)] == [0, 1]
        assert {third.role} == {"owner"}  # (a set: mypy narrowed the role above)
        await third.aclose()

    run(go())


def test_a_call_in_flight_when_the_owner_dies_is_retried(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    made: list[LockedToy] = []

    async def go() -> None:
        first = await join(library, made, runtime, "a")
        refused: list[V2CError] = []
        second = await join(library, made, runtime, "b", refused)
        call = asyncio.create_task(second.api.slow(0.3))
        await made[0].started.wait()
        assert first.server is not None
        await first.server.aclose(grace=0)  # the owner drops the call...
        # ...and still holds the lock while it closes: the client's election is refused
        await eventually(lambda: bool(refused))
        assert refused[0].code == "library-in-use"
        await first.aclose()
        assert await call == "done"  # re-elected once the lock was free, then retried
        assert second.role == "owner" and made[0].cancelled.is_set()
        await second.aclose()

    run(go())


def test_a_stream_broken_midway_is_not_retried(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    made: list[LockedToy] = []

    async def go() -> None:
        first = await join(library, made, runtime, "a")
        second = await join(library, made, runtime, "b")
        got: list[int] = []
        with pytest.raises(OwnerGone):
            async for i in second.api.then_wait(3):  # three items, then open but silent
                got.append(i)
                if i == 2:
                    assert first.server is not None
                    await first.server.aclose(grace=0)  # the stream is cut midway
                    await first.aclose()
        assert got == [0, 1, 2]  # not retried: a retry would start again at 0 (and hang)
        assert second.role == "owner"  # but the session re-elected for the next call
        assert [i async for i in second.api.ticks(2, 0)] == [0, 1]
        await second.aclose()

    run(go())


def test_a_progress_callback_works_in_either_role(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    made: list[LockedToy] = []

    async def go() -> None:
        first = await join(library, made, runtime, "a")
        second = await join(library, made, runtime, "b")
        seen: list[int] = []
        assert await second.api.work(2, progress=lambda p: seen.append(p.done)) == 2
        await first.aclose()
        assert await second.api.work(2, progress=lambda p: seen.append(p.done)) == 2
        assert second.role == "owner" and seen == [1, 2, 1, 2]
        with pytest.raises(V2CError, match="is a stream"):
            await second.api.count(1)  # the same refusal as over the socket
        with pytest.raises(V2CError, match="not a method"):
            await second.api.sync_method()
        await second.aclose()

    run(go())


def test_a_held_lock_without_a_socket_names_the_owner(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    holder = LibraryLock(library)
    holder.acquire()  # another "process" is starting up and never gets to serve

    async def go() -> None:
        started = asyncio.get_running_loop().time()
        with pytest.raises(V2CError) as caught:
            await open_session(
                library,
                make_target=maker(library, []),
                client_name="x",
                runtime_dir=runtime,
                connect_timeout=0.4,
            )
        # It waited out its deadline before giving up. A lower bound on the loop's own clock,
        # which the deadline is measured on: a slow machine only makes the wait longer.
        assert asyncio.get_running_loop().time() - started >= 0.4
        error = caught.value
        assert error.code == "library-in-use"
        assert str(os.getpid()) in error.message and error.details["pid"] == os.getpid()
        assert error.hint

    try:
        run(go())
    finally:
        holder.release()


def test_a_starting_owner_is_waited_for(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    holder = LibraryLock(library)
    holder.acquire()

    async def go() -> None:
        server = OwnerServer(Toy(), socket_path_for(library, runtime))
        starting = later(0.3, server.start())  # serves 0.3 s after taking the lock
        session = await open_session(
            library,
            make_target=maker(library, []),
            client_name="x",
            runtime_dir=runtime,
            connect_timeout=15,  # generous: not giving up at once is what is tested
        )
        await starting
        assert session.role == "client" and await session.api.add(2, 2) == 4
        await session.aclose()
        await server.aclose()

    try:
        run(go())
    finally:
        holder.release()


def test_other_failures_of_make_target_propagate(tmp_path: Path, runtime: Path) -> None:
    async def broken() -> Toy:
        raise V2CError("bad-request", "not a v2c library")

    async def go() -> None:
        with pytest.raises(V2CError, match="not a v2c library"):
            await open_session(
                tmp_path / "x.duckdb", make_target=broken, client_name="x", runtime_dir=runtime
            )

    run(go())


def test_a_failed_server_start_closes_the_target(tmp_path: Path, runtime: Path) -> None:
    library = tmp_path / "library.duckdb"
    made: list[LockedToy] = []
    socket_path_for(library, runtime).write_text("squatter")

    async def go() -> None:
        with pytest.raises(V2CError, match="not a socket"):
            await join(library, made, runtime, "x")
        assert made[0].closed and not made[0].lock.held

    run(go())
