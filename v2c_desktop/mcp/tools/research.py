"""`research_videos`: what a few given videos say about a question, as excerpts to cite.

For videos the agent has just found (a search result page, links a user pasted), saved or
not: each is imported first (saved like every other read), then searched on its own with the
library's hybrid search, so every video gets its best passages. Each excerpt carries the
hit, `contextSec` seconds of transcript before and after it as `[m:ss]` lines, and a
timestamp link, so the agent can quote and cite without reading whole transcripts.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.ids import timestamp_url
from v2c_desktop.core.render.section import overlapping
from v2c_desktop.core.search.request import SearchHit, SearchRequest
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import VIDEO_FORMS
from ..results import imports, structured_result
from ..schemas import ResearchOut
from ..tooling import Progress, add_tool
from .search import status_line

MAX_VIDEOS = 10
DEFAULT_CONTEXT_SEC, MAX_CONTEXT_SEC = 30.0, 300.0
DEFAULT_EXCERPTS, MAX_EXCERPTS = 3, 20

RESEARCH_VIDEOS = f"""\
Research a question in 1 to {MAX_VIDEOS} given videos, saved in the library or not (new ones
are imported and saved first; sends progress per video). Each video is searched on its own
(hybrid: by meaning and by keyword) and returns up to maxExcerpts ranked excerpts (default
{DEFAULT_EXCERPTS}): the hit's [m:ss-m:ss], timestamp link, text and **marked** snippet, plus
contextSec seconds (default {DEFAULT_CONTEXT_SEC:.0f}) of transcript before and after as
[m:ss] lines to quote from. About 150 tokens per excerpt plus its context (speech is about
200 tokens a minute). For the whole library use search_transcript instead."""

ResearchUrls = Annotated[
    list[str],
    Field(
        min_length=1,
        max_length=MAX_VIDEOS,
        description=f"1 to {MAX_VIDEOS} videos, each {VIDEO_FORMS}. Videos not in the library "
        "yet are imported (and saved) first.",
    ),
]
Query = Annotated[
    str,
    Field(
        min_length=1,
        description='What to look for: words, "exact phrases", -excluded words or -"phrases".',
    ),
]
ContextSec = Annotated[
    float,
    Field(
        ge=0,
        le=MAX_CONTEXT_SEC,
        description="Seconds of transcript to include before and after each hit "
        f"(default {DEFAULT_CONTEXT_SEC:.0f}, max {MAX_CONTEXT_SEC:.0f}).",
    ),
]
MaxExcerpts = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_EXCERPTS,
        description=f"At most this many excerpts per video (default {DEFAULT_EXCERPTS}).",
    ),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def research_videos(
        ctx: Context[Any, Any],
        urls: ResearchUrls,
        query: Query,
        contextSec: ContextSec = DEFAULT_CONTEXT_SEC,
        maxExcerpts: MaxExcerpts = DEFAULT_EXCERPTS,
    ) -> Annotated[CallToolResult, ResearchOut]:
        if len(urls) > MAX_VIDEOS:  # the schema says so too; a client may not check it
            raise bad_request(f"at most {MAX_VIDEOS} urls", "split the videos over several calls")
        progress = Progress(ctx, 2 * len(urls))
        gathered = await deps.read_urls(urls, progress)
        api = await deps.core()
        videos: list[dict[str, Any]] = []
        status = ""
        for n, video_id in enumerate(gathered.video_ids, start=1):
            result = await api.search(
                SearchRequest(query=query, limit=min(2 * maxExcerpts, 100), video_ids=(video_id,))
            )
            status = status or status_line(result.meta)
            record = await api.get_video(video_id)
            hits = distinct(result.hits)[:maxExcerpts]
            videos.append(research_view(record, hits, contextSec))
            await progress.advance(len(urls) + n, f"searched {record.video.title or video_id}")
        return structured_result(
            {
                "query": query,
                "videos": videos,
                "failed": [f.to_dict("agent") for f in gathered.failures],
                "search": status,
            }
        )

    add_tool(
        server,
        research_videos,
        name="research_videos",
        description=RESEARCH_VIDEOS,
        annotations=imports("Research videos"),
    )


def distinct(hits: list[SearchHit]) -> list[SearchHit]:
    """The hits in rank order, leaving out any that overlaps a better one in time."""
    kept: list[SearchHit] = []
    for hit in hits:
        if all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    return kept


def research_view(record: VideoRecord, hits: list[SearchHit], context_sec: float) -> dict[str, Any]:
    video = record.video
    title = video.title or video.id
    segments = record.transcript.segments
    excerpts = []
    for rank, hit in enumerate(hits, start=1):
        start = max(hit.start - context_sec, 0.0)
        around = overlapping(segments, start, hit.end + context_sec) or overlapping(
            segments, hit.start, hit.end
        )
        excerpts.append(
            {
                "rank": rank,
                "videoId": video.id,
                "title": title,
                "startSec": round(hit.start, 3),
                "endSec": round(hit.end, 3),
                "at": f"[{clock(hit.start)}-{clock(hit.end)}]",
                "link": hit.url or timestamp_url(video, hit.start) or None,
                "text": hit.text,
                "snippet": hit.snippet,
                "contextStartSec": round(around[0].start if around else hit.start, 3),
                "contextEndSec": round(around[-1].end if around else hit.end, 3),
                "context": "\n".join(
                    f"[{clock(s.start)}] {' '.join(s.text.split())}"
                    for s in around
                    if s.text.strip()
                ),
            }
        )
    return {
        "id": video.id,
        "title": title,
        "url": video.url or None,
        "channel": video.channel,
        "durationSec": round(record.duration, 1),
        "excerpts": excerpts,
    }
