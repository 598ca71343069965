"""`export_context_pack`: several videos (or a collection) as one Markdown read under a budget."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.gather.pack import gather_pack
from v2c_desktop.core.render.pack import render_pack

from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..results import imports, text_result
from ..tooling import Progress, add_tool

DEFAULT_TOKENS, DEFAULT_LIMIT, MAX_LIMIT = 50_000, 20, 100

EXPORT_CONTEXT_PACK = f"""\
Several transcripts in one Markdown document that fits maxTokens (default {DEFAULT_TOKENS:,}):
a contents list, then each video with its source header and [m:ss] lines. Short videos come
whole; long ones are cut on a caption boundary with the cursor to read on. Inputs that could
not be read are listed under "Not included" with the reason; one bad input never fails the
pack. Sends progress per video. Costs up to maxTokens."""

PackTokens = Annotated[
    int,
    Field(ge=500, le=1_000_000, description="Token budget for the whole pack."),
]
PackLimit = Annotated[
    int,
    Field(ge=1, le=MAX_LIMIT, description=f"At most this many videos (max {MAX_LIMIT})."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def export_context_pack(
        ctx: Context[Any, Any],
        urls: UrlList = None,
        collection: CollectionRef = None,
        maxTokens: PackTokens = DEFAULT_TOKENS,
        limit: PackLimit = DEFAULT_LIMIT,
    ) -> CallToolResult:
        if not urls and not collection:
            raise bad_request("give urls or a collection", 'e.g. {"collection": "my-videos"}')
        progress = Progress(ctx, len(urls or []))
        pack = await gather_pack(
            await deps.inputs(), urls, collection, limit=limit, face="agent", progress=progress
        )
        return text_result(render_pack(pack.title, pack.records, pack.omitted, maxTokens))

    add_tool(
        server,
        export_context_pack,
        name="export_context_pack",
        description=EXPORT_CONTEXT_PACK,
        annotations=imports("Export context pack"),
    )
