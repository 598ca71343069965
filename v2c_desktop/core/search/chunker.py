"""Cutting a transcript into the 30-60 second chunks that search indexes and returns.

Why windows of about 30 to 60 seconds: a caption line (2-5 s) is too short to hold a topic,
so neither BM25 nor an embedding can tell what it is about; a whole chapter is too long to
point a reader at the right minute. Half a minute to a minute is a paragraph of speech.

The rules, and why each exists:

- **End at a sentence end or a pause once 30 s long** (`min_s`, `pause_s`). A chunk that
  ends mid-sentence embeds badly and reads badly; a pause of a second or more is where a
  speaker changes thought, so it is the next best place to cut. A sentence end is a
  segment whose text ends with . ? ! … (or a closing quote or bracket after one).
- **Else the largest gap before 60 s** (`max_s`). Auto-captions have no punctuation and
  often no pauses, so neither of the above ever fires. Among the segments that keep the
  chunk between 30 and 60 s, the one followed by the largest gap to the next segment is
  the most likely breath; equal gaps prefer the later segment so chunks stay long (and
  there are fewer of them to embed).
- **A segment longer than 60 s is a chunk by itself**: segments are never split (below),
  so it cannot be shorter. When the next segment would push a chunk past 60 s before it
  reached 30 s, the chunk ends short rather than long.
- **Never across a chapter start**: a hit should belong to one chapter, whose title the
  result shows. A segment that straddles a chapter start belongs to the chapter holding
  its midpoint (a tie goes to the earlier chapter: chapter times are whole seconds set by
  hand, and a line ending on the mark still belongs to what came before); segments before
  the first chapter belong to the first. The first chunk of a chapter has no overlap.
- **Overlap of up to 8 s** (`overlap_s`): each chunk after the first of its chapter
  starts with the longest run of whole segments from the end of the previous chunk that
  spans at most 8 s (possibly none, when the last segment alone is longer). A sentence
  cut at a boundary is then whole in at least one chunk, so a phrase query still finds
  it. The overlap is shortened further if it would push the chunk's first new segment
  past 60 s, so every chunk keeps the 60 s limit.
- **Segments are never split**: `first_segment`/`last_segment` index the segment list
  and `start`/`end` are exactly those segments' times, so every hit maps back to the
  transcript to the second and the raw transcript is never changed.

Expects segments sorted by start (as `parse_captions` returns them). Deterministic, O(n):
each segment is looked at a bounded number of times.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.videos import Chapter, Segment

__all__ = ["Chunk", "chunk_transcript", "ends_sentence"]

_SENTENCE_END = re.compile(r"[.?!…。？！][\"'”’»)\]]*\s*$")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A window of whole segments: what search indexes, embeds and returns.

    `index` counts chunks from 0 in transcript order; `first_segment`/`last_segment` are
    inclusive indexes into the segment list; `chapter` indexes the chapter list (None when
    the video has no chapters); `text` is the segments' texts joined by single spaces.
    """

    index: int
    start: float
    end: float
    first_segment: int
    last_segment: int
    chapter: int | None
    text: str


def ends_sentence(text: str) -> bool:
    """True when caption text ends a sentence: . ? ! … (also CJK), maybe then a quote."""
    return _SENTENCE_END.search(text) is not None


def chunk_transcript(
    segments: Sequence[Segment],
    chapters: Sequence[Chapter] = (),
    *,
    min_s: float = 30.0,
    max_s: float = 60.0,
    pause_s: float = 1.0,
    overlap_s: float = 8.0,
) -> list[Chunk]:
    """The chunks of a transcript, in order, covering every segment (see the module doc)."""
    if not 0 < min_s <= max_s or overlap_s < 0 or pause_s < 0:
        raise ValueError(f"bad chunk sizes: {min_s=} {max_s=} {pause_s=} {overlap_s=}")
    owners = _chapter_of_segments(segments, chapters)
    chunker = _Chunker(segments, min_s, max_s, pause_s, overlap_s)
    lo = 0
    while lo < len(segments):
        hi = lo
        while hi + 1 < len(segments) and owners[hi + 1] == owners[lo]:
            hi += 1
        chunker.chunk_run(lo, hi, owners[lo])
        lo = hi + 1
    return chunker.chunks


