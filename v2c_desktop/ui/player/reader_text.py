"""What the transcript reader shows, without Qt: paragraphs of caption lines, the lines at a
second, and where a quote is in them.

Captions arrive as fragments of a few words; a reader reads sentences. Lines are joined into
paragraphs that end at a sentence after 20 s (or at 60 s, a pause of 4 s, or a chapter), and
every line keeps its own span so the lines at a cited second can be lit inside a paragraph.
A quote (a chat citation's words) is found by its letters and digits alone, so spacing,
punctuation, case and `…` where the quote was cut never stop a verbatim quote from matching.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from v2c_desktop.core.domain.videos import Chapter, Segment

_SENTENCE_END = re.compile(r"[.!?…][\"')\]”’»]*$")
_CUTS = re.compile(r"\.\.\.|…")
PAUSE = 4.0  # seconds of silence that start a new paragraph
SENTENCE_PARAGRAPH = 20.0  # a paragraph may end at a sentence after this long
LONGEST_PARAGRAPH = 60.0  # and always ends after this long (captions without punctuation)
NEAR = 5.0  # a second in a pause cites the line that starts this soon after it
_FOLLOW_PARTS = 2000  # how far after a quote's first part its next part may be


@dataclass
class Paragraph:
    """Lines read together; `chapter` is set when a chapter begins with this paragraph."""

    segments: list[int] = field(default_factory=list)
    chapter: Chapter | None = None


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote is: from `start` (line, offset in its text) to `end` (line, offset)."""

    start: tuple[int, int]
    end: tuple[int, int]

    @property
    def lines(self) -> range:
        return range(self.start[0], self.end[0] + 1)


def paragraphs(segments: Sequence[Segment], chapters: Sequence[Chapter] = ()) -> list[Paragraph]:
    """The lines grouped for reading; a chapter's first paragraph carries the chapter."""
    marks = sorted(chapters, key=lambda c: c.start)
    out: list[Paragraph] = []
    current = Paragraph()
    next_mark = 0

    def flush() -> None:
        nonlocal current
        if current.segments or current.chapter is not None:
            out.append(current)
        current = Paragraph()

    for index, segment in enumerate(segments):
        while next_mark < len(marks) and marks[next_mark].start <= segment.start + 0.01:
            flush()
            current.chapter = marks[next_mark]  # a chapter with no lines of its own stays
            next_mark += 1
        if current.segments:
            first, last = segments[current.segments[0]], segments[current.segments[-1]]
            length = segment.start - first.start
            sentence = bool(_SENTENCE_END.search(last.text.strip()))
            if (
                segment.start - last.end > PAUSE
                or (sentence and length >= SENTENCE_PARAGRAPH)
                or length >= LONGEST_PARAGRAPH
            ):
                flush()
        current.segments.append(index)
    flush()
    return out


def lines_at(segments: Sequence[Segment], seconds: float) -> list[int]:
    """The lines being said at `seconds` (several when captions overlap); in a pause the line
    that starts within `NEAR` seconds, else the one before it."""
    at = [i for i, s in enumerate(segments) if s.start <= seconds < s.end]
    if at or not segments:
        return at
    after = bisect_left([s.start for s in segments], seconds)
    if after < len(segments) and segments[after].start - seconds <= NEAR:
        return [after]
    return [after - 1] if after > 0 else [0]


def _fold(text: str) -> tuple[str, list[int]]:
    """The letters and digits of `text`, lower-cased, and the offset each came from."""
    kept: list[str] = []
    offsets: list[int] = []
    for offset, char in enumerate(text):
        if char.isalnum():
            kept.append(char.lower()[:1])
            offsets.append(offset)
    return "".join(kept), offsets


def find_quote(segments: Sequence[Segment], quote: str, seconds: float) -> QuoteMatch | None:
    """Where `quote` is said, nearest to `seconds` when it is said more than once."""
    parts = [folded for folded, _ in (_fold(p) for p in _CUTS.split(quote)) if folded]
    if sum(len(p) for p in parts) < 4:
        return None
    chars: list[str] = []
    where: list[tuple[int, int]] = []
    for index, segment in enumerate(segments):
        folded, offsets = _fold(segment.text)
        chars.append(folded)
        where.extend((index, offset) for offset in offsets)
    text = "".join(chars)
    best: tuple[float, int] | None = None
    found = text.find(parts[0])
    while found != -1:
        distance = abs(segments[where[found][0]].start - seconds)
        if best is None or distance < best[0]:
            best = (distance, found)
        found = text.find(parts[0], found + 1)
    if best is None:
        return None
    start = best[1]
    end = start + len(parts[0])
    for part in parts[1:]:
        following = text.find(part, end, end + _FOLLOW_PARTS)
        if following == -1:
            break
        end = following + len(part)
    last_line, last_offset = where[end - 1]
    return QuoteMatch(where[start], (last_line, last_offset + 1))
