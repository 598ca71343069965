"""Which caption lines a sentence (or a question) is about: shared stemmed words.

Narrowing a citation and the extractive answer rank caption segments the same way. The
score is the spec's: the stemmed terms (`search.text_tokens.tokenize`: stop words dropped,
plurals and -ing/-ed folded) a segment shares with the sentence, each counted once, with
numbers counting double, because "21 million" or "491 horsepower" pins a sentence to
one moment far better than a topic word that recurs all through the video. Equal scores are
broken by rarity (a shared term found in few segments of the pool beats one found in
all of them), so "bitcoin" in a bitcoin video does not decide anything by itself.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.videos import Segment
from ..search.text_tokens import match_spans, tokenize

QUOTE_CHARS = 160
MIN_SUPPORT = 2.0
"""The overlap (numbers double) a citation needs to count as supporting its sentence; a
sentence of at most `SHORT_SENTENCE` weighted terms needs only 1, since it may have no
second word to share. Below it the citation is listed, unsupported, and never linked.

Measured by `bench/citation_threshold.py` (seed 22) over the 60 corpus transcripts cut into
sources as retrieval cuts them, 2,395 caption sentences scored by `narrow` against their own
source and against a random other one (share counted as supporting, with this rule):

- verbatim sentence, its own source: 99.8% (score median 7, 5th percentile 2)
- half its words (at least 4) kept, its own source: 98.0% (median 3, 5th percentile 1)
- a source of another video on another topic: 26.5% (median 1; 25.7% share no word)
- another source of the same video (same speaker and topic): 53.9% (median 1)

Any overlap at all (the old rule, score > 0) let 74.3% of the other-video pairs and 85.7%
of the same-video ones through. Requiring 2 everywhere drops to 19.8% / 44.9% but loses
12.7% of the shortened sentences, most of them short; requiring 3 loses a third of them.
The overlap is per segment (or pair), so a 4-minute source of unrelated talk shares one
common word with almost anything; it takes two to pin a claim to a line. The claims are
the captions' own words: a model's paraphrase shares fewer, so the rule errs on letting
weak support through rather than on hiding real support.
"""
SHORT_SENTENCE = 3.0
_WORD = re.compile(r"\S+")
_WHITESPACE = re.compile(r"\s+")
#: The end of a sentence: a stop, maybe followed by closing quotes or brackets.
_STOP_AT_END = re.compile(r"[.!?…。！？][\"'”’)\]」』）]*$")


@dataclass(frozen=True, slots=True)
class Match:
    """Segments `first..last` (inclusive) of a list and how well they match.

    `overlap` is the spec's score (numbers double); `rarity` only breaks ties.
    """

    first: int
    last: int
    overlap: float
    rarity: float

    def key(self) -> tuple[float, bool, float, int]:
        """Higher is better: overlap, then one segment over two, then rarity, then earlier."""
        return (self.overlap, self.first == self.last, self.rarity, -self.first)


def terms(text: str) -> frozenset[str]:
    """The distinct stemmed terms of `text`."""
    return frozenset(tokenize(text))


def weight(term: str) -> float:
    """A number ("21", "491", "2012") counts double."""
    return 2.0 if term.isdigit() else 1.0


def score(
    query: frozenset[str], candidate: frozenset[str], df: Counter[str]
) -> tuple[float, float]:
    """(overlap, rarity) of a candidate's terms against the query's."""
    shared = query & candidate
    overlap = sum(weight(t) for t in shared)
    rarity = sum(weight(t) / max(1, df[t]) for t in shared)
    return overlap, rarity


def document_frequency(term_sets: Sequence[frozenset[str]]) -> Counter[str]:
    """In how many candidates of the pool each term appears."""
    df: Counter[str] = Counter()
    for found in term_sets:
        df.update(found)
    return df


def segment_matches(
    query: frozenset[str], segment_terms: Sequence[frozenset[str]], df: Counter[str]
) -> list[Match]:
    """A `Match` for every single segment, in order."""
    out = []
    for i, found in enumerate(segment_terms):
        overlap, rarity = score(query, found, df)
        out.append(Match(i, i, overlap, rarity))
    return out


def support_gap(query: frozenset[str], overlap: float) -> str:
    """Why a passage sharing `overlap` with a sentence of terms `query` does not support
    it ("" when it does, see `MIN_SUPPORT`)."""
    total = sum(weight(t) for t in query)
    if not total:
        return "no words of a sentence cite it"
    needed = 1.0 if total <= SHORT_SENTENCE else MIN_SUPPORT
    if overlap >= needed:
        return ""
    if overlap <= 0:
        return "the cited passage shares no word with the sentence citing it"
    return (
        f"the cited passage shares too little with the sentence citing it "
        f"({overlap:g} of {total:g} words; {needed:g} needed)"
    )


def best_match(segments: Sequence[Segment], text: str) -> Match:
    """The segment, or pair of adjacent segments, of `segments` that best matches `text`.

    A pair wins only when it shares strictly more than either of its segments alone, so a
    citation stays as short as the evidence allows. With no overlap at all it is the first
    segment with a zero score. `segments` must not be empty.
    """
    query = terms(text)
    found = [terms(s.text) for s in segments]
    df = document_frequency(found)
    candidates = segment_matches(query, found, df)
    for i in range(len(found) - 1):
        overlap, rarity = score(query, found[i] | found[i + 1], df)
        candidates.append(Match(i, i + 1, overlap, rarity))
    best = max(candidates, key=Match.key)
    return best if best.overlap > 0 else Match(0, 0, 0.0, 0.0)


def normalise_space(text: str) -> str:
    """Runs of whitespace as one space, no space at either end."""
    return _WHITESPACE.sub(" ", text).strip()


def quote_window(text: str, query: frozenset[str], limit: int = QUOTE_CHARS) -> str:
    """At most `limit` characters of `text`, cut at word boundaries, holding the most
    query words (the earliest such window on a tie). Never paraphrased, never marked up:
    it must stay a verbatim substring of the caption text."""
    text = normalise_space(text)
    if len(text) <= limit:
        return text
    words = [m.span() for m in _WORD.finditer(text)]
    hits = match_spans(text, query)
    matched = [any(a < end and start < b for a, b in hits) for start, end in words]
    best, best_count, count, j = (0, 0), -1, 0, 0
    for i, (start, _) in enumerate(words):
        j = max(j, i)
        while j < len(words) and words[j][1] - start <= limit:
            count += matched[j]
            j += 1
        if j > i and count > best_count:
            best, best_count = (i, j - 1), count
        if j > i:
            count -= matched[i]
    first, last = best
    if best_count < 0:  # a single word longer than the limit
        return text[:limit]
    return text[words[first][0] : words[last][1]]


def quote_cuts(quote: str, text: str) -> tuple[bool, bool]:
    """Whether `quote`, found in `text`, starts and ends inside a sentence of it.

    A quote starts a sentence when the text before it ends in a stop (or it opens the text
    with a capital), and ends one when its own last character is a stop. Captions without
    punctuation (auto captions) are cut on both sides: that is the honest reading.
    """
    quote, text = normalise_space(quote), normalise_space(text)
    if not quote:
        return False, False
    at = text.find(quote)
    before = text[:at].rstrip() if at > 0 else ""
    if at < 0:
        starts = quote[:1].isupper()
    elif before:
        starts = bool(_STOP_AT_END.search(before))
    else:
        starts = not quote[:1].islower()
    return not starts, not _STOP_AT_END.search(quote)