def _chapter_of_segments(
    segments: Sequence[Segment], chapters: Sequence[Chapter]
) -> list[int | None]:
    """The chapter index of each segment: the last chapter starting before its midpoint.

    A pointer that only moves forward keeps the assignment monotonic even when a long
    segment's midpoint lies after a later short one's, so a chapter is one run of segments.
    """
    if not chapters:
        return [None] * len(segments)
    order = sorted(range(len(chapters)), key=lambda c: (chapters[c].start, c))
    pos = 0
    owners: list[int | None] = []
    for segment in segments:
        middle = (segment.start + segment.end) / 2
        while pos + 1 < len(order) and chapters[order[pos + 1]].start < middle:
            pos += 1
        owners.append(order[pos])
    return owners


class _Chunker:
    """Builds the chunks of one chapter run at a time into `chunks`."""

    def __init__(
        self,
        segments: Sequence[Segment],
        min_s: float,
        max_s: float,
        pause_s: float,
        overlap_s: float,
    ) -> None:
        self.segments = segments
        self.min_s = min_s
        self.max_s = max_s
        self.pause_s = pause_s
        self.overlap_s = overlap_s
        self.chunks: list[Chunk] = []

    def chunk_run(self, lo: int, hi: int, chapter: int | None) -> None:
        """Chunk segments lo..hi (inclusive), which all lie in one chapter."""
        previous: tuple[int, int] | None = None
        new = lo
        while new <= hi:
            first = new if previous is None else self._overlap_start(*previous, new)
            last = self._window_end(first, new, hi)
            self._emit(first, last, chapter)
            previous = (first, last)
            new = last + 1

    def _overlap_start(self, prev_first: int, prev_last: int, new: int) -> int:
        """Where the chunk starting with new material at `new` begins, overlap included.

        The longest proper suffix of the previous chunk spanning at most `overlap_s`, cut
        back further while it would push segment `new`'s end past `max_s`.
        """
        segs = self.segments
        first = new
        top = max(segs[prev_last].end, segs[new].end)
        overlap_top = segs[prev_last].end
        k = prev_last
        while k > prev_first:
            overlap_top = max(overlap_top, segs[k].end)
            top = max(top, segs[k].end)
            start = segs[k].start
            if overlap_top - start > self.overlap_s or top - start > self.max_s:
                break
            first = k
            k -= 1
        return first

    def _window_end(self, first: int, new: int, hi: int) -> int:
        """The last segment of the chunk that starts at `first` (new material from `new`)."""
        segs = self.segments
        start = segs[first].start
        top = max(s.end for s in segs[first : new + 1])
        best: int | None = None  # the largest-gap cut among those >= min_s
        best_gap = 0.0
        j = new
        while j < hi:
            gap = segs[j + 1].start - segs[j].end
            if top - start >= self.min_s:
                if gap >= self.pause_s or ends_sentence(segs[j].text):
                    return j
                if best is None or gap >= best_gap:
                    best, best_gap = j, gap
            next_top = max(top, segs[j + 1].end)
            if next_top - start > self.max_s:
                return j if best is None else best
            top = next_top
            j += 1
        return hi

    def _emit(self, first: int, last: int, chapter: int | None) -> None:
        segs = self.segments[first : last + 1]
        text = " ".join(t for t in (s.text.strip() for s in segs) if t)
        self.chunks.append(
            Chunk(
                index=len(self.chunks),
                start=segs[0].start,
                end=max(s.end for s in segs),
                first_segment=first,
                last_segment=last,
                chapter=chapter,
                text=text,
            )
        )
