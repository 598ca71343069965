"""Collection tools: named sets of videos an agent builds, fills and reads as one corpus.

Writes go through the library's owner like every other call, so two agents filling
collections at once (and the GUI showing them) never step on each other. Filling imports
what is new and reports every input: one that fails is listed under `failed` and the
others carry on.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.follow import FollowState
from v2c_desktop.core.domain.imports import ImportOutcome
from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.gather.collection import FillSummary, fill_collection
from v2c_desktop.core.gather.videos import InputFailure
from v2c_desktop.core.ids import youtube_id_from_url
from v2c_desktop.core.render.common import text_tokens

from ..deps import Deps
from ..inputs import RequiredCollection
from ..results import json_result, reads, writes
from ..tooling import Progress, add_tool
from ..views import collection_brief, summary_view

LIST_COLLECTIONS = """\
The library's collections: id, name, description, number of videos, sources they were filled
from. About 50 tokens per collection."""

CREATE_COLLECTION = """\
Create a named collection (its id is a slug of the name). Optional sources (playlists,
channels, folders) are imported into it now; a single video is not a source: add it with
add_to_collection. Returns the collection (and the import summary when sources were given)."""

ADD_TO_COLLECTION = """\
Add videos to a collection: library ids, URLs, files, playlists or folders (new ones are
imported now). Returns {collection, summary: {added, skipped, failed, remaining, checkedAt}};
one failing input never stops the others. Sends progress per input. A video or audio file
without a subtitle file beside it is transcribed on this computer (speech-to-text; a long
file takes minutes): its progress says the audio done, the speed and the time left.
Cancelling the call stops the transcription and saves nothing of that file."""

GET_COLLECTION = """\
A collection with its videos (title, URL, duration, caption origin, chapters and token count
each) and the total, so you can plan what to read; `watch`: the playlists, channels and feeds
it follows with its schedule and last check (null when it follows none), and `pending`: what
the last check found there but could not import, with why. About 80 tokens per video."""

REFRESH_COLLECTION = """\
Check the playlists, channels and feeds a collection follows (the ones it was filled from)
and import their new uploads only; videos already saved are filed without being fetched
again. Returns {collection, new, summary: {added, skipped, failed, remaining, checkedAt},
watch}. Sends progress per item. A collection filled from single videos follows nothing:
that is a bad-request error."""

WATCH_COLLECTION = """\
Refresh a collection on a schedule while the v2c desktop app runs: every `everyHours` hours
(0.25 to 720), or null to refresh only when asked. Returns {collection, watch} with the next
check's time."""

