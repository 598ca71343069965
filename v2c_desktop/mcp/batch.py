"""Many videos from `urls` and `collection`: each resolved (or imported) on its own.

Multi-video tools (`export_context_pack`, `search_transcript`, `ask`) share this, so they
agree on the rule that one failing input never fails the batch: it becomes a `Failure` the
tool reports, and the others carry on. Progress goes out per input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from v2c_desktop.core.errors import V2CError

from .deps import Deps
from .tooling import Progress


@dataclass(frozen=True, slots=True)
class Failure:
    input: str
    error: V2CError

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "input": self.input,
            "code": self.error.code,
            "message": self.error.message,
        }
        if self.error.hint:
            out["hint"] = self.error.hint_for("agent")
        return out


@dataclass
class Gathered:
    """Video ids in input order without repeats, and the inputs that failed."""

    video_ids: list[str]
    failures: list[Failure]


async def gather_videos(
    deps: Deps,
    urls: list[str] | None,
    collection: str | None,
    progress: Progress | None = None,
) -> Gathered:
    """The videos named by `urls` (imported first when new) and by `collection`."""
    ids: list[str] = []
    failures: list[Failure] = []
    if collection:
        api = await deps.core()
        ids.extend((await api.get_collection(collection)).video_ids)
    for index, ref in enumerate(urls or []):
        listener = progress.listener(index) if progress is not None else None
        try:
            if listener is None:
                ids.append(await deps.video_id(ref))
            else:
                ids.append(await deps.video_id(ref, progress=listener))
        except V2CError as error:
            failures.append(Failure(ref, error))
        if progress is not None:
            await progress.advance(index + 1, f"read {ref}")
    return Gathered(list(dict.fromkeys(ids)), failures)
