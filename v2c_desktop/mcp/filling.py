"""Filling a collection from mixed inputs, one at a time, reporting each.

Inputs the library already holds (ids, known URLs, imported files) are added as they are; new
URLs, playlists, folders and files are imported straight into the collection. Every input
ends up in `added`, `skipped` (already a member) or `failed` with its code and hint: a bad
input is data for the agent, never a reason to stop the batch.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mcp.server.mcpserver import Context

from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.core.errors import V2CError, not_found

from .batch import Failure
from .deps import Deps, import_source
from .tooling import Progress


async def fill_collection(
    deps: Deps, ctx: Context[Any, Any] | None, collection: Collection, inputs: list[str]
) -> dict[str, Any]:
    """Add every input to `collection`; the summary the spec's `add_to_collection` returns."""
    api = await deps.core()
    members = set(collection.video_ids)
    progress = Progress(ctx, len(inputs))
    placed: list[str] = []
    skipped: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []

    def settle(source: str, video_id: str) -> None:
        if video_id in members:
            skipped.append({"input": source, "id": video_id, "reason": "already in the collection"})
        else:
            members.add(video_id)
            placed.append(video_id)

    for index, raw in enumerate(inputs):
        text = deps.absolute(raw)
        try:
            video_id = await _known(deps, text)
            if video_id is not None:
                await api.add_to_collection(collection.id, [video_id])
                settle(raw, video_id)
            else:
                source = import_source(text)
                if source is None:
                    raise not_found(
                        f"no video {raw!r} in the library, and it is not a URL or a file",
                        "pass a video id, a URL, a YouTube id or a path that exists",
                    )
                result = await api.add(
                    [source], collection=collection.id, progress=progress.listener(index)
                )
                for outcome in result.outcomes:
                    if outcome.status == "failed" or not outcome.video_id:
                        error = outcome.error or V2CError("internal", outcome.reason or "failed")
                        failed.append(Failure(outcome.source, error).to_dict())
                    else:
                        settle(outcome.source, outcome.video_id)
        except V2CError as error:
            failed.append(Failure(raw, error).to_dict())
        await progress.advance(index + 1, f"added {raw}")
    await progress.drain()
    summaries = {v.id: v for v in await api.list_videos(collection.id)}
    added = [
        {
            "id": vid,
            "title": summaries[vid].title if vid in summaries else "",
            "url": (summaries[vid].url or summaries[vid].source_path) if vid in summaries else "",
            "origin": summaries[vid].origin if vid in summaries else None,
        }
        for vid in placed
    ]
    return {
        "added": added,
        "skipped": skipped,
        "failed": failed,
        "remaining": 0,
        "checkedAt": datetime.now(UTC).isoformat(timespec="seconds"),
    }


async def _known(deps: Deps, text: str) -> str | None:
    """The id of a video the library already holds, or None when it does not."""
    api = await deps.core()
    try:
        return await api.resolve(text)
    except V2CError as error:
        if error.code == "not-found":
            return None
        raise
