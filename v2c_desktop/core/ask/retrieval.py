"""Choosing what the model reads: everything when it fits, else the best passages.

When every chunk of the scope fits the model's source budget, all of it goes (split into
ranges of at most four minutes, so citations stay precise). Otherwise the hybrid search
ranks passages for the (standalone) question, the best are taken up to the budget, and
neighbouring passages of one video are merged into one range of at most four minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..domain.videos import Segment, VideoRecord
from ..search.engine import SearchEngine
from ..search.request import SearchRequest
from .sources import Source, SourceRange, number_sources

MAX_RANGE_S = 240.0
CHARS_PER_TOKEN = 3.5  # conservative: a budget must not be overrun by an optimistic count
SEARCH_HITS = 60


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def segments_tokens(segments: Sequence[Segment]) -> int:
    return sum(estimate_tokens(s.text) + 6 for s in segments)  # + the [m:ss] label share


@dataclass(frozen=True, slots=True)
class RankedSpan:
    """A search hit the sources were cut from: its video, time range and 0-based rank."""

    video_id: str
    start: float
    end: float
    rank: int


@dataclass
class Retrieved:
    """The sources, how they were chosen, their size, and (searched) the hits they came
    from in rank order, so an extractive answer can favour the passages ranked best."""

    sources: list[Source]
    mode: str  # "all", "search", or "excerpts" (a local model's, see `focus`)
    tokens: int
    hits: list[RankedSpan] = field(default_factory=list)


def _split(record: VideoRecord, segments: Sequence[Segment]) -> list[SourceRange]:
    """Consecutive segments grouped into ranges of at most MAX_RANGE_S seconds."""
    ranges: list[SourceRange] = []
    current: list[Segment] = []
    for seg in segments:
        if current and seg.end - current[0].start > MAX_RANGE_S:
            ranges.append(SourceRange(record.video, current))
            current = []
        current.append(seg)
    if current:
        ranges.append(SourceRange(record.video, current))
    return ranges


def all_sources(records: Sequence[VideoRecord]) -> list[SourceRange]:
    return [r for rec in records for r in _split(rec, rec.transcript.segments)]


def fits(records: Sequence[VideoRecord], budget: int) -> bool:
    return sum(segments_tokens(r.transcript.segments) for r in records) <= budget


async def searched_sources(
    engine: SearchEngine,
    records: Sequence[VideoRecord],
    query: str,
    budget: int,
    ranked: list[RankedSpan] | None = None,
) -> list[SourceRange]:
    """The best hybrid-search passages of the scope, up to the budget, neighbours merged;
    the hits taken are appended to `ranked` (when given) with their rank."""
    by_id = {r.video.id: r for r in records}
    result = await engine.search(
        SearchRequest(
            query=query,
            mode="hybrid",
            limit=SEARCH_HITS,
            video_ids=tuple(by_id),
            plain_fusion=True,  # see SearchRequest.plain_fusion
        )
    )
    chosen: dict[str, list[tuple[float, float]]] = {}
    used = 0
    for rank, hit in enumerate(result.hits):
        record = by_id.get(hit.video_id)
        if record is None:
            continue
        segs = [s for s in record.transcript.segments if s.start < hit.end and s.end > hit.start]
        cost = segments_tokens(segs)
        if used + cost > budget:
            continue
        used += cost
        chosen.setdefault(hit.video_id, []).append((hit.start, hit.end))
        if ranked is not None:
            ranked.append(RankedSpan(hit.video_id, hit.start, hit.end, rank))
    ranges: list[SourceRange] = []
    for vid, spans in chosen.items():
        record = by_id[vid]
        for start, end in _merge(sorted(spans)):
            segs = [s for s in record.transcript.segments if s.start < end and s.end > start]
            if segs:
                ranges.append(SourceRange(record.video, segs))
    return ranges


def _merge(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Join spans that touch (within 10 s) while the joined span stays within 4 minutes."""
    merged: list[tuple[float, float]] = []
    for start, end in spans:
        if merged and start - merged[-1][1] <= 10.0 and end - merged[-1][0] <= MAX_RANGE_S:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


async def retrieve(
    engine: SearchEngine,
    records: Sequence[VideoRecord],
    query: str,
    budget: int,
    *,
    force_search: bool = False,
) -> Retrieved:
    """`force_search` ranks passages even when all would fit: an extractive answer quotes
    only the best few, and the hybrid search finds them by meaning, not just shared words."""
    hits: list[RankedSpan] = []
    if fits(records, budget) and not force_search:
        ranges, mode = all_sources(records), "all"
    else:
        ranges, mode = await searched_sources(engine, records, query, budget, hits), "search"
    sources = number_sources(ranges)
    return Retrieved(sources, mode, sum(segments_tokens(s.segments) for s in sources), hits)
