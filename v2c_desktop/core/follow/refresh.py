"""One check of a collection's sources, and the checks that are due.

A refresh reads every followed source again (through the same import as `v2c add`, so
progress, cancelling, agent host limits and per-item reports all hold) with `new_only`: an
upload the library holds already is filed in the collection without being fetched again, a
new one is imported. What a source lists but could not be imported (no captions, a private
or removed video, the whole source unreachable) is kept as the collection's `pending`
inputs with the reason, until a later check brings it in.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..domain.follow import FollowState, RefreshResult
from ..domain.videos import Collection
from ..errors import bad_request
from ..progress import ProgressCallback, ignore_progress
from ..settings import AgentSettings

if TYPE_CHECKING:  # the library lives in the owner; the faces import this module's types only
    from ..library import Library

Clock = Callable[[], datetime]


def _now() -> datetime:
    return datetime.now(UTC)


NOTHING_FOLLOWED_HINT = (
    "a collection follows the playlists, channels and feeds it was filled from; "
    "{follow-source}, then refresh"
)


async def refresh_collection(
    library: Library,
    ref: str,
    *,
    progress: ProgressCallback = ignore_progress,
    agent: AgentSettings | None = None,
    clock: Clock = _now,
) -> RefreshResult:
    """Check the collection's followed sources once; new uploads are imported into it."""
    collection = await library.get_collection(ref)
    state = await _followed(library, collection)
    checked_at = clock()
    result = await library.add(
        state.sources, collection=collection.id, new_only=True, progress=progress, agent=agent
    )
    pending = [
        (o.source, o.reason or "not imported") for o in result.outcomes if o.status == "failed"
    ]
    await library.run_store(
        library.store.record_follow_check, collection.id, checked_at, result.count("added"), pending
    )
    return RefreshResult(await _state(library, collection.id), result)


async def _state(library: Library, collection_id: str) -> FollowState:
    return await library.run_store(library.store.follow_state, collection_id)


async def _followed(library: Library, collection: Collection) -> FollowState:
    """The collection's state; an error saying how to follow a source when it follows none."""
    state = await _state(library, collection.id)
    if not state.follows:
        raise bad_request(
            f"the collection {collection.name!r} follows no playlist, channel or feed",
            NOTHING_FOLLOWED_HINT,
        )
    return state


async def follow_state(library: Library, ref: str) -> FollowState:
    return await _state(library, (await library.get_collection(ref)).id)


async def set_schedule(
    library: Library, ref: str, every_hours: float | None, *, clock: Clock = _now
) -> FollowState:
    """Check the collection every `every_hours` while the app runs (None: only when asked)."""
    if every_hours is not None and not 0.25 <= every_hours <= 24 * 30:
        raise bad_request(
            f"cannot check every {every_hours:g} hours",
            "give a number of hours from 0.25 (15 minutes) to 720 (30 days), or turn it off",
        )
    collection = await library.get_collection(ref)
    if every_hours is not None:
        await _followed(library, collection)
    await library.run_store(library.store.set_follow_schedule, collection.id, every_hours, clock())
    return await _state(library, collection.id)


async def refresh_due(
    library: Library,
    *,
    progress: ProgressCallback = ignore_progress,
    clock: Clock = _now,
) -> list[RefreshResult]:
    """Refresh every scheduled collection whose next check has come, one after another."""
    due = await library.run_store(library.store.collections_due, clock())
    return [await refresh_collection(library, cid, progress=progress, clock=clock) for cid in due]
