"""The MCP server over one library: the tool groups, resources and prompts, wired in one place.

`build_server(deps)` holds no transport code, so the stdio entry point (and a later HTTP
one) serve the same tools. Everything is registered through `REGISTRATIONS`: a new tool
group (briefs, extraction, export) is a module with `register(server, deps)` and one line
here.

`V2CServer` adds two things to the SDK's server: failures the SDK raises itself (an unknown
tool, arguments that do not match the schema) come back as `isError` results with the same
JSON body as ours, and `resources/list` lists the library's videos and collections live.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, Resource

from v2c_desktop import __version__
from v2c_desktop.core.errors import V2CError, bad_request

from . import prompts, resources
from .client_info import ClientNameMiddleware
from .deps import Deps
from .results import error_result, internal_error
from .roots import RootsMiddleware
from .tools import (
    ask,
    briefs,
    collections,
    duplicates,
    export,
    items,
    metadata,
    models,
    pack,
    research,
    search,
    transcripts,
)

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
v2c is a local library of video transcripts (YouTube and other sites, local subtitle files).
Read cheaply: get_outline or get_collection first (token counts), then get_section or
search_transcript, and whole transcripts (get_transcript, paged with maxTokens) only when
they fit. Cite every claim as [Video title @ m:ss](timestamp link). The prompts brief and
buyer_guide describe how to write a cited document. Videos given by URL or file path that
are not in the library are imported first. Local files are read only inside the folders the
user allows (and the roots your client shares); URLs must be public web addresses."""


class Registration(Protocol):
    def __call__(self, server: Any, deps: Deps) -> None: ...


REGISTRATIONS: tuple[Registration, ...] = (
    transcripts.register,
    metadata.register,
    items.register,
    pack.register,
    search.register,
    ask.register,
    models.register,
    collections.register,
    resources.register,
    prompts.register,
    briefs.register,
    export.register,
    duplicates.register,
    research.register,
)

ResourceLister = Callable[[], Awaitable[list[Resource]]]


class V2CServer(MCPServer[None]):
    """The SDK server with JSON errors for the SDK's own refusals and live resource lists."""

    def __init__(self, deps: Deps) -> None:
        super().__init__(
            name="v2c",
            title="v2c video library",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
            lifespan=_lifespan(deps),
            # the owner lists the agent by its name; its paths are checked against its roots
            middleware=[ClientNameMiddleware(deps), RootsMiddleware()],
        )
        self.deps = deps
        self._listers: list[ResourceLister] = []

    def add_resource_lister(self, lister: ResourceLister) -> None:
        """Add resources computed on each `resources/list` (the library changes under us)."""
        self._listers.append(lister)

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        for lister in self._listers:
            try:
                listed.extend(await lister())
            except V2CError as error:  # an empty list beats a failed listing
                log.warning("could not list resources: %s", error.message)
        return listed

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[None, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            log.exception("tool %s failed", name)
            return error_result(internal_error(exc))
        except ToolError as exc:
            message = str(exc)
            if message.startswith("Unknown tool"):
                return error_result(
                    V2CError("not-found", message, "call tools/list for the tools this server has")
                )
            return error_result(
                bad_request(message, "check the arguments against the tool's input schema")
            )


def _lifespan(deps: Deps) -> Callable[[Any], Any]:
    """Open the library when the server starts; close it (and stop serving it) at the end.

    A library that cannot be opened now is not fatal: the next tool call tries again and,
    if it fails too, returns the reason as an error result.
    """

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[None]:
        try:
            await deps.core()
        except V2CError as error:
            log.warning("library not open yet: %s (%s)", error.message, error.hint)
        try:
            yield None
        finally:
            await deps.aclose()

    return lifespan


def build_server(deps: Deps) -> V2CServer:
    server = V2CServer(deps)
    for register in REGISTRATIONS:
        register(server, deps)
    return server
