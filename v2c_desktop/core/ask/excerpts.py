"""Sources cut into sentences, and runs of them as excerpts that still quote the captions.

Caption lines and sentences do not line up: a line may end one sentence and start the next,
a sentence may run over four lines, and auto captions have no stops at all. An extractive
answer ranks sentences, so each source's raw text (`Source.text`, the segments joined by
single spaces, what quotes are checked against) is cut at sentence ends, and every
sentence keeps its character range in that text and the segments it lies on. An excerpt
is a run of consecutive sentences of one source: its text is a slice of the source's
text, so it is a verbatim quote by construction, and its segments give its time.

A "sentence" longer than `MAX_SENTENCE_CHARS` (auto captions, or a speaker who never
stops) is cut again at segment boundaries, so nothing quoted grows unbounded; such pieces
do not end in a stop, and the answer marks them with `…` where they were cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..domain.videos import Segment
from .sources import Source

MAX_SENTENCE_CHARS = 300
PIECE_CHARS = 200
# A sentence ends at . ! ? (with closing quotes) before a space or the end, or at a CJK
# stop. "12.5" does not end one; "Dr. Kay" does (rare, and harmless: the next sentence
# joins it when it belongs).
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|[。！？]+[」』”’）]*")


@dataclass(frozen=True, slots=True)
class Sentence:
    """Characters `start:end` of its source's text, lying on segments `first..last`."""

    start: int
    end: int
    first: int
    last: int
    text: str


@dataclass(frozen=True, slots=True)
class Excerpt:
    """Sentences `first..last` (inclusive) of the source at `source` in the answer's list."""

    source: int
    first: int
    last: int


def segment_offsets(segments: list[Segment]) -> list[tuple[int, int, int]]:
    """(segment index, start, end) in the joined text of every segment with text, laid out
    exactly as `sources.source_text` joins them."""
    out: list[tuple[int, int, int]] = []
    at = 0
    for i, seg in enumerate(segments):
        text = seg.text.strip()
        if not text:
            continue
        if out:
            at += 1  # the joining space
        out.append((i, at, at + len(text)))
        at += len(text)
    return out


def split_sentences(source: Source) -> list[Sentence]:
    """The sentences of a source's text, in order, each with the segments it lies on."""
    text = source.text
    offsets = segment_offsets(source.segments)
    if not text or not offsets:
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.end()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    out: list[Sentence] = []
    for a, b in spans:
        for piece_start, piece_end in _pieces(text, a, b, offsets):
            while piece_start < piece_end and text[piece_start].isspace():
                piece_start += 1
            while piece_end > piece_start and text[piece_end - 1].isspace():
                piece_end -= 1
            if piece_end <= piece_start:
                continue
            first = _segment_at(offsets, piece_start)
            last = _segment_at(offsets, piece_end - 1)
            out.append(Sentence(piece_start, piece_end, first, last, text[piece_start:piece_end]))
    return out


def _pieces(
    text: str, a: int, b: int, offsets: list[tuple[int, int, int]]
) -> list[tuple[int, int]]:
    """`a:b` itself, or (when too long) cut at the segment starts inside it into pieces of
    about `PIECE_CHARS`."""
    if b - a <= MAX_SENTENCE_CHARS:
        return [(a, b)]
    cuts = [start for _, start, _ in offsets if a < start < b]
    pieces: list[tuple[int, int]] = []
    begin = a
    for cut in cuts:
        if cut - begin >= PIECE_CHARS:
            pieces.append((begin, cut))
            begin = cut
    pieces.append((begin, b))
    return pieces


def _segment_at(offsets: list[tuple[int, int, int]], char: int) -> int:
    """The index of the segment whose text holds character `char` (or the last one before
    it, for the joining spaces)."""
    lo, hi = 0, len(offsets) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if offsets[mid][1] <= char:
            lo = mid
        else:
            hi = mid - 1
    return offsets[lo][0]


def excerpt_text(source: Source, sentences: list[Sentence], excerpt: Excerpt) -> str:
    """The excerpt's words exactly as the source's text has them."""
    return source.text[sentences[excerpt.first].start : sentences[excerpt.last].end]


def segments_of(
    source: Source, sentences: list[Sentence], excerpt: Excerpt, within: tuple[int, int] | None
) -> list[Segment]:
    """The segments an excerpt lies on; with `within` (characters of the excerpt's text),
    only those under that part of it (where its citation's quote is)."""
    first, last = sentences[excerpt.first].first, sentences[excerpt.last].last
    if within is not None:
        offsets = segment_offsets(source.segments)
        base = sentences[excerpt.first].start
        first = max(first, _segment_at(offsets, base + within[0]))
        last = min(last, _segment_at(offsets, base + max(within[0], within[1] - 1)))
    return source.segments[first : last + 1]
