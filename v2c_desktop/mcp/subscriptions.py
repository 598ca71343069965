"""`resources/subscribe`: a client hears when a resource it reads changes, whoever changed it.

Every write goes through the library's owner and is published on its change feed
(`CoreAPI.changes`; over the owner socket when another process owns the library), so an
import by the app, by `v2c add` or by another agent reaches this server as a change. While
anything is subscribed, one task reads that feed. A burst of changes to videos or
collections (an import writes a video, then its index and the collection) is gathered for
`SETTLE_S`; then every subscribed resource is read again, and where its content differs
from what was last read, its subscribers get `notifications/resources/updated`. Comparing
content keeps the notifications true: an import into another collection, a re-import that
changes nothing, or an index update notifies nobody. When the feed breaks (the owner went
away and another was elected) it is read again, and what changed meanwhile is caught by
the same comparison.

Subscriptions are kept per connection (an HTTP server has many clients); one whose
connection can no longer be written to is dropped. Subscribing to a resource that does not
exist is the protocol error reading it would be. This is the handshake protocol's
mechanism (2025-11-25); clients of the 2026-07-28 protocol listen with
`subscriptions/listen` instead, which this server does not feed yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    EmptyResult,
    InputRequiredResult,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)

from v2c_desktop.core.errors import V2CError

from .deps import Deps

if TYPE_CHECKING:
    from .server import V2CServer

log = logging.getLogger(__name__)

#: How long a burst of changes is gathered before subscribed resources are read again.
SETTLE_S = 0.2
#: How long to wait before reading the feed again after it broke.
RETRY_S = 1.0
#: The subjects whose changes can change a resource (the index, chats and briefs cannot).
WATCHED = frozenset({"video", "collection"})


@dataclass
class _Watched:
    """One subscribed URI: its content when last read, and who listens (per connection)."""

    content: list[Any] | None
    sessions: dict[int, Any] = field(default_factory=dict)


def _connection_key(session: Any) -> int:
    """The connection a request came over: a `ServerSession` is made per request, the
    connection under it lives as long as the client is connected."""
    return id(getattr(session, "_connection", session))


class Subscriptions:
    """The subscribed resources of one server and the task that watches the library."""

    def __init__(self, server: V2CServer, deps: Deps) -> None:
        self._server = server
        self._deps = deps
        self._watched: dict[str, _Watched] = {}
        self._follower: asyncio.Task[None] | None = None
        self._settling: asyncio.Task[None] | None = None
        self._dirty = False
        self.notified = 0  # notifications sent so far (for the log and tests)

    @property
    def uris(self) -> list[str]:
        return list(self._watched)

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        uri = str(params.uri)
        content = await self._read(uri)  # a resource that does not exist fails here
        watched = self._watched.setdefault(uri, _Watched(content))
        watched.sessions[_connection_key(ctx.session)] = ctx.session
        if self._follower is None or self._follower.done():
            self._follower = asyncio.get_running_loop().create_task(self._follow())
        return EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        uri = str(params.uri)
        watched = self._watched.get(uri)
        if watched is not None:
            watched.sessions.pop(_connection_key(ctx.session), None)
            if not watched.sessions:
                del self._watched[uri]
        if not self._watched:
            await self.aclose()
        return EmptyResult()

    async def aclose(self) -> None:
        """Stop watching (no subscriptions left, or the server is closing)."""
        for task in (self._follower, self._settling):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._follower = self._settling = None

    # -- reading ----------------------------------------------------------------------------
    async def _read(self, uri: str) -> list[Any]:
        """The resource's contents, or the protocol error its `resources/read` would be."""
        try:
            read = await self._server.read_resource(uri)
        except ResourceError as error:  # no resource or template matches the URI
            raise MCPError(INVALID_PARAMS, str(error), {"uri": uri}) from None
        if isinstance(read, InputRequiredResult):  # none of ours asks for input
            raise MCPError(INVALID_PARAMS, f"{uri} asks for input: it cannot be watched")
        return [(c.content, c.mime_type) for c in read]

    async def _read_now(self, uri: str) -> list[Any] | None:
        """The contents, or None when the resource cannot be read now (a removed collection
        reads as None: that is a change too)."""
        try:
            return await self._read(uri)
        except (MCPError, V2CError):
            return None

    # -- watching ---------------------------------------------------------------------------
    async def _follow(self) -> None:
        while self._watched:
            try:
                api = await self._deps.core()
                self._touch()  # what changed before the feed was (re)opened
                async for change in api.changes():
                    if change.subject in WATCHED:
                        self._touch()
            except asyncio.CancelledError:
                raise
            except V2CError as error:  # the owner went away: the next call re-elects one
                log.info("change feed interrupted (%s); reading it again", error.message)
            except Exception:  # a broken feed must not end the subscriptions
                log.exception("change feed failed; reading it again")
            await asyncio.sleep(RETRY_S)

    def _touch(self) -> None:
        self._dirty = True
        if self._settling is None or self._settling.done():
            self._settling = asyncio.get_running_loop().create_task(self._settle())

    async def _settle(self) -> None:
        while self._dirty:
            await asyncio.sleep(SETTLE_S)
            self._dirty = False
            await self._check()

    async def _check(self) -> None:
        """Read every subscribed resource again; notify the subscribers of each one that
        changed."""
        for uri, watched in list(self._watched.items()):
            content = await self._read_now(uri)
            if content == watched.content:
                continue
            watched.content = content
            for key, session in list(watched.sessions.items()):
                try:
                    await session.send_resource_updated(uri)
                    self.notified += 1
                except Exception:  # that client is gone
                    log.info("dropping a subscriber of %s: it cannot be notified", uri)
                    watched.sessions.pop(key, None)
            if not watched.sessions:
                self._watched.pop(uri, None)


def register(server: V2CServer, deps: Deps) -> None:
    subscriptions = Subscriptions(server, deps)
    server.add_request_handler(
        "resources/subscribe", SubscribeRequestParams, subscriptions.subscribe
    )
    server.add_request_handler(
        "resources/unsubscribe", UnsubscribeRequestParams, subscriptions.unsubscribe
    )
    server.closers.append(subscriptions.aclose)
