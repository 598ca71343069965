"""The MCP server over one library: the tool groups, resources and prompts, wired in one place.

`build_server(deps, transport)` holds no transport code, so the stdio entry point and the
HTTP one (`mcp/http/`) serve the same tools. Everything is registered through
`REGISTRATIONS`: a new tool group (briefs, extraction, export) is a module with
`register(server, deps)` and one line here.

`V2CServer` adds three things to the SDK's server: failures the SDK raises itself (an
unknown tool, arguments that do not match the schema) come back as `isError` results with
the same JSON body as ours; `resources/list` lists the library's videos and collections
live; and over HTTP, the tools that write the user's own files (`USER_FILE_TOOLS`) are
left out of `tools/list` and refused if called. A stdio server is an agent the user set up
on this computer; an HTTP one answers whoever holds a token, possibly from elsewhere.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, Resource, Tool

from v2c_desktop import __version__
from v2c_desktop.core.errors import V2CError, bad_request

from . import completions, prompts, resources, subscriptions
from .client_info import ClientNameMiddleware
from .deps import Deps
from .results import error_result, internal_error
from .roots import RootsMiddleware
from .tools import (
    ask,
    briefs,
    captions,
    collections,
    comments,
    digest,
    duplicates,
    export,
    items,
    live,
    metadata,
    models,
    moments,
    notion,
    pack,
    research,
    search,
    sponsor,
    transcripts,
    viewer,
)

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
v2c is a local library of video transcripts (YouTube and other sites, local subtitle files).
Read cheaply: get_outline or get_collection first (token counts), then get_section or
search_transcript, and whole transcripts (get_transcript, paged with maxTokens) only when
they fit. Cite every claim as [Video title @ m:ss](timestamp link). The prompts brief and
buyer_guide describe how to write a cited document; digest_videos has your own model write a
cited digest through MCP sampling (every quote verified), or returns a plan to write it.
Videos given by URL or file path that are not in the library are imported first. Local files
are read only inside the folders the user allows (and the roots your client shares); URLs
must be public web addresses."""


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
    notion.register,
    duplicates.register,
    research.register,
    moments.register,
    live.register,
    viewer.register,
    captions.register,
    sponsor.register,
    comments.register,
    digest.register,
    completions.register,
    subscriptions.register,
)

ResourceLister = Callable[[], Awaitable[list[Resource]]]
Transport = Literal["stdio", "http"]

#: Tools that write the user's own things outside the library (the Obsidian vault, their
#: Notion workspace with their token): served over stdio only. Every other tool writes only
#: into the library (collections, chats, briefs, imports); a new tool that writes elsewhere
#: belongs here.
USER_FILE_TOOLS = frozenset({"export_obsidian", "export_notion"})


def local_only(name: str) -> V2CError:
    """The refusal of a tool that writes the user's files, to a client over HTTP."""
    return bad_request(
        f"{name} writes the user's own files or pages, so this server does not offer it over HTTP",
        "ask the user to run it from the v2c app or the `v2c` command line, or to connect "
        "you through the stdio server (`v2c mcp`) instead",
    )


class V2CServer(MCPServer[None]):
    """The SDK server with JSON errors for the SDK's own refusals, live resource lists and,
    over HTTP, no tools that write the user's files."""

    def __init__(self, deps: Deps, transport: Transport = "stdio") -> None:
        # over stdio the owner lists the agent by the name its client sends; one HTTP server
        # serves many clients, so it keeps its own; paths are checked against the roots
        middleware: list[Any] = [RootsMiddleware()]
        if transport == "stdio":
            middleware.insert(0, ClientNameMiddleware(deps))
        super().__init__(
            name="v2c",
            title="v2c video library",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
            lifespan=_lifespan(deps),
            middleware=middleware,
        )
        self.deps = deps
        self.transport = transport
        self.refused = USER_FILE_TOOLS if transport == "http" else frozenset()
        self._listers: list[ResourceLister] = []
        #: run when the server stops, before the library is closed (`subscriptions`)
        self.closers: list[Callable[[], Awaitable[None]]] = []

    def add_request_handler(
        self, method: str, params_type: type[Any], handler: Callable[..., Awaitable[Any]]
    ) -> None:
        """Serve a protocol request the SDK's server has no decorator for
        (`resources/subscribe`); the capability it implies is advertised with it."""
        self._lowlevel_server.add_request_handler(method, params_type, handler)

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

    async def list_tools(self) -> list[Tool]:
        return [tool for tool in await super().list_tools() if tool.name not in self.refused]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[None, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name in self.refused:
            return error_result(local_only(name))
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
    async def lifespan(server: Any) -> AsyncIterator[None]:
        try:
            await deps.core()
        except V2CError as error:
            log.warning("library not open yet: %s (%s)", error.message, error.hint)
        try:
            yield None
        finally:
            for close in getattr(server, "closers", ()):
                await close()
            await deps.aclose()

    return lifespan


def build_server(deps: Deps, transport: Transport = "stdio") -> V2CServer:
    server = V2CServer(deps, transport)
    for register in REGISTRATIONS:
        register(server, deps)
    return server
