"""From an answer's `[n]` markers to citations that open the video at the supporting line.

A source is up to four minutes of video; a link to its start makes the reader hunt for the
claim. So each cited source is narrowed to the caption segment (or pair of adjacent
segments) that shares the most stemmed words with the sentences citing it (numbers
double, see `matching`), and the citation carries a short verbatim quote of that segment,
checked against the source's raw text. A citation is `verified` only when that quote is
found and the segment shares enough words with the sentence to support it
(`matching.MIN_SUPPORT`, measured on the corpus); otherwise `reason` says why, and no face
may show it as a link.

Marker checking itself lives in `markers` and is re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .events import Citation
from .markers import CitationFilter, check_text, cited_numbers, leading_markers, strip_citations
from .matching import (
    best_match,
    normalise_space,
    quote_cuts,
    quote_window,
    support_gap,
    terms,
    weight,
)
from .sources import Source, source_text

__all__ = [
    "Citation",
    "CitationFilter",
    "build_citations",
    "check_text",
    "cited_numbers",
    "make_citation",
    "narrow",
    "sentences_with_citations",
]

# A sentence ends at . ! ? (with closing quotes) before a space, a marker or the end, at a
# CJK full stop, or at a line break. "12.5" and "e.g.," do not end one.
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)]*(?=[\s\[［【]|$)|[。！？]+[」』”’）]*|\n+")


def sentences_with_citations(text: str) -> list[tuple[str, list[int]]]:
    """The sentences of an answer, without their markers, and the numbers each one cites.

    Markers right after a sentence's full stop ("... oil. [6] The ...") belong to that
    sentence, the way models place them either side of the stop.
    """
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.end() > start:
            pieces.append(text[start : match.end()])
            start = match.end()
    if start < len(text):
        pieces.append(text[start:])
    for i in range(1, len(pieces)):
        moved = leading_markers(pieces[i])
        if moved:
            pieces[i - 1] += pieces[i][:moved]
            pieces[i] = pieces[i][moved:]
    out: list[tuple[str, list[int]]] = []
    for piece in pieces:
        sentence = normalise_space(strip_citations(piece))
        numbers = cited_numbers(piece)
        if sentence or numbers:
            out.append((sentence, numbers))
    return out


def narrow(source: Source, sentence: str) -> Citation:
    """The citation of `source` for `sentence`: its best-matching segment and a quote of it,
    unsupported (`verified` False, with its reason) when they share too little."""
    query = terms(sentence)
    if not source.segments:
        quote = quote_window(source.text, query)
        overlap = sum(weight(t) for t in query & terms(source.text))
        gap = support_gap(query, overlap)
        return make_citation(source, source.start, source.end, quote, overlap, unsupported=gap)
    best = best_match(source.segments, sentence)
    chosen = source.segments[best.first : best.last + 1]
    quote = quote_window(source_text(chosen), query)
    gap = support_gap(query, best.overlap)
    return make_citation(
        source, chosen[0].start, chosen[-1].end, quote, best.overlap, unsupported=gap
    )


def build_citations(answer_text: str, sources: Sequence[Source]) -> list[Citation]:
    """One citation per cited source, in order of first citation, narrowed with the citing
    sentence that matches it best (the first one on a tie). Numbers of no source are
    skipped: check the text first to remove them."""
    by_number = {s.n: s for s in sources}
    sentences = sentences_with_citations(answer_text)
    out: list[Citation] = []
    for n in cited_numbers(answer_text):
        source = by_number.get(n)
        if source is None:
            continue
        citing = [text for text, numbers in sentences if n in numbers] or [""]
        candidates = [narrow(source, text) for text in citing]
        out.append(max(candidates, key=lambda c: c.match_score))
    return out


def make_citation(
    source: Source, start: float, end: float, quote: str, score: float, *, unsupported: str = ""
) -> Citation:
    """A citation of `source` from `start` to `end`, its quote checked against the source;
    `unsupported`, when given, is why it does not support what cites it (not verified)."""
    found = bool(quote) and normalise_space(quote) in normalise_space(source.text)
    reason = unsupported or ("" if found else "the quote is not found in the source's text")
    cut_start, cut_end = quote_cuts(quote, source.text)
    return Citation(
        n=source.n,
        video_id=source.video_id,
        title=source.title,
        url=source.url_at(start),
        start=start,
        end=max(start, end),
        quote=quote,
        verified=not reason,
        match_score=score,
        channel=source.channel,
        cut_start=cut_start,
        cut_end=cut_end,
        reason=reason,
    )
