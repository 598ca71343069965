"""Retrieval metrics for the search evaluation (pure functions, no engine, no corpus).

A hit is relevant when its (video, start, end) range overlaps an expected range of the same
video. Hits are taken in rank order; `k` cuts the list (top 5 by default, as in the spec).

- `reciprocal_rank`: 1 / rank of the first relevant hit, 0 when none.
- `hit_at_k`: 1 when any of the top k hits is relevant, else 0.
- `raw_precision_at_k`: relevant hits among the top k, divided by k (not by the number of
  hits returned: an engine that returns fewer hits is not rewarded for it).
- `distinct_precision_at_k`: like raw, but each expected range is credited at most once, so
  three overlapping hits on one passage count once. Hits are matched to expected ranges by a
  maximum matching, so a hit spanning two passages never steals credit from another hit.
- `forbidden_at_k`: top-k hits overlapping a forbidden range (exclusion queries); should be 0.

`evaluate` averages these per query kind and overall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

K = 5
METRICS = ("mrr", "hit_at_k", "distinct_p_at_k", "raw_p_at_k")


@dataclass(frozen=True)
class Span:
    """A time range of one video, in seconds."""

    video: str
    start: float
    end: float

    @classmethod
    def of(cls, value: Any) -> Span:
        """A Span from a Span, a (video, start, end) tuple or an object with video_id/start/end."""
        if isinstance(value, Span):
            return value
        if isinstance(value, tuple | list):
            video, start, end = value
            return cls(str(video), float(start), float(end))
        video = getattr(value, "video_id", None) or value.video
        return cls(str(video), float(value.start), float(value.end))


def overlaps(a: Any, b: Any) -> bool:
    """Same video and the ranges share some time (touching end to start does not count)."""
    a, b = Span.of(a), Span.of(b)
    if a.video != b.video:
        return False
    lo, hi = max(a.start, b.start), min(a.end, b.end)
    if lo < hi:
        return True
    # a zero-length range counts when it lies inside the other one
    return lo == hi and (a.start == a.end or b.start == b.end)


def _spans(values: Iterable[Any]) -> list[Span]:
    return [Span.of(v) for v in values]


def _top(hits: Iterable[Any], k: int | None) -> list[Span]:
    spans = _spans(hits)
    return spans if k is None else spans[:k]


def is_relevant(hit: Any, expected: Iterable[Any]) -> bool:
    return any(overlaps(hit, e) for e in expected)


def reciprocal_rank(hits: Sequence[Any], expected: Sequence[Any], k: int | None = None) -> float:
    expected = _spans(expected)
    for rank, hit in enumerate(_top(hits, k), start=1):
        if is_relevant(hit, expected):
            return 1.0 / rank
    return 0.0


def hit_at_k(hits: Sequence[Any], expected: Sequence[Any], k: int = K) -> float:
    expected = _spans(expected)
    return 1.0 if any(is_relevant(h, expected) for h in _top(hits, k)) else 0.0


def raw_precision_at_k(hits: Sequence[Any], expected: Sequence[Any], k: int = K) -> float:
    _check_k(k)
    expected = _spans(expected)
    return sum(1 for h in _top(hits, k) if is_relevant(h, expected)) / k


def distinct_precision_at_k(hits: Sequence[Any], expected: Sequence[Any], k: int = K) -> float:
    _check_k(k)
    return _max_matching(_top(hits, k), _spans(expected)) / k


def forbidden_at_k(hits: Sequence[Any], forbidden: Sequence[Any], k: int = K) -> int:
    forbidden = _spans(forbidden)
    return sum(1 for h in _top(hits, k) if is_relevant(h, forbidden))


def _check_k(k: int) -> None:
    if k <= 0:
        raise ValueError("k must be positive")


def _max_matching(hits: list[Span], expected: list[Span]) -> int:
    """Largest number of hits that can each be paired with a different expected range."""
    edges = [[j for j, e in enumerate(expected) if overlaps(h, e)] for h in hits]
    owner: dict[int, int] = {}  # expected index -> hit index

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    return sum(1 for i in range(len(hits)) if augment(i, set()))


@dataclass
class QueryOutcome:
    """What one query returned, with its kind and judged ranges."""

    kind: str
    hits: Sequence[Any]
    expected: Sequence[Any]
    forbidden: Sequence[Any] = field(default_factory=tuple)
    split: str = "dev"  # "held-out": written after the search was built, never tuned on


def score_query(outcome: QueryOutcome, k: int = K) -> dict[str, float]:
    return {
        "mrr": reciprocal_rank(outcome.hits, outcome.expected, k),
        "hit_at_k": hit_at_k(outcome.hits, outcome.expected, k),
        "distinct_p_at_k": distinct_precision_at_k(outcome.hits, outcome.expected, k),
        "raw_p_at_k": raw_precision_at_k(outcome.hits, outcome.expected, k),
        "forbidden": float(forbidden_at_k(outcome.hits, outcome.forbidden, k)),
    }


def _aggregate(scores: list[dict[str, float]]) -> dict[str, float]:
    n = len(scores)
    out: dict[str, float] = {"n": n}
    for name in METRICS:
        out[name] = sum(s[name] for s in scores) / n if n else 0.0
    out["forbidden"] = sum(s["forbidden"] for s in scores)
    return out


def evaluate(results_by_query: Mapping[str, QueryOutcome], k: int = K) -> dict[str, Any]:
    """Mean MRR, Hit@k and precisions per kind and overall, plus forbidden-hit totals.

    Returns {"k", "overall": {...}, "by_kind": {kind: {...}}, "by_split": {split: {...}},
    "per_query": {id: {...}}};
    each summary holds n, mrr, hit_at_k, distinct_p_at_k, raw_p_at_k and forbidden (a count).
    """
    per_query = {qid: score_query(o, k) for qid, o in results_by_query.items()}
    kinds: dict[str, list[dict[str, float]]] = {}
    splits: dict[str, list[dict[str, float]]] = {}
    for qid, outcome in results_by_query.items():
        kinds.setdefault(outcome.kind, []).append(per_query[qid])
        splits.setdefault(outcome.split, []).append(per_query[qid])
    return {
        "k": k,
        "overall": _aggregate(list(per_query.values())),
        "by_kind": {kind: _aggregate(scores) for kind, scores in sorted(kinds.items())},
        "by_split": {split: _aggregate(scores) for split, scores in sorted(splits.items())},
        "per_query": per_query,
    }
