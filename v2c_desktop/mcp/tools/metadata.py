"""`get_metadata`, `get_outline` and `list_formats`: what a video is before reading it.

These are the cheap calls an agent makes first: a few hundred tokens tell it the source,
how trustworthy the captions are, and what each chapter will cost to read, so it can plan
instead of pulling whole transcripts into its context.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult

from v2c_desktop.core.render import FORMATS

from ..deps import Deps
from ..inputs import Language, Url, languages
from ..results import imports, json_result, reads, structured_result
from ..schemas import FormatsOut, OutlineOut
from ..tooling import add_tool
from ..views import outline_view, video_metadata

GET_METADATA = """\
A video's metadata as JSON: id, title, channel, URL or file, duration, publish date,
description, how the transcript was made (origin, language, producer), its size in tokens,
and chapters with timestamp URLs. About 300-1500 tokens (the description is included)."""

GET_OUTLINE = """\
The plan for reading a video: its chapters (or ~5-minute sections when it has none) with
start times, timestamp URLs and the token count of each, plus the total. Read this first for
any video longer than a few minutes, then fetch only the parts you need with get_section.
About 100 tokens plus 30 per section."""

LIST_FORMATS = """\
The formats get_transcript and get_section can return (text, markdown, json, srt, vtt, ...),
with MIME type and file extension. About 200 tokens."""


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def get_metadata(
        ctx: Context[Any, Any], url: Url, language: Language = None
    ) -> CallToolResult:
        video_id = await deps.video_id(url, languages=languages(language), ctx=ctx)
        record = await (await deps.core()).get_video(video_id)
        return json_result(video_metadata(record))

    async def get_outline(
        ctx: Context[Any, Any], url: Url, language: Language = None
    ) -> Annotated[CallToolResult, OutlineOut]:
        video_id = await deps.video_id(url, languages=languages(language), ctx=ctx)
        record = await (await deps.core()).get_video(video_id)
        return structured_result(outline_view(record))

    async def list_formats() -> Annotated[CallToolResult, FormatsOut]:
        formats = [
            {
                "id": info.id,
                "description": info.description,
                "mimeType": info.mime_type,
                "extension": info.extension,
                "combinesVideos": False,
            }
            for info in FORMATS.values()
        ]
        return structured_result({"formats": formats})

    add_tool(
        server,
        get_metadata,
        name="get_metadata",
        description=GET_METADATA,
        annotations=imports("Get metadata"),
    )
    add_tool(
        server,
        get_outline,
        name="get_outline",
        description=GET_OUTLINE,
        annotations=imports("Get outline"),
    )
    add_tool(
        server,
        list_formats,
        name="list_formats",
        description=LIST_FORMATS,
        annotations=reads("List formats", open_world=False),
    )
