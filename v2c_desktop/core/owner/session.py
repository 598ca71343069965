"""A library session: become the library's owner, or a client of the process that is.

The first process to open a library wins its lock (inside `make_target`, which opens the
real services) and serves them on the library's socket; everyone else connects and gets
a `RemoteProxy` that reads like the real object. When the owner goes away, the next call
re-elects: this process takes the lock and becomes the owner, or connects to whichever
process did, and then retries the call ONCE. Calls must therefore be idempotent to be
retried safely (reads are; an import re-run is skipped or updated; creating a collection
twice is refused by the store). A stream is retried only if it failed before its first
item; one that breaks midway raises `OwnerGone` and the caller decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, cast

from ..errors import V2CError
from .client import OwnerClient
from .connection import ConnectedClient
from .dispatch import MethodTable
from .election import elect
from .protocol import OwnerGone
from .proxy import RemoteProxy
from .runtime import socket_path_for
from .server import OwnerServer

T = TypeVar("T")
Role = Literal["owner", "client"]


async def close_target_default(target: object) -> None:
    """`await target.aclose()`, else `target.close()`: how services usually shut down."""
    closer = getattr(target, "aclose", None) or getattr(target, "close", None)
    if closer is not None:
        outcome = closer()
        if inspect.isawaitable(outcome):
            await outcome


class Session(Generic[T]):
    """This process's hold on one library, as its owner or as a client of the owner."""

    def __init__(
        self,
        library: Path,
        socket_path: Path,
        *,
        make_target: Callable[[], Awaitable[T]],
        close_target: Callable[[T], Awaitable[None]],
        client_name: str,
        methods: frozenset[str] | None,
        connect_timeout: float,
        on_clients_changed: Callable[[list[ConnectedClient]], None] | None = None,
    ) -> None:
        self.library = library
        self.socket_path = socket_path
        self.client_name = client_name
        self._make_target = make_target
        self._close_target = close_target
        self._methods = methods
        self._connect_timeout = connect_timeout
        self._on_clients_changed = on_clients_changed
        self._role: Role = "client"
        self._target: T | None = None
        self._table: MethodTable | None = None
        self._server: OwnerServer | None = None
        self._client: OwnerClient | None = None
        self._api: T | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    # -- what callers see --------------------------------------------------------------------
    @property
    def role(self) -> Role:
        return self._role

    @property
    def api(self) -> T:
        """The real object (owner) or a RemoteProxy standing in for it (client)."""
        assert self._api is not None, "open the session with open_session()"
        return self._api

    @property
    def server(self) -> OwnerServer | None:
        return self._server

    @property
    def owner_pid(self) -> int | None:
        if self._role == "owner":
            return os.getpid()
        return self._client.owner_pid if self._client is not None else None

    def clients(self) -> list[ConnectedClient]:
        """Processes using the library through us (empty unless we are the owner)."""
        return self._server.clients() if self._server is not None else []

    async def rename(self, client_name: str) -> None:
        """Be listed by the owner as `client_name` from now on (and after re-elections).
        Nothing to tell while this process is the owner."""
        self.client_name = client_name
        client = self._client
        if self._role == "client" and client is not None and not self._closed:
            with contextlib.suppress(V2CError):  # gone: the next call re-elects, with this name
                await client.rename(client_name)

    # -- election ---------------------------------------------------------------------------
    async def _elect(self) -> None:
        won = await elect(
            self.library,
            self.socket_path,
            make_target=self._make_target,
            close_target=self._close_target,
            client_name=self.client_name,
            methods=self._methods,
            timeout=self._connect_timeout,
            on_clients_changed=self._on_clients_changed,
        )
        if won.server is not None:
            self._target, self._server, self._table = won.target, won.server, won.server.table
            self._role = "owner"
        else:
            self._client, self._role = won.client, "client"

    async def _route(self) -> OwnerClient | None:
        """The client to send through, or None when this process is the owner."""
        if self._closed:
            raise V2CError("bad-request", f"the session on {self.library} is closed")
        if self._role == "client" and self._client is None:
            async with self._lock:
                if self._client is None and self._role == "client":
                    await self._elect()
        return None if self._role == "owner" else self._client

    async def _reelect(self, gone: OwnerClient) -> None:
        async with self._lock:
            if self._client is not gone or self._closed:
                return  # a concurrent call already re-elected
            self._client = None
            await gone.aclose()
            await self._elect()

    # -- calls (the RemoteProxy's Caller) ---------------------------------------------------
    def _local(self, method: str, args: tuple[Any, ...], params: dict[str, Any]) -> Any:
        assert self._table is not None
        return self._table.call_local(method, list(args), dict(params))

    async def call(self, method: str, /, *args: Any, **params: Any) -> Any:
        for attempt in (1, 2):
            client = await self._route()
            if client is None:
                outcome = self._local(method, args, params)
                if hasattr(outcome, "__anext__"):
                    await outcome.aclose()
                    raise V2CError("bad-request", f"{method} is a stream: use `async for`")
                return await outcome if inspect.isawaitable(outcome) else outcome
            try:
                return await client.call(method, *args, **params)
            except OwnerGone:
                if attempt == 2:
                    raise
                await self._reelect(client)
        raise AssertionError("unreachable")

    async def stream(self, method: str, /, *args: Any, **params: Any) -> AsyncIterator[Any]:
        for attempt in (1, 2):
            client = await self._route()
            if client is None:
                outcome = self._local(method, args, params)
                outcome = await outcome if inspect.isawaitable(outcome) else outcome
                if not hasattr(outcome, "__anext__"):
                    raise V2CError("bad-request", f"{method} is not a stream: await it")
                async with contextlib.aclosing(outcome) as items:
                    async for value in items:
                        yield value
                return
            started = False
            try:
                async with contextlib.aclosing(client.stream(method, *args, **params)) as items:
                    async for value in items:
                        started = True
                        yield value
                return
            except OwnerGone:
                if started or attempt == 2:
                    with contextlib.suppress(V2CError):
                        await self._reelect(client)
                    raise
                await self._reelect(client)

    # -- life cycle -------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Owner: stop serving, close the target, release the lock. Client: disconnect."""
        self._closed = True
        async with self._lock:
            server, self._server = self._server, None
            target, self._target = self._target, None
            client, self._client = self._client, None
            if server is not None:
                await server.aclose()
            if target is not None:
                await self._close_target(target)
            if client is not None:
                await client.aclose()

    async def __aenter__(self) -> Session[T]:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


