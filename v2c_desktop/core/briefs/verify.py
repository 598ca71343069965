"""Is a quote really in the transcript, near the time given? The rule every cited claim passes.

A model writing a brief from many transcripts mixes up sources, paraphrases, and invents
quotes. A claim is only allowed in when its quote is found in its video's transcript near
the moment it names, compared the one fair way for captions with or without punctuation:

- quote and transcript are normalised alike: lowercase, diacritics dropped, apostrophes
  joined (`you're` -> `youre`), other punctuation a space, whitespace collapsed;
- a quote needs at least `MIN_QUOTE_WORDS` words (shorter ones match almost anywhere);
- the window is every segment overlapping `start` +- `WINDOW_S`, extended by the quote's own
  length in words on each side;
- a span of ceil(1.25 x quote words) transcript words slides over the window (cut short
  at the window's end, so a quote of a transcript's last words is found); its score is
  the number of quote words found in it (order ignored, each used once) over the quote's word
  count; the best span passes at `THRESHOLD` (an exact quote scores 1.0; about one word in
  five misheard still passes; a paraphrase in other words fails);
- on a pass the citation is snapped: `start` to the start of the segment holding the first
  matched word of the best span, `end` to the end of the segment holding the last;
- on a fail the whole transcript is searched: found elsewhere is `quote-at-other-time` (with
  where), else `quote-not-found`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..domain.videos import Segment

MIN_QUOTE_WORDS = 4
WINDOW_S = 30.0
THRESHOLD = 0.8
SPAN_FACTOR = 1.25

Failure = Literal[
    "quote-at-other-time",
    "quote-not-found",
    "unknown-video",
    "no-quote",
    "quote-too-short",
    "bad-timestamp",
]

_APOSTROPHES = re.compile(r"['’‘`´]")
_NOT_WORD = re.compile(r"[^\w]+")


def normalise(text: str) -> list[str]:
    """The words of `text` compared the fair way: lowercase, no diacritics or punctuation."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    joined = _APOSTROPHES.sub("", plain)
    return [word for word in _NOT_WORD.sub(" ", joined).replace("_", " ").split() if word]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What checking one quote found: `ok` with the snapped times, or why not."""

    ok: bool
    start: float = 0.0
    end: float = 0.0
    score: float = 0.0
    failure: Failure | None = None
    found_at: float | None = None  # where a quote at another time really is


class TranscriptIndex:
    """One video's transcript as normalised words, each knowing its segment (built once)."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self.segments = list(segments)
        self.words: list[str] = []
        self.segment_of: list[int] = []
        for i, segment in enumerate(self.segments):
            for word in normalise(segment.text):
                self.words.append(word)
                self.segment_of.append(i)
        self.duration = max((s.end for s in self.segments), default=0.0)

    def word_range(self, start: float, end: float) -> tuple[int, int]:
        """Word positions [first, last) of the segments overlapping [start, end]."""
        first, last = len(self.words), 0
        for position, seg in enumerate(self.segment_of):
            segment = self.segments[seg]
            if segment.end >= start and segment.start <= end:
                first = min(first, position)
                last = position + 1
        return (first, last) if first < last else (0, 0)

    def best_span(
        self, quote: list[str], first: int, last: int, near: float | None = None
    ) -> tuple[float, int, int]:
        """(score, first matched word, last matched word) of the best span in [first, last).

        Every start position is tried, up to the range's last word: near the end a span is
        cut short by the range (a quote of a transcript's last words must still be found
        whole). A span is only scored from a word of the quote: a span starting elsewhere
        matches no more than the one starting at its first matched word, which is tried too
        (it covers the same matched words, as it is as wide or cut at the same end). Among
        spans of the best score, the tightest match wins (a quote's words recur in a talk),
        then the one nearest `near` seconds.
        """
        need = Counter(quote)
        width = math.ceil(SPAN_FACTOR * len(quote))
        first, last = max(0, first), min(last, len(self.words))
        best: tuple[float, int, float, int, int] | None = None  # score, -tightness, -distance
        for begin in range(first, last):
            if self.words[begin] not in need:
                continue
            end = min(begin + width, last)
            left = Counter(need)
            used: list[int] = []
            for position in range(begin, end):
                word = self.words[position]
                if left[word] > 0:
                    left[word] -= 1
                    used.append(position)
            score = len(used) / len(quote)
            when = self.segments[self.segment_of[used[0]]].start
            distance = abs(when - near) if near is not None else 0.0
            key = (score, -(used[-1] - used[0]), -distance, used[0], used[-1])
            if best is None or key[:3] > best[:3]:
                best = key
        if best is None:
            return (0.0, -1, -1)
        return (best[0], best[3], best[4])


def verify_quote(index: TranscriptIndex, quote: str, start: float | None) -> Verdict:
    """Check `quote` against the transcript near `start` (see the module's rules)."""
    words = normalise(quote or "")
    if not words:
        return Verdict(False, failure="no-quote")
    if len(words) < MIN_QUOTE_WORDS:
        return Verdict(False, failure="quote-too-short")
    if start is None or not math.isfinite(start) or start < 0 or start > index.duration + 1:
        return Verdict(False, failure="bad-timestamp")
    first, last = index.word_range(start - WINDOW_S, start + WINDOW_S)
    first, last = max(0, first - len(words)), min(len(index.words), last + len(words))
    score, a, b = index.best_span(words, first, last, near=start)
    if score >= THRESHOLD:
        begin = index.segments[index.segment_of[a]].start
        finish = index.segments[index.segment_of[b]].end
        return Verdict(True, begin, max(begin, finish), score)
    anywhere, a, _ = index.best_span(words, 0, len(index.words))
    if anywhere >= THRESHOLD:
        found = index.segments[index.segment_of[a]].start
        return Verdict(False, score=score, failure="quote-at-other-time", found_at=found)
    return Verdict(False, score=max(score, anywhere), failure="quote-not-found")
