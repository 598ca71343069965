"""Reciprocal rank fusion: combine ranked lists by rank, not by incomparable raw scores.

A side's list can carry a weight per rank (`RankWeights`): hybrid search weights each
keyword hit by its coverage, the share of the query's rare-word mass the chunk holds
(`KeywordMemory.top_covered`). Equal-weight RRF let a chunk that shares one common word
with a paraphrased question ("network", "people") take a keyword rank as good as an
exact match's and push the passage the vectors found down; weighted by coverage, a
keyword hit counts fully only when it holds what the query asks for. No constant is
tuned: a chunk holding every query term keeps the weight it had.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

#: side -> the weight of the item at each rank (index 0 is rank 1); ranks past the end
#: and sides not listed weigh 1.
RankWeights = Mapping[str, Sequence[float]]


@dataclass(frozen=True, slots=True)
class FusionSettings:
    """RRF's k and side weights; `keyword_coverage`: weight keyword hits by coverage when
    both sides ran (search_levers.py measured it; off gives plain RRF)."""

    k: float = 60.0
    weights: Mapping[str, float] = field(default_factory=lambda: {"keyword": 1.0, "vector": 1.0})
    keyword_coverage: bool = True


@dataclass(slots=True)
class Fused:
    chunk_id: int
    score: float
    ranks: dict[str, int]


def _weight(side: str, rank: int, settings: FusionSettings, per_rank: RankWeights | None) -> float:
    weight = settings.weights.get(side, 1.0)
    ranked = per_rank.get(side) if per_rank else None
    if ranked is not None and rank <= len(ranked):
        weight *= ranked[rank - 1]
    return weight


def fused_score(
    ranks: Mapping[str, int], settings: FusionSettings, per_rank: RankWeights | None = None
) -> float:
    """The RRF score of one item from its rank on each side that found it."""
    return sum(
        _weight(side, rank, settings, per_rank) / (settings.k + rank)
        for side, rank in ranks.items()
    )


def rrf(
    rankings: Mapping[str, Sequence[int]],
    settings: FusionSettings,
    per_rank: RankWeights | None = None,
) -> list[Fused]:
    """`score = sum over sides of weight / (k + rank)`, ranks from 1; best first.

    A side's weight is its settings weight times, with `per_rank`, the weight of the item
    at that rank. Ties keep a stable order (by best rank, then the words before the
    meaning, then chunk id) so results do not flicker. The words win a tie because a tie is
    mostly one side's first against the other's first: while videos are still being
    embedded, the passage that holds the query's words must not lose to a vector-only
    neighbour by import order.
    """
    fused: dict[int, Fused] = {}
    for side, ids in rankings.items():
        for rank, chunk_id in enumerate(ids, start=1):
            entry = fused.setdefault(chunk_id, Fused(chunk_id, 0.0, {}))
            entry.score += _weight(side, rank, settings, per_rank) / (settings.k + rank)
            entry.ranks[side] = rank
    return sorted(
        fused.values(),
        key=lambda f: (-f.score, min(f.ranks.values()), "keyword" not in f.ranks, f.chunk_id),
    )
