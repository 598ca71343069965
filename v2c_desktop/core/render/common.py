"""Pieces every format shares: paging info, chapter lookup, clean text and paragraphs.

Kept in one place so that the text, Markdown and JSON renderings, the outline and the
sections all agree on which chapter a segment belongs to and how a segment reads.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..domain.videos import Chapter, Segment, VideoRecord
from .tokens import estimate_tokens

# A new paragraph starts after a pause this long (seconds) or at a chapter start...
PARAGRAPH_PAUSE = 2.0
# ...or once a paragraph is this long and the last segment ended a sentence...
PARAGRAPH_SOFT_CHARS = 600
# ...or, for captions without punctuation (auto captions), once it is this long.
PARAGRAPH_HARD_CHARS = 1200
_SENTENCE_ENDS = (".", "?", "!", '."', '?"', '!"', "…")


@dataclass(frozen=True, slots=True)
class PageInfo:
    """Where a page sits in the list being paged, so a format can say so in its own syntax.

    `first` and `last` are 0-based indexes (inclusive) into the paged segment list; the
    trailer shows them 1-based because people count segments from 1.
    """

    first: int
    last: int
    total: int
    cursor: str
    next_cursor: str | None

    def trailer(self) -> str:
        """The line that tells a reader (or an agent) whether and how to read on."""
        if self.next_cursor is None:
            return f"[End of transcript: {self.total} segments]"
        return (
            f"[Partial transcript: segments {self.first + 1}-{self.last + 1} of {self.total},"
            f" next_cursor: {self.next_cursor}]"
        )


class Renderer(Protocol):
    """A format: the record, the segments to show, and page info when it renders a page."""

    def __call__(
        self,
        record: VideoRecord,
        segments: Sequence[Segment],
        *,
        timestamps: bool,
        page: PageInfo | None,
    ) -> str: ...


def one_line(text: str) -> str:
    """Caption text on one line with single spaces: captions wrap for the screen, not meaning."""
    return " ".join(text.split())


def joined_text(segments: Sequence[Segment]) -> str:
    """The words of `segments` as one string, the basis of every token count."""
    return " ".join(t for t in (one_line(s.text) for s in segments) if t)


def text_tokens(segments: Sequence[Segment]) -> int:
    return estimate_tokens(joined_text(segments))


def chapter_index(chapters: Sequence[Chapter], seconds: float) -> int | None:
    """0-based index of the chapter holding `seconds` (the last one starting at or before it).

    Time before the first chapter belongs to the first chapter, so every segment lands in
    exactly one chapter and per-chapter token counts add up to the whole.
    """
    if not chapters:
        return None
    starts = [c.start for c in chapters]
    return max(0, bisect.bisect_right(starts, seconds) - 1)


@dataclass(frozen=True, slots=True)
class Paragraph:
    start: float
    text: str


def paragraphs(record: VideoRecord, segments: Sequence[Segment]) -> list[Paragraph]:
    """Flowing paragraphs for reading without timestamps.

    Captions are cut for the screen, not for meaning, so we join them and break where a
    reader would expect it: at chapter starts, at pauses, and after a sentence once the
    paragraph is long (or anywhere once it is very long, for captions without punctuation).
    """
    out: list[Paragraph] = []
    parts: list[str] = []
    start = 0.0
    size = 0
    prev: Segment | None = None
    prev_chapter: int | None = None
    for seg in segments:
        text = one_line(seg.text)
        chapter = chapter_index(record.chapters, seg.start)
        if parts and prev is not None:
            ends_sentence = parts[-1].endswith(_SENTENCE_ENDS)
            if (
                chapter != prev_chapter
                or seg.start - prev.end >= PARAGRAPH_PAUSE
                or (size >= PARAGRAPH_SOFT_CHARS and ends_sentence)
                or size >= PARAGRAPH_HARD_CHARS
            ):
                out.append(Paragraph(start, " ".join(parts)))
                parts, size = [], 0
        if not parts:
            start = seg.start
        if text:
            parts.append(text)
            size += len(text) + 1
        prev, prev_chapter = seg, chapter
    if parts:
        out.append(Paragraph(start, " ".join(parts)))
    return out
