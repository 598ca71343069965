"""`export_context_pack`: several videos (or a collection) as one Markdown read under a budget."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import V2CError, bad_request

from ..batch import gather_videos
from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..packing import Omitted, render_pack
from ..results import reads, text_result
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
        gathered = await gather_videos(deps, urls, collection, progress)
        omitted = [
            Omitted(f.input, f.error.code, f.error.message, f.error.hint_for("agent"))
            for f in gathered.failures
        ]
        ids = gathered.video_ids
        for extra in ids[limit:]:
            omitted.append(
                Omitted(extra, "limit", f"over the limit of {limit} videos", "raise limit")
            )
        ids = ids[:limit]
        done = progress.total if urls else 0
        progress.total = done + len(ids)
        api = await deps.core()
        records: list[VideoRecord] = []
        for video_id in ids:
            try:
                records.append(await api.get_video(video_id))
            except V2CError as error:
                omitted.append(
                    Omitted(video_id, error.code, error.message, error.hint_for("agent"))
                )
            done += 1
            await progress.advance(done, f"loaded {video_id}")
        await progress.drain()
        title = collection or f"{len(records)} videos"
        if collection:
            title = (await api.get_collection(collection)).name
        return text_result(render_pack(title, records, omitted, maxTokens))

    add_tool(
        server,
        export_context_pack,
        name="export_context_pack",
        description=EXPORT_CONTEXT_PACK,
        annotations=reads("Export context pack"),
    )
