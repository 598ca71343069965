"""Which videos repeat another: shingle containment over normalised transcript words.

A transcript becomes its six-word runs ("shingles", normalised the way quotes are checked:
lowercase, no punctuation or diacritics), hashed. Two transcripts are copies when the runs
they share are at least `DUPLICATE_CONTAINMENT` of the shorter one's: a re-upload shares
nearly all, a clip nearly all of its own. Captions of one talk made by different people
(creator captions and auto-captions) still share most runs; two videos on one topic share
almost none, since six words in a row rarely repeat by chance.

Each run keeps the time its first occurrence starts (words are spread evenly over their
segment), so a copy's place in the original is the median of the time differences of the
runs both share: robust to a few runs that repeat (a refrain, "thanks for watching").

This module is pure (no I/O): `cluster` is the grouping rule briefs use to read every
source once; `find_duplicates` adds the evidence an agent or a person reads.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TypeVar

from ..briefs.verify import normalise
from ..domain.duplicates import CopyKind, DuplicateCopy, DuplicateGroup
from ..domain.videos import Segment, VideoRecord

T = TypeVar("T")

SHINGLE = 6
#: Share of the shorter transcript's word runs found in the other one: above this, copies.
DUPLICATE_CONTAINMENT = 0.8
#: A copy holding at least this share of the original's runs is a re-upload, else a clip.
REUPLOAD_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A transcript's hashed word runs, each with the time its first occurrence starts;
    `start`/`end`: where its text begins and ends (seconds)."""

    times: dict[bytes, float]
    start: float = 0.0
    end: float = 0.0

    @property
    def runs(self) -> AbstractSet[bytes]:
        return self.times.keys()


def _key(words: Sequence[str]) -> bytes:
    return hashlib.blake2b(" ".join(words).encode(), digest_size=8).digest()


def fingerprint(segments: Sequence[Segment]) -> Fingerprint:
    """The runs of `segments` (joined in order, so a run may span segments) and their times."""
    words: list[str] = []
    at: list[float] = []
    spoken = [s for s in segments if s.text.strip()]
    for segment in spoken:
        mine = normalise(segment.text)
        span = max(segment.end - segment.start, 0.0)
        for i, word in enumerate(mine):
            words.append(word)
            at.append(segment.start + span * i / len(mine))
    times: dict[bytes, float] = {}
    for i in range(max(0, len(words) - SHINGLE + 1)):
        times.setdefault(_key(words[i : i + SHINGLE]), at[i])
    if not spoken:
        return Fingerprint(times)
    return Fingerprint(times, spoken[0].start, spoken[-1].end)


def shingles(segments: Sequence[Segment]) -> set[bytes]:
    """Just the runs (what the grouping rule compares)."""
    return set(fingerprint(segments).times)


def containment(a: AbstractSet[bytes], b: AbstractSet[bytes]) -> float:
    """The runs `a` and `b` share over the smaller set's runs (0.0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def contained(a: AbstractSet[bytes], b: AbstractSet[bytes]) -> bool:
    return containment(a, b) >= DUPLICATE_CONTAINMENT


def cluster(items: Sequence[T], runs: Callable[[T], AbstractSet[bytes]]) -> list[tuple[T, list[T]]]:
    """Group `items` (best first): each joins the first kept item it is a copy of, else is
    kept itself. Returns the kept items in order, each with its copies in order."""
    kept: list[tuple[T, AbstractSet[bytes], list[T]]] = []
    for item in items:
        mine = runs(item)
        twin = next((k for k in kept if contained(mine, k[1])), None)
        if twin is not None:
            twin[2].append(item)
        else:
            kept.append((item, mine, []))
    return [(item, copies) for item, _, copies in kept]


def _rank(record: VideoRecord) -> tuple[float, str, str, str]:
    """The original of a group: the longest, then the earliest published, then added."""
    video = record.video
    return (-record.duration, video.published or "~", record.added_at or "~", video.id)


def find_duplicates(records: Sequence[VideoRecord]) -> list[DuplicateGroup]:
    """The groups of copies among `records`, in the order their originals were given.

    Videos that repeat no other are in no group. Two clips of one original join the
    original, not each other.
    """
    prints = {r.video.id: fingerprint(r.transcript.segments) for r in records}
    ranked = sorted({r.video.id: r for r in records}.values(), key=_rank)
    order = {r.video.id: i for i, r in enumerate(records)}
    groups = [
        DuplicateGroup(
            original.video.id,
            [_evidence(c.video.id, prints[c.video.id], prints[original.video.id]) for c in copies],
        )
        for original, copies in cluster(ranked, lambda r: prints[r.video.id].runs)
        if copies
    ]
    groups.sort(key=lambda g: order[g.original])
    return groups


def _evidence(video_id: str, copy: Fingerprint, original: Fingerprint) -> DuplicateCopy:
    shared = copy.runs & original.runs
    copy_share = len(shared) / len(copy.runs)
    original_share = len(shared) / len(original.runs)
    offset = statistics.median(original.times[k] - copy.times[k] for k in shared)
    start = max(copy.start + offset, original.start)
    end = min(copy.end + offset, original.end)
    kind: CopyKind = "reupload" if original_share >= REUPLOAD_SHARE else "clip"
    return DuplicateCopy(
        video_id=video_id,
        kind=kind,
        overlap=round(containment(copy.runs, original.runs), 3),
        copy_share=round(copy_share, 3),
        original_share=round(original_share, 3),
        offset=round(offset, 1),
        start=round(start, 1),
        end=round(max(end, start), 1),
    )
