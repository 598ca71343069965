"""What a context pack holds: the videos read, what was left out and why, and its title.

The inputs are gathered (new ones imported), at most `limit` videos are read, and every
input that did not make it is kept as an `Omitted` line, so the pack (`core.render.pack`)
says what is missing instead of dropping it quietly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..domain.videos import VideoRecord
from ..errors import Face
from ..render.pack import Omitted
from .videos import BatchProgress, InputFailure, gather_videos, load_records

if TYPE_CHECKING:
    from .refs import InputResolver


@dataclass(frozen=True, slots=True)
class PackContents:
    """The arguments of `render_pack`: title, records in input order, omitted inputs."""

    title: str
    records: list[VideoRecord]
    omitted: list[Omitted]


def omitted(failure: InputFailure, face: Face | None) -> Omitted:
    """A failed input as a "Not included" line, its hint worded for `face`."""
    error = failure.error
    return Omitted(failure.input, error.code, error.message, error.hint_for(face))


async def gather_pack(
    resolver: InputResolver,
    inputs: Sequence[str] | None,
    collection: str | None,
    *,
    limit: int,
    face: Face | None = None,
    progress: BatchProgress | None = None,
) -> PackContents:
    """Gather `collection` and `inputs`, read the first `limit` videos, note the rest.

    Progress: one unit per input, then (`total` grown to fit) one per video read.
    """
    gathered = await gather_videos(resolver, inputs, collection, progress)
    left_out = [omitted(f, face) for f in gathered.failures]
    ids = gathered.video_ids
    for extra in ids[limit:]:
        left_out.append(Omitted(extra, "limit", f"over the limit of {limit} videos", "raise limit"))
    ids = ids[:limit]
    done = 0
    if progress is not None:
        done = progress.total if inputs else 0
        progress.total = done + len(ids)
    loaded = await load_records(resolver.api, ids, progress, done=done)
    left_out.extend(omitted(f, face) for f in loaded.failures)
    if progress is not None:
        await progress.drain()
    title = collection or f"{len(loaded.records)} videos"
    if collection:
        title = (await resolver.api.get_collection(collection)).name
    return PackContents(title, loaded.records, left_out)