async def open_session(
    library: Path,
    *,
    make_target: Callable[[], Awaitable[T]],
    client_name: str,
    close_target: Callable[[T], Awaitable[None]] | None = None,
    methods: frozenset[str] | None = None,
    runtime_dir: Path | None = None,
    connect_timeout: float = 5.0,
    on_clients_changed: Callable[[list[ConnectedClient]], None] | None = None,
) -> Session[T]:
    """Open `library` as its owner or as a client of its owner.

    `make_target` opens the real services and must raise V2CError("library-in-use") when
    another process holds the library's lock (`open_library` does); it is called again on
    every election attempt, so it should fail fast. `close_target` defaults to the
    target's `aclose()`/`close()`. `connect_timeout` bounds the wait for an owner that holds
    the lock but is not serving yet. `on_clients_changed` hears the connected clients
    whenever one arrives or leaves while this process is the owner (the GUI's list).
    """
    library = Path(library).expanduser().resolve()
    session: Session[T] = Session(
        library,
        socket_path_for(library, runtime_dir),
        make_target=make_target,
        close_target=close_target or close_target_default,
        client_name=client_name,
        methods=methods,
        connect_timeout=connect_timeout,
        on_clients_changed=on_clients_changed,
    )
    await session._elect()
    session._api = session._target if session._role == "owner" else cast(T, RemoteProxy(session))
    return session
