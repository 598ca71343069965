"""Who serves a library: connect to the process that does, or take the lock and serve.

An election first tries the socket (cheap, and right whenever an owner is alive), then
`make_target()`, which takes the library's lock as it opens the real services. Neither
working means an owner holds the lock but is not serving yet (starting up, or shutting
down and about to release it), so we wait with a short backoff up to a deadline and then
name the process that holds the library.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..errors import V2CError
from ..library_lock import read_owner
from .client import OwnerClient
from .connection import ConnectedClient
from .protocol import OwnerGone
from .server import OwnerServer

T = TypeVar("T")


@dataclass
class Elected(Generic[T]):
    """Either a connected client, or the target we opened with the server serving it."""

    client: OwnerClient | None = None
    target: T | None = None
    server: OwnerServer | None = None


async def _connect(socket_path: Path, client_name: str) -> OwnerClient | None:
    client = OwnerClient(socket_path, client_name=client_name)
    try:
        await client.connect()
    except (OSError, OwnerGone):  # no socket, a stale one, or an owner that left mid-hello
        await client.aclose()
        return None
    return client


def _unreachable(library: Path, socket_path: Path, holder: dict[str, Any]) -> V2CError:
    pid = holder.get("pid", "unknown")
    return V2CError(
        "library-in-use",
        f"the library {library} is held by process {pid}, which does not answer on {socket_path}",
        f"wait for process {pid} to finish starting, or close it and try again",
        {"pid": pid, "library": str(library), "socket": str(socket_path)},
    )


async def elect(
    library: Path,
    socket_path: Path,
    *,
    make_target: Callable[[], Awaitable[T]],
    close_target: Callable[[T], Awaitable[None]],
    client_name: str,
    methods: frozenset[str] | None,
    timeout: float,
    on_clients_changed: Callable[[list[ConnectedClient]], None] | None = None,
) -> Elected[T]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay, holder = 0.02, {}
    while True:
        client = await _connect(socket_path, client_name)
        if client is not None:
            return Elected(client=client)
        try:
            target = await make_target()
        except V2CError as exc:
            if exc.code != "library-in-use":
                raise
            holder = exc.details or read_owner(library)
        else:
            server = OwnerServer(
                target, socket_path, methods=methods, on_clients_changed=on_clients_changed
            )
            try:
                await server.start()
            except BaseException:
                await close_target(target)
                raise
            return Elected(target=target, server=server)
        if loop.time() >= deadline:
            raise _unreachable(library, socket_path, holder)
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.25)
