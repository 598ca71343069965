"""`get_skip_segments`: SponsorBlock's segments of a YouTube video, to skip or leave uncited.

Sponsor reads, self-promotion, reminders to subscribe, intros and outros say nothing about
the video's subject; an agent citing a video can leave them out. Each segment comes as
`[m:ss-m:ss]` with a timestamp link, its category and votes, and the share of the transcript
it covers. The video is imported first like every read, and its segments are kept in the
library (`CoreAPI.get_skip_segments`), so asking again costs no request to SponsorBlock.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.domain.skips import (
    CATEGORIES,
    CATEGORY_LABELS,
    SHARE_MEANING,
    SkipSegments,
    check_categories,
)
from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.errors import unsupported_input
from v2c_desktop.core.ids import is_web, timestamp_url, youtube_id_from_url
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import Url
from ..results import imports, structured_result
from ..schemas import SkipSegmentsOut
from ..tooling import add_tool

GET_SKIP_SEGMENTS = """\
SponsorBlock's skip segments of a YouTube video (imported first if new): sponsor reads,
self-promotion, interaction reminders, intros, outros, previews, non-music parts and filler.
Each segment: [m:ss-m:ss], timestamp link, category, votes, locked, and share (the part of
the transcript's spoken time inside it). Use it to leave sponsor reads out of what you quote.
Asked once per video (SponsorBlock sees only a 4-character hash prefix of its id) and kept in
the library; refresh asks again. About 60 tokens per segment plus 150."""

Categories = Annotated[
    list[str] | None,
    Field(
        description="Only these categories: "
        + ", ".join(f"{c} ({CATEGORY_LABELS[c]})" for c in CATEGORIES)
        + ". Leave out for all of them."
    ),
]
Refresh = Annotated[
    bool,
    Field(
        description="Ask SponsorBlock again even when the library holds this video's "
        "segments (new ones may have been submitted); the answer replaces the kept ones."
    ),
]
NOT_A_VIDEO_HINT = (
    "SponsorBlock lists segments of single YouTube videos only: pass a YouTube watch URL "
    "(https://www.youtube.com/watch?v=...), a youtu.be link, a YouTube id or a library id."
)


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def get_skip_segments(
        ctx: Context[Any, Any],
        url: Url,
        categories: Categories = None,
        refresh: Refresh = False,
    ) -> Annotated[CallToolResult, SkipSegmentsOut]:
        wanted = list(check_categories(categories))  # a wrong category fails before any import
        if is_web(url.strip()) and youtube_id_from_url(url) is None:
            raise unsupported_input(f"{url[:200]!r} is not a YouTube video", NOT_A_VIDEO_HINT)
        video_id = await deps.video_id(url, ctx=ctx)
        api = await deps.core()
        found = await api.get_skip_segments(video_id, wanted, refresh)
        record = await api.get_video(video_id)
        return structured_result(skips_view(found, record.video))

    add_tool(
        server,
        get_skip_segments,
        name="get_skip_segments",
        description=GET_SKIP_SEGMENTS,
        annotations=imports("Get skip segments"),
    )


def skips_view(found: SkipSegments, video: Video) -> dict[str, Any]:
    segments = [
        {
            "at": f"[{clock(s.start)}-{clock(s.end)}]",
            "startSec": s.start,
            "endSec": s.end,
            "link": timestamp_url(video, s.start) or None,
            "category": s.category,
            "votes": s.votes,
            "locked": s.locked,
            "share": s.share,
            "uuid": s.uuid,
            "description": s.description or None,
        }
        for s in found.segments
    ]
    asked = "these categories" if found.categories != CATEGORIES else "any category"
    if found.segments:
        note = (
            f"{len(segments)} segment(s) cover {found.share:.1%} of what is said. "
            + ("Read from the library" if found.from_library else "Asked SponsorBlock")
            + f" (fetched {found.fetched_at}); pass refresh: true for newer submissions."
        )
    else:
        note = f"SponsorBlock lists no segments of {asked} for this video."
    return {
        "video": {"id": video.id, "title": video.title or video.id, "url": video.url or None},
        "youtubeId": found.youtube_id,
        "categories": list(found.categories),
        "segments": segments,
        "share": found.share,
        "shareMeaning": SHARE_MEANING,
        "spokenSec": found.spoken_seconds,
        "fetchedAt": found.fetched_at,
        "fromLibrary": found.from_library,
        "note": note,
    }