Name = Annotated[str, Field(min_length=1, max_length=200, description="The collection's name.")]
Description = Annotated[str | None, Field(description="What the collection is for.")]
Sources = Annotated[
    list[str] | None,
    Field(description="Playlists, channels, folders or URL-list files to import into it now."),
]
EveryHours = Annotated[
    float | None,
    Field(
        ge=0.25,
        le=720,
        description="Hours between two checks while the app runs; null: only when asked.",
    ),
]
Inputs = Annotated[
    list[str],
    Field(
        min_length=1,
        description="Videos to add: ids, URLs, YouTube ids, file paths, playlists, folders.",
    ),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def list_collections() -> CallToolResult:
        api = await deps.core()
        collections = await api.list_collections()
        return json_result({"collections": [collection_brief(c) for c in collections]})

    async def create_collection(
        ctx: Context[Any, Any],
        name: Name,
        description: Description = None,
        sources: Sources = None,
    ) -> CallToolResult:
        for source in sources or []:
            if youtube_id_from_url(source) and "list=" not in source:
                raise bad_request(
                    f"{source} is a single video, not a source",
                    "create the collection, then add videos with add_to_collection",
                )
        api = await deps.core()
        collection = await api.create_collection(name, description or "")
        out: dict[str, Any] = {"collection": collection_brief(collection)}
        if sources:
            out["summary"] = await _fill(deps, ctx, collection, sources)
            out["collection"] = collection_brief(await api.get_collection(collection.id))
        return json_result(out)

    async def add_to_collection(
        ctx: Context[Any, Any], collection: RequiredCollection, urls: Inputs
    ) -> CallToolResult:
        api = await deps.core()
        target = await api.get_collection(collection)
        summary = await _fill(deps, ctx, target, urls)
        return json_result({"collection": target.id, "summary": summary})

    async def get_collection(collection: RequiredCollection) -> CallToolResult:
        api = await deps.core()
        return json_result(await collection_view(api, await api.get_collection(collection)))

    async def refresh_collection(
        ctx: Context[Any, Any], collection: RequiredCollection
    ) -> CallToolResult:
        api = await deps.core()
        progress = Progress(ctx, 1)
        refreshed = await api.refresh_collection(
            collection, progress=progress.listener(0), agent=deps.settings().agents
        )
        await progress.drain()
        return json_result(
            {
                "collection": refreshed.state.collection_id,
                "new": refreshed.new,
                "summary": refresh_view(refreshed.result.outcomes, refreshed.state),
                "watch": watch_view(refreshed.state),
            }
        )

    async def watch_collection(
        collection: RequiredCollection,
        everyHours: EveryHours,
    ) -> CallToolResult:
        api = await deps.core()
        state = await api.set_follow_schedule(collection, everyHours)
        return json_result({"collection": state.collection_id, "watch": watch_view(state)})

    add_tool(
        server,
        refresh_collection,
        name="refresh_collection",
        description=REFRESH_COLLECTION,
        annotations=writes("Refresh collection", idempotent=True),
    )
    add_tool(
        server,
        watch_collection,
        name="watch_collection",
        description=WATCH_COLLECTION,
        annotations=writes("Watch collection", idempotent=True),
    )
    add_tool(
        server,
        list_collections,
        name="list_collections",
        description=LIST_COLLECTIONS,
        annotations=reads("List collections", open_world=False),
    )
    add_tool(
        server,
        create_collection,
        name="create_collection",
        description=CREATE_COLLECTION,
        annotations=writes("Create collection", idempotent=False),
    )
    add_tool(
        server,
        add_to_collection,
        name="add_to_collection",
        description=ADD_TO_COLLECTION,
        annotations=writes("Add to collection", idempotent=True),
    )
    add_tool(
        server,
        get_collection,
        name="get_collection",
        description=GET_COLLECTION,
        annotations=reads("Get collection", open_world=False),
    )


async def _fill(
    deps: Deps, ctx: Context[Any, Any], collection: Collection, inputs: list[str]
) -> dict[str, Any]:
    """Fill `collection` from `inputs` with progress per input; the spec's summary shape."""
    progress = Progress(ctx, len(inputs))
    return fill_view(await fill_collection(await deps.inputs(), collection, inputs, progress))


def fill_view(summary: FillSummary) -> dict[str, Any]:
    """`{added, skipped, failed, remaining, checkedAt}`, as `add_to_collection` returns it."""
    return {
        "added": [
            {
                "id": a.id,
                "title": a.summary.title if a.summary else "",
                "url": (a.summary.url or a.summary.source_path) if a.summary else "",
                "origin": a.summary.origin if a.summary else None,
            }
            for a in summary.added
        ],
        "skipped": [
            {"input": s.input, "id": s.video_id, "reason": s.reason} for s in summary.skipped
        ],
        "failed": [f.to_dict("agent") for f in summary.failed],
        "remaining": 0,
        "checkedAt": summary.checked_at.isoformat(timespec="seconds"),
    }


async def collection_view(api: CoreAPI, collection: Collection) -> dict[str, Any]:
    """The spec's collection shape: members with token counts, the total, missing ids."""
    summaries = {v.id: v for v in await api.list_videos(collection.id)}
    limiter = asyncio.Semaphore(8)

    async def tokens(video_id: str) -> int | None:
        async with limiter:
            try:
                record = await api.get_video(video_id)
            except V2CError:
                return None
        return text_tokens(record.transcript.segments)

    state = await api.follow_state(collection.id)
    present = [vid for vid in collection.video_ids if vid in summaries]
    counts = await asyncio.gather(*(tokens(vid) for vid in present))
    videos = [summary_view(summaries[vid], n) for vid, n in zip(present, counts, strict=True)]
    return {
        "collection": collection_brief(collection),
        "videos": videos,
        "totalTokens": sum(n or 0 for n in counts),
        "missing": [vid for vid in collection.video_ids if vid not in summaries],
        "pending": [
            {"input": p.input, "reason": p.reason, "seenAt": p.seen_at} for p in state.pending
        ],
        "watch": watch_view(state) if state.follows else None,
    }


def watch_view(state: FollowState) -> dict[str, Any]:
    """What the collection follows, its schedule and its last check (ISO times, UTC)."""
    return {
        "sources": state.sources,
        "everyHours": state.every_hours,
        "lastCheck": state.last_check or None,
        "nextCheck": state.next_check or None,
        "lastNew": state.last_new,
        "pending": len(state.pending),
    }


def refresh_view(outcomes: list[ImportOutcome], state: FollowState) -> dict[str, Any]:
    """A refresh's items in `add_to_collection`'s summary shape."""
    return {
        "added": [
            {"id": o.video_id, "title": o.title, "url": o.source}
            for o in outcomes
            if o.status in ("added", "updated")
        ],
        "skipped": [
            {"input": o.source, "id": o.video_id, "reason": o.reason}
            for o in outcomes
            if o.status == "skipped"
        ],
        "failed": [  # {input, code, message, hint}, as add_to_collection lists them
            InputFailure(o.source, o.error or V2CError("internal", o.reason or "failed")).to_dict(
                "agent"
            )
            for o in outcomes
            if o.status == "failed"
        ],
        "remaining": 0,
        "checkedAt": state.last_check,
    }
