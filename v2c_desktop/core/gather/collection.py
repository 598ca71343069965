"""Filling a collection from mixed inputs, one at a time, reporting each.

Inputs the library already holds (ids, known URLs, imported files) are added as they are; new
URLs, playlists, folders and files are imported straight into the collection. Every input
ends up added, skipped (already a member) or failed with its code and hint: a bad input is
data for the caller, never a reason to stop the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..domain.videos import Collection, VideoSummary
from ..errors import V2CError, not_found
from .refs import import_source
from .videos import BatchProgress, InputFailure

if TYPE_CHECKING:
    from .refs import InputResolver

ALREADY_MEMBER = "already in the collection"


@dataclass(frozen=True, slots=True)
class AddedVideo:
    """A video placed in the collection; `summary` is None if it vanished meanwhile."""

    id: str
    summary: VideoSummary | None


@dataclass(frozen=True, slots=True)
class SkippedInput:
    input: str
    video_id: str
    reason: str = ALREADY_MEMBER


@dataclass
class FillSummary:
    """What became of every input, and when the collection was read back."""

    added: list[AddedVideo] = field(default_factory=list)
    skipped: list[SkippedInput] = field(default_factory=list)
    failed: list[InputFailure] = field(default_factory=list)
    checked_at: datetime = field(default_factory=lambda: datetime.now(UTC))


async def fill_collection(
    resolver: InputResolver,
    collection: Collection,
    inputs: Sequence[str],
    progress: BatchProgress | None = None,
) -> FillSummary:
    """Add every input to `collection`, importing what is new; one unit of progress each."""
    api = resolver.api
    members = set(collection.video_ids)
    placed: list[str] = []
    summary = FillSummary()

    def settle(source: str, video_id: str) -> None:
        if video_id in members:
            summary.skipped.append(SkippedInput(source, video_id))
        else:
            members.add(video_id)
            placed.append(video_id)

    for index, raw in enumerate(inputs):
        try:
            text = await resolver.prepare(raw)
            video_id = await resolver.known(text)
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
                result = await resolver.add(
                    source,
                    collection=collection.id,
                    progress=None if progress is None else progress.listener(index),
                )
                for outcome in result.outcomes:
                    if outcome.status == "failed" or not outcome.video_id:
                        error = outcome.error or V2CError("internal", outcome.reason or "failed")
                        summary.failed.append(InputFailure(outcome.source, error))
                    else:
                        settle(outcome.source, outcome.video_id)
        except V2CError as error:
            summary.failed.append(InputFailure(raw, error))
        if progress is not None:
            await progress.advance(index + 1, f"added {raw}")
    if progress is not None:
        await progress.drain()
    summaries = {v.id: v for v in await api.list_videos(collection.id)}
    summary.added = [AddedVideo(vid, summaries.get(vid)) for vid in placed]
    summary.checked_at = datetime.now(UTC)
    return summary
