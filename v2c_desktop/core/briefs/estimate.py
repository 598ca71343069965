"""What a brief would cost, before it starts: videos, hours, transcript tokens, one pass or
map-reduce, model calls, and a rough time on this machine.

The scope, the duplicate merging, the model chain and the per-call budget are the ones
`BriefService.build` uses, so the estimate names the pass the build will really take. The
time is honest about what is known: model writing time comes from the model's measured
generation speed (`test_model`), or an estimate from another measured local model; how
long the model takes to read its prompt is not measured, so the time is a floor, said as
such, and with no speed at all it is "unknown".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from ..domain.models import ModelList, ModelRow
from .events import BriefEstimate, BriefRequest
from .generate import ANSWER_TOKENS, CLAIM_TOKENS, MAP_ANSWER_TOKENS, source_budget
from .sources import BriefSource, chunks_of, number_sources

if TYPE_CHECKING:
    from ..models.types import ChatModel
    from .service import BriefService

#: A map call usually writes well under its cap: about this many claims' worth of tokens.
MAP_CLAIMS_GUESS = 6
#: An answer usually writes about this share of its token cap.
ANSWER_SHARE = 0.6


async def estimate_brief(
    briefs: BriefService, models: ModelList | None, request: BriefRequest
) -> BriefEstimate:
    """The estimate for `request` (the same `V2CError`s a build of it would raise first)."""
    records, chain, why = await briefs.prepare(request)
    return plan(number_sources(records), len(records), chain, models, why)


def plan(
    sources: Sequence[BriefSource],
    scoped: int,
    chain: Sequence[ChatModel],
    models: ModelList | None,
    why_extractive: str = "",
) -> BriefEstimate:
    """The estimate over numbered sources (`scoped` videos before copies were merged)."""
    tokens = sum(s.tokens() for s in sources)
    seconds = sum(s.record.duration for s in sources)
    hours = round(seconds / 3600, 2)
    videos, duplicates = len(sources), max(0, scoped - len(sources))
    if not chain:
        return BriefEstimate(
            videos,
            duplicates,
            hours,
            tokens,
            "extractive",
            basis="no model writes: passages are found by search and grouped",
            notes=[f"extractive: {why_extractive}"] if why_extractive else [],
        )
    first = chain[0]
    budget = source_budget(first)
    notes: list[str] = []
    pass_kind: Literal["single", "map-reduce"]
    if tokens <= budget:
        pass_kind, calls = "single", 1
        written = int(ANSWER_TOKENS * ANSWER_SHARE)
    else:
        pass_kind = "map-reduce"
        map_budget = max(800, budget - MAP_ANSWER_TOKENS)
        chunks = sum(len(chunks_of(s, map_budget)) for s in sources)
        claims = chunks * MAP_CLAIMS_GUESS
        reduces = max(1, -(-claims // max(1, budget // CLAIM_TOKENS)))
        calls = chunks + reduces
        written = int(chunks * min(MAP_ANSWER_TOKENS, MAP_CLAIMS_GUESS * CLAIM_TOKENS))
        written += int(reduces * ANSWER_TOKENS * ANSWER_SHARE)
        notes.append(
            f"{chunks} parts of about {map_budget} tokens each are read one by one; "
            "parts read before with this model are reused from the cache"
        )
    label = first.info.label or first.info.id
    row = _row(models, first.info.id)
    speed = row.speed if row is not None else ""
    tps = row.tokens_per_s if row is not None else None
    if tps:
        time_s: float | None = round(written / tps, 1)
        how = "measured" if speed == "measured" else "estimated from another measured model"
        basis = (
            f"about {written} tokens written at {tps:g} tokens/s ({how}); reading the "
            "transcripts adds time that is not measured, so expect longer"
        )
    else:
        time_s = None
        basis = (
            f"unknown: {label}'s speed on this computer was never measured "
            "(test it in Settings → Models)"
        )
    return BriefEstimate(
        videos,
        duplicates,
        hours,
        tokens,
        pass_kind,
        model=first.info.id,
        model_label=label,
        calls=calls,
        seconds=time_s,
        speed=speed if tps else "",
        basis=basis,
        notes=notes,
    )


def _row(models: ModelList | None, model_id: str) -> ModelRow | None:
    if models is None:
        return None
    return next((r for r in models.models if r.id == model_id), None)
