"""The answer without a chat model: the caption passages that best match the question.

When no chat model is available (none installed, all failing, or the user chose none) the
library can still point at the right moments. The passages are the speakers' own words,
never paraphrased, each ending with its `[n]` and time, under a first line that says plainly
no model wrote them, so nobody mistakes a quote for a generated answer. (Why no model did,
and how to get one, travels beside the answer in `AskMeta`: each face says it its own way.)

The sources are numbered as the answer cites them: the first bullet cites [1], the next new
source [2], and so on; a passage cut inside a sentence shows `…` where it was cut.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..domain.videos import Segment
from ..timecode import clock
from .citations import Citation, make_citation
from .events import with_ellipses
from .markers import strip_citations
from .matching import (
    Match,
    document_frequency,
    quote_cuts,
    quote_window,
    segment_matches,
    terms,
)
from .sources import Source, source_text

HEADER = (
    "Extractive answer (no chat model wrote this): the passages that best match your question, "
    "quoted from the videos."
)
NOT_COVERED = "The library's videos do not seem to cover this."
PASSAGE_CHARS = 320
_EXPAND_SEGMENTS = 3
_SENTENCE_STOP = re.compile(r"[.!?。！？][\"'”’)」』）]*$")


@dataclass(slots=True)
class ExtractiveAnswer:
    """Markdown text (a header, then one bullet per passage), one citation per cited
    source, and every source renumbered: the cited ones first, as the text cites them."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Passage:
    source: Source
    first: int
    last: int
    score: float

    @property
    def segments(self) -> list[Segment]:
        return self.source.segments[self.first : self.last + 1]


def extractive_answer(
    question: str, sources: Sequence[Source], *, max_points: int = 5
) -> ExtractiveAnswer:
    """Up to `max_points` passages, best first: the best-matching segments across all
    sources (scored like citation narrowing), each widened to the whole sentence(s) it is
    part of. Passages that overlap one already taken are skipped. Each source cited gets
    one citation, from its best passage (the other bullets carry their own time)."""
    if max_points < 1:
        raise ValueError("max_points must be at least 1")
    query = terms(question)
    found = [[terms(seg.text) for seg in s.segments] for s in sources]
    df = document_frequency([t for per_source in found for t in per_source])
    ranked: list[tuple[Match, Source]] = []
    for source, per_source in zip(sources, found, strict=True):
        matches = segment_matches(query, per_source, df)
        ranked.extend((m, source) for m in matches if m.overlap > 0)
    ranked.sort(key=lambda item: (item[0].overlap, item[0].rarity), reverse=True)
    taken: list[_Passage] = []
    for match, source in ranked:
        if len(taken) >= max_points:
            break
        first, last = _sentence_bounds(source.segments, match.first)
        if any(p.source is source and p.first <= last and first <= p.last for p in taken):
            continue
        passage = _Passage(source, first, last, match.overlap)
        if _passage_text(passage):
            taken.append(passage)
    if not taken:
        return ExtractiveAnswer(NOT_COVERED, [], list(sources))
    renumbered = _numbered_by_first_use(sources, [p.source for p in taken])
    lines = [HEADER, ""]
    citations: dict[int, Citation] = {}
    for passage in taken:
        source = renumbered[id(passage.source)]
        shown = with_ellipses(
            _passage_text(passage), *quote_cuts(_passage_text(passage), source.text)
        )
        start = passage.segments[0].start
        lines.append(f"- “{shown}” [{source.n}] ({clock(start)})")
        citations.setdefault(source.n, _citation(passage, source, query))
    ordered = sorted(renumbered.values(), key=lambda s: s.n)
    return ExtractiveAnswer("\n".join(lines), list(citations.values()), ordered)


def _numbered_by_first_use(sources: Sequence[Source], cited: Sequence[Source]) -> dict[int, Source]:
    """Every source (by identity) with its new number: cited ones 1, 2, ... in the order the
    answer first cites them, then the others in their old order."""
    order = list({id(s): s for s in [*cited, *sources]}.values())
    return {id(s): dataclasses.replace(s, n=n) for n, s in enumerate(order, start=1)}


def _ends_sentence(segment: Segment) -> bool:
    return bool(_SENTENCE_STOP.search(segment.text.rstrip()))


def _sentence_bounds(segments: Sequence[Segment], i: int) -> tuple[int, int]:
    """Segments around `i` that make whole sentences: back to just after the previous
    sentence stop, forward to the next one, a few segments and ~320 characters at most
    (auto captions have no stops at all: then the segment stays nearly alone)."""
    first = last = i
    length = len(segments[i].text)
    while (
        first > 0
        and i - first < _EXPAND_SEGMENTS
        and not _ends_sentence(segments[first - 1])
        and length + len(segments[first - 1].text) <= PASSAGE_CHARS
    ):
        first -= 1
        length += len(segments[first].text)
    while (
        last + 1 < len(segments)
        and last - i < _EXPAND_SEGMENTS
        and not _ends_sentence(segments[last])
        and length + len(segments[last + 1].text) <= PASSAGE_CHARS
    ):
        last += 1
        length += len(segments[last].text)
    return first, last


def _passage_text(passage: _Passage) -> str:
    """The passage's caption text; a caption that itself looks like a citation marker
    ("[2]") loses it, so the bullet's only markers are ours."""
    return strip_citations(source_text(passage.segments)).strip()


def _citation(passage: _Passage, source: Source, query: frozenset[str]) -> Citation:
    segments = passage.segments
    quote = quote_window(source_text(segments), query)
    return make_citation(source, segments[0].start, segments[-1].end, quote, passage.score)
