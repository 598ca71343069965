"""Argument completions (`completion/complete`): what a client offers while the user types.

A prompt's `collection` argument completes to the library's collections and `video` to its
saved videos (the `digest` prompt has both; `brief` and `buyer_guide` take a collection
too); a resource template's `id` completes to collection ids or (URL-encoded) video ids. A
candidate matches when one of its forms (id, name or title, URL) starts with what was typed,
ignoring case, and the form that matched is what is offered. At most 100 values (the
protocol's cap), videos newest first, with the total and whether there are more. A library
that cannot be read completes to nothing, never to an error.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from v2c_desktop.core.errors import V2CError

from .deps import Deps

log = logging.getLogger(__name__)
MAX_VALUES = 100
COLLECTION_ARGS = frozenset({"collection"})
VIDEO_ARGS = frozenset({"video", "url"})


def matching(candidates: Iterable[Sequence[str]], typed: str) -> Completion:
    """The first form of each candidate that starts with `typed` (case ignored), once each."""
    prefix = typed.strip().casefold()
    found: list[str] = []
    for forms in candidates:
        hit = next((f for f in forms if f and f.casefold().startswith(prefix)), None)
        if hit is not None and hit not in found:
            found.append(hit)
    return Completion(values=found[:MAX_VALUES], total=len(found), has_more=len(found) > MAX_VALUES)


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def collections(typed: str) -> Completion:
        api = await deps.core()
        return matching(((c.id, c.name) for c in await api.list_collections()), typed)

    async def videos(typed: str, *, encoded: bool = False) -> Completion:
        api = await deps.core()
        listed = sorted(await api.list_videos(), key=lambda v: v.added_at, reverse=True)
        if encoded:  # a template's {id}: only ids, as the URI carries them
            return matching(((quote(v.id, safe=""), v.id) for v in listed), typed)
        return matching(((v.title, v.url, v.id) for v in listed), typed)

    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        try:
            if isinstance(ref, PromptReference):
                if argument.name in COLLECTION_ARGS:
                    return await collections(argument.value)
                if argument.name in VIDEO_ARGS:
                    return await videos(argument.value)
            elif isinstance(ref, ResourceTemplateReference) and argument.name == "id":
                if ref.uri.startswith("v2c://collection/"):
                    return await collections(argument.value)
                if ref.uri.startswith("v2c://video/"):
                    return await videos(argument.value, encoded=True)
        except V2CError as error:  # an empty list beats a failed completion
            log.warning("could not complete %s: %s", argument.name, error.message)
        return None

    # the SDK's decorator is untyped: registered by a call instead
    server.completion()(complete)  # type: ignore[no-untyped-call]
