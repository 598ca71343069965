"""`get_transcript` and `get_section`: reading a video's words, whole, paged or in part.

Transcripts are long (about 12k tokens an hour), so both tools can return less than the
whole: pages cut on caption boundaries with a `seg:N` cursor, a chapter, or a time range.
Rendering is the core's (`render`, `paginate`, `select_section`), so the CLI, the GUI and
agents read a transcript the same way.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.render import (
    Section,
    format_id,
    outline,
    paginate,
    render,
    render_section,
    select_section,
)
from v2c_desktop.core.render.common import text_tokens
from v2c_desktop.core.render.section import overlapping

from ..deps import Deps
from ..inputs import Cursor, Format, Language, MaxTokens, Timestamps, Url, languages
from ..results import imports, text_result
from ..tooling import add_tool

GET_TRANSCRIPT = """\
The transcript of one video. Text format starts with a header (title, channel, URL, duration,
how the captions were made, chapters) followed by `[m:ss] line` rows you can cite. Costs about
12k tokens per hour of video: call get_outline first for long videos, or pass maxTokens to
read it in pages (each page ends with `[Partial transcript: ... next_cursor: seg:N]`; pass
cursor=seg:N with the same arguments for the next; the last page ends with
`[End of transcript: ...]`)."""

GET_SECTION = """\
One part of a video: a chapter (by number, or by title: exact, then prefix, then substring)
or a time range (from/to as seconds, m:ss or h:mm:ss). Text format gives the header, a line
`Section "title": m:ss to m:ss, about N tokens`, then the [m:ss] lines. Videos without
chapters have numbered ~5-minute sections (see get_outline). Costs only the section's tokens."""

Chapter = Annotated[
    int | str | None,
    Field(
        description="Chapter number (1-based, from get_outline) or title; leave out when "
        "giving from/to."
    ),
]
From = Annotated[
    str | float | None,
    Field(alias="from", description="Range start: seconds, m:ss or h:mm:ss (default 0:00)."),
]
To = Annotated[
    str | float | None,
    Field(alias="to", description="Range end: seconds, m:ss or h:mm:ss (default: the end)."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def get_transcript(
        ctx: Context[Any, Any],
        url: Url,
        format: Format = "text",
        timestamps: Timestamps = True,
        language: Language = None,
        maxTokens: MaxTokens = None,
        cursor: Cursor = None,
    ) -> CallToolResult:
        fmt = format_id(format)
        if cursor and not maxTokens:
            raise bad_request(
                "cursor goes with maxTokens", "pass the same maxTokens as for the first page"
            )
        record = await _record(deps, url, language, ctx)
        if maxTokens:
            page = paginate(record, fmt, max_tokens=maxTokens, cursor=cursor, timestamps=timestamps)
            return text_result(page.text)
        return text_result(render(record, fmt, timestamps=timestamps))

    async def get_section(
        ctx: Context[Any, Any],
        url: Url,
        start: From = None,
        end: To = None,
        chapter: Chapter = None,
        format: Format = "text",
        timestamps: Timestamps = True,
        language: Language = None,
    ) -> CallToolResult:
        fmt = format_id(format)
        record = await _record(deps, url, language, ctx)
        section = _section(record, chapter, start, end)
        return text_result(render_section(record, section, fmt, timestamps=timestamps))

    add_tool(
        server,
        get_transcript,
        name="get_transcript",
        description=GET_TRANSCRIPT,
        annotations=imports("Get transcript"),
    )
    add_tool(
        server,
        get_section,
        name="get_section",
        description=GET_SECTION,
        annotations=imports("Get section"),
        aliases={"from": "start", "to": "end"},
    )


async def _record(
    deps: Deps, url: str, language: str | None, ctx: Context[Any, Any]
) -> VideoRecord:
    video_id = await deps.video_id(url, languages=languages(language), ctx=ctx)
    return await (await deps.core()).get_video(video_id)


def _section(
    record: VideoRecord,
    chapter: int | str | None,
    start: str | float | None,
    end: str | float | None,
) -> Section:
    """`select_section`, plus numbered time sections for videos without chapters.

    The outline numbers ~5-minute sections when a video has no chapters, and an agent will
    pass those numbers back; refusing them would make the outline's advice a dead end.
    """
    if chapter is not None and not record.chapters and start is None and end is None:
        number = chapter if isinstance(chapter, int) else None
        if isinstance(chapter, str) and chapter.strip().isdigit():
            number = int(chapter.strip())
        sections = outline(record).sections
        if number is not None and 1 <= number <= len(sections):
            s = sections[number - 1]
            members = overlapping(record.transcript.segments, s.start, s.end)
            return Section(s.title, s.start, s.end, members, text_tokens(members), number)
    return select_section(record, chapter=chapter, start=start, end=end)
