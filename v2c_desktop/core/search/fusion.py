"""Reciprocal rank fusion: combine ranked lists by rank, not by incomparable raw scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class FusionSettings:
    k: float = 60.0
    weights: Mapping[str, float] = field(default_factory=lambda: {"keyword": 1.0, "vector": 1.0})


@dataclass(slots=True)
class Fused:
    chunk_id: int
    score: float
    ranks: dict[str, int]


def fused_score(ranks: Mapping[str, int], settings: FusionSettings) -> float:
    """The RRF score of one item from its rank on each side that found it."""
    weights = settings.weights
    return sum(weights.get(side, 1.0) / (settings.k + rank) for side, rank in ranks.items())


def rrf(rankings: Mapping[str, Sequence[int]], settings: FusionSettings) -> list[Fused]:
    """`score = sum over sides of weight / (k + rank)`, ranks from 1; best first.

    Ties keep a stable order (by best rank, then the words before the meaning, then chunk
    id) so results do not flicker. The words win a tie because a tie is mostly one side's
    first against the other's first: while videos are still being embedded, the passage
    that holds the query's words must not lose to a vector-only neighbour by import order.
    """
    fused: dict[int, Fused] = {}
    for side, ids in rankings.items():
        weight = settings.weights.get(side, 1.0)
        for rank, chunk_id in enumerate(ids, start=1):
            entry = fused.setdefault(chunk_id, Fused(chunk_id, 0.0, {}))
            entry.score += weight / (settings.k + rank)
            entry.ranks[side] = rank
    return sorted(
        fused.values(),
        key=lambda f: (-f.score, min(f.ranks.values()), "keyword" not in f.ranks, f.chunk_id),
    )
