"""Skip segments laid over a transcript: the share each covers, and the transcript without them.

Times are the only common ground between SponsorBlock and a transcript, so both are
measured by overlap in time: a segment's share is the part of the transcript's spoken time
(the union of its caption lines' spans, `SHARE_MEANING`) inside it, and a brief leaving
sponsor reads out drops the caption lines lying wholly inside a segment, nothing else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from ..domain.skips import SkipSegment
from ..domain.videos import Segment, VideoRecord

Span = tuple[float, float]
#: Caption times are rounded to milliseconds on every side; lines touching a segment's
#: edge by less than this are inside it.
EDGE_S = 0.05


def merged(spans: Iterable[Span]) -> list[Span]:
    """The union of `spans` as sorted, disjoint spans (empty ones dropped)."""
    out: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def overlap(union: Sequence[Span], start: float, end: float) -> float:
    """Seconds of the disjoint `union` inside [start, end]."""
    return sum(max(0.0, min(end, b) - max(start, a)) for a, b in union if b > start and a < end)


def spoken(segments: Sequence[Segment]) -> list[Span]:
    """The time the transcript's lines cover (overlapping auto-captions counted once)."""
    return merged((s.start, s.end) for s in segments)


def with_shares(
    segments: Sequence[SkipSegment], transcript: Sequence[Segment]
) -> tuple[list[SkipSegment], float, float]:
    """(each segment with its share, the spoken seconds, the share of all of them together)."""
    union = spoken(transcript)
    total = sum(b - a for a, b in union)

    def share(seconds: float) -> float:
        return round(min(1.0, seconds / total), 4) if total > 0 else 0.0

    shared = [dataclasses.replace(s, share=share(overlap(union, s.start, s.end))) for s in segments]
    together = sum(overlap(union, a, b) for a, b in merged((s.start, s.end) for s in segments))
    return shared, round(total, 3), share(together)


def inside(segment: Segment, skips: Sequence[Span]) -> bool:
    return any(segment.start >= a - EDGE_S and segment.end <= b + EDGE_S for a, b in skips)


def without_spans(record: VideoRecord, skips: Sequence[Span]) -> tuple[VideoRecord, int, float]:
    """`record` without the caption lines wholly inside one of `skips`: (the record, how
    many lines were left out, the seconds they spanned)."""
    kept = [s for s in record.transcript.segments if not inside(s, skips)]
    dropped = len(record.transcript.segments) - len(kept)
    if not dropped:
        return record, 0, 0.0
    seconds = sum(b - a for a, b in spoken(record.transcript.segments)) - sum(
        b - a for a, b in spoken(kept)
    )
    transcript = dataclasses.replace(record.transcript, segments=kept)
    return dataclasses.replace(record, transcript=transcript), dropped, round(seconds, 3)
