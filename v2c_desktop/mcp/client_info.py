"""Who the agent is: the name its MCP client sends, passed on to the library's owner.

An MCP client says who it is in `initialize` (`clientInfo`: name, version, and since
2025-06 an optional display `title`); on the 2026-07-28 protocol each request's envelope
carries it instead. `ClientNameMiddleware` watches every message until it has seen one,
then `Deps.name_client` tells the owner, so the app lists "Claude Desktop 1.2" instead of
"v2c mcp (4242)". The rename is sent off the handshake (`initialize` is handled inline and
must not wait on anything).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext

if TYPE_CHECKING:
    from .deps import Deps

log = logging.getLogger(__name__)
NAME_LIMIT = 80


def agent_name(info: Mapping[str, Any] | None) -> str:
    """ "Claude Desktop 1.2" from `{"name": "claude-ai", "title": "Claude Desktop",
    "version": "1.2"}`: the title (else the name) and the version, on one printable line;
    empty when the client sent neither."""
    if not isinstance(info, Mapping):
        return ""
    label = info.get("title") or info.get("name") or ""
    version = info.get("version") or ""
    text = " ".join(f"{label} {version}".split()) if label else ""
    text = "".join(c for c in text if c.isprintable())
    return text[:NAME_LIMIT].strip()


def _info_of(ctx: ServerRequestContext[Any, Any]) -> Mapping[str, Any] | None:
    params = ctx.session.client_params
    if params is not None and params.client_info is not None:
        return params.client_info.model_dump(exclude_none=True)
    if ctx.method == "initialize" and isinstance(ctx.params, Mapping):
        raw = ctx.params.get("clientInfo")  # not committed until the handshake returns
        return raw if isinstance(raw, Mapping) else None
    return None


class ClientNameMiddleware(ServerMiddleware[Any]):
    """Hands the client's name to `deps` once, from the first message that carries it."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.named = False
        self._task: asyncio.Task[None] | None = None

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if not self.named:
            try:
                name = agent_name(_info_of(ctx))
            except Exception:  # a strange clientInfo must never fail the request
                log.debug("could not read clientInfo", exc_info=True)
                name = ""
            if name:
                self.named = True
                self._task = asyncio.get_running_loop().create_task(self.deps.name_client(name))
        return await call_next(ctx)
