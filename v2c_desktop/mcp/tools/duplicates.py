"""`find_duplicates`: which videos are re-uploads or clips of another, with the evidence.

The same detector briefs use to count independent sources once (`CoreAPI.find_duplicates`,
six-word-run containment), so an agent writing its own brief can do the same: each group
names its original (the longest video, the earliest of equals) and every copy with how much
text they share and where the copy sits in the original, as `[m:ss-m:ss]` and a link.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult

from v2c_desktop.core.domain.duplicates import DuplicateGroup
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.ids import timestamp_url
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..results import imports, structured_result
from ..schemas import DuplicatesOut
from ..tooling import Progress, add_tool

FIND_DUPLICATES = """\
Find re-uploads and clips among videos (urls, imported first if new) and/or a collection,
by their words: the detector briefs use to count each source once. Returns groups, each
with its original (longest, then earliest) and copies: kind (reupload or clip), overlap
(shared six-word runs over the shorter transcript), copyShare, originalShare, offsetSec (a
time t in the copy is t + offsetSec in the original), and where the copy's text sits in the
original as [m:ss-m:ss] with a timestamp link; plus independentSources (videos left when
each group counts once). Videos in no group are unique. About 150 tokens per copy."""


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def find_duplicates(
        ctx: Context[Any, Any],
        urls: UrlList = None,
        collection: CollectionRef = None,
    ) -> Annotated[CallToolResult, DuplicatesOut]:
        if not urls and not collection:
            raise bad_request(
                "give urls or a collection to compare",
                'e.g. {"collection": "my-videos"} or {"urls": ["<url>", "<url>"]}',
            )
        api = await deps.core()
        members: list[str] = []
        if collection:  # an unknown collection fails before anything is imported
            found = await api.get_collection(collection)
            collection, members = found.id, found.video_ids
        progress = Progress(ctx, len(urls or ()) + 1)
        gathered = await deps.read_urls(urls, progress, required=not collection)
        groups = await api.find_duplicates(gathered.video_ids, collection)
        await progress.advance(progress.total, "compared")
        compared = list(dict.fromkeys([*gathered.video_ids, *members]))
        records = {vid: await api.get_video(vid) for group in groups for vid in group.video_ids}
        copies = sum(len(g.copies) for g in groups)
        return structured_result(
            {
                "videos": len(compared),
                "independentSources": len(compared) - copies,
                "groups": [group_view(g, records) for g in groups],
                "failed": [f.to_dict("agent") for f in gathered.failures],
            }
        )

    add_tool(
        server,
        find_duplicates,
        name="find_duplicates",
        description=FIND_DUPLICATES,
        annotations=imports("Find duplicate videos"),
    )


def _video(record: VideoRecord) -> dict[str, Any]:
    video = record.video
    return {
        "id": video.id,
        "title": video.title or video.id,
        "url": video.url or None,
        "durationSec": round(record.duration, 1),
    }


def group_view(group: DuplicateGroup, records: dict[str, VideoRecord]) -> dict[str, Any]:
    original = records[group.original]
    return {
        "original": _video(original),
        "copies": [
            {
                **_video(records[c.video_id]),
                "kind": c.kind,
                "overlap": c.overlap,
                "copyShare": c.copy_share,
                "originalShare": c.original_share,
                "offsetSec": c.offset,
                "startSec": c.start,
                "endSec": c.end,
                "at": f"[{clock(c.start)}-{clock(c.end)}]",
                "link": timestamp_url(original.video, c.start) or None,
            }
            for c in group.copies
        ],
    }
