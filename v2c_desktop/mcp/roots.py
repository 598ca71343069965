"""The client's MCP roots: the folders the user shared with the agent through its client.

A client that declares the `roots` capability answers `roots/list` with `file://` URIs; an
agent's local paths are allowed inside those (and inside the folders of the user's setting
`agents.allowed_folders`). Roots can change during a session, so they are asked for when a
path needs checking, from the session of the request that carries the path:
`RootsMiddleware` keeps that session in a context variable for the request's handler.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.types import ClientCapabilities, RootsCapability

log = logging.getLogger(__name__)
ROOTS_TIMEOUT_S = 5.0

_session: contextvars.ContextVar[Any] = contextvars.ContextVar("v2c_mcp_session", default=None)


class RootsMiddleware(ServerMiddleware[Any]):
    """Makes the request's session available to `client_roots` while it is handled."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        token = _session.set(ctx.session)
        try:
            return await call_next(ctx)
        finally:
            _session.reset(token)


def root_path(uri: str) -> Path | None:
    """The local folder a `file://` root names; None for any other URI."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(parsed.path))
    return path if path.is_absolute() else None


async def client_roots() -> list[Path]:
    """The folders the current request's client shares as roots; none when it declares no
    roots capability, does not answer in time, or there is no request."""
    session = _session.get()
    if session is None:
        return []
    try:
        if not session.check_client_capability(ClientCapabilities(roots=RootsCapability())):
            return []
        with warnings.catch_warnings():  # roots are deprecated in the newest protocol only
            warnings.simplefilter("ignore")
            async with asyncio.timeout(ROOTS_TIMEOUT_S):
                listed = await session.list_roots()
    except Exception:  # a client that fails to answer shares no roots
        log.warning("could not list the client's roots", exc_info=True)
        return []
    found = [root_path(str(root.uri)) for root in listed.roots]
    return [path for path in found if path is not None]
