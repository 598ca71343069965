"""Many videos from a list of inputs and a collection: each resolved (or imported) on its own.

Everything that works over several videos shares this, so all agree on the rule that one
failing input never fails the batch: it becomes an `InputFailure` the caller reports, and the
others carry on. Progress goes out per input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..domain.videos import VideoRecord
from ..errors import Face, V2CError
from ..progress import ProgressCallback

if TYPE_CHECKING:
    from ..api import CoreAPI
    from .refs import InputResolver


class BatchProgress(Protocol):
    """Progress over `total` units, one per input; a face turns it into its own reports.

    `listener(index)` hears the core's events while input `index` is imported (a playlist),
    so one long input still shows movement; `advance(done, message)` says `done` units are
    finished; `drain` waits for reports still on their way, so none arrives after the result.
    `total` may grow once a collection's size is known.
    """

    total: int

    def listener(self, base: int) -> ProgressCallback: ...

    async def advance(self, done: float, message: str) -> None: ...

    async def drain(self) -> None: ...


@dataclass(frozen=True, slots=True)
class InputFailure:
    """An input that could not be read, and why."""

    input: str
    error: V2CError

    def to_dict(self, face: Face | None = None) -> dict[str, Any]:
        """`{input, code, message, hint}`, the hint worded for `face` (left out when empty)."""
        out: dict[str, Any] = {
            "input": self.input,
            "code": self.error.code,
            "message": self.error.message,
        }
        if self.error.hint:
            out["hint"] = self.error.hint_for(face)
        return out


@dataclass
class Gathered:
    """Video ids in input order without repeats, and the inputs that failed."""

    video_ids: list[str]
    failures: list[InputFailure]


async def gather_videos(
    resolver: InputResolver,
    inputs: Sequence[str] | None,
    collection: str | None,
    progress: BatchProgress | None = None,
) -> Gathered:
    """The videos of `collection`, then those `inputs` name (imported first when new).

    Progress advances one unit per input (the collection's members are not counted).
    """
    ids: list[str] = []
    failures: list[InputFailure] = []
    if collection:
        ids.extend((await resolver.api.get_collection(collection)).video_ids)
    for index, ref in enumerate(inputs or []):
        try:
            if progress is None:
                ids.append(await resolver.video_id(ref))
            else:
                ids.append(await resolver.video_id(ref, progress=progress.listener(index)))
        except V2CError as error:
            failures.append(InputFailure(ref, error))
        if progress is not None:
            await progress.advance(index + 1, f"read {ref}")
    return Gathered(list(dict.fromkeys(ids)), failures)


@dataclass
class Loaded:
    """The records read, in the order asked, and the ids that could not be read."""

    records: list[VideoRecord] = field(default_factory=list)
    failures: list[InputFailure] = field(default_factory=list)


async def load_records(
    api: CoreAPI,
    video_ids: Sequence[str],
    progress: BatchProgress | None = None,
    *,
    done: int = 0,
) -> Loaded:
    """Each video's record; one that cannot be read is a failure, never the end of the batch.

    Progress advances one unit per video, counting on from `done` units already finished.
    """
    loaded = Loaded()
    for video_id in video_ids:
        try:
            loaded.records.append(await api.get_video(video_id))
        except V2CError as error:
            loaded.failures.append(InputFailure(video_id, error))
        done += 1
        if progress is not None:
            await progress.advance(done, f"loaded {video_id}")
    return loaded
