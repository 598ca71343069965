"""Checking a model's moments against the transcript before any of them is shown.

A model's time is only a claim: each `start` must land within `TOLERANCE_S` of a real
segment start (it is then snapped to exactly that start) or the moment is dropped and
counted. Titles and reasons are untrusted text too (a transcript can talk a model into
writing a link or an HTML tag): they become plain text on one line (`plain`). The kept
moments are sorted and at least `MIN_GAP_S` apart, at most as many as were asked for.
"""

from __future__ import annotations

import bisect
import html
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..domain.videos import Segment
from ..errors import V2CError
from ..plain_text import strip_controls
from ..timecode import parse_time

#: How far a model's time may be from a segment start (`m:ss` floors, so up to 1 s early).
TOLERANCE_S = 2.0
#: Key moments closer than this are one moment: the later one is dropped.
MIN_GAP_S = 30.0
TITLE_CHARS = 70
WHY_CHARS = 160

_TAG = re.compile(r"<[^>]*>")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(
    r"(?:\b(?:https?|ftp|file|mailto|javascript|vbscript|data|obsidian|tel|smb|ssh):"
    r"|\bwww\.|//)\S+",
    re.IGNORECASE,
)
# zero-width and direction-changing characters: they hide or reorder what is read
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]")
_MARKUP = re.compile(r"[`*~|\[\]{}<>]|(?:^|\s)[#>]+(?=\s)|\b__|__\b")
_SPACE = re.compile(r"\s+")


def plain(text: str, limit: int) -> str:
    """`text` as plain text on one line: no HTML, Markdown links, URLs, markup characters
    or control characters; cut at a word boundary within `limit` characters (with `…`)."""
    text = _INVISIBLE.sub("", strip_controls(html.unescape(str(text))))
    text = _TAG.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    text = _SPACE.sub(" ", text).strip(" -:;,")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut.rstrip(" ,;:-") + "…"


class SegmentStarts:
    """The start times of a transcript's segments that have words, for snapping."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self.index = [i for i, s in enumerate(segments) if s.text.strip()]
        self.starts = [segments[i].start for i in self.index]

    def snap(self, seconds: float, tolerance: float = TOLERANCE_S) -> int | None:
        """The segment (its index) whose start is nearest `seconds`, if within `tolerance`
        (the earlier one on a tie); None when no segment starts that close."""
        at = bisect.bisect_left(self.starts, seconds)
        best: int | None = None
        for k in (at - 1, at):
            if 0 <= k < len(self.starts):
                distance = abs(self.starts[k] - seconds)
                if distance <= tolerance and (
                    best is None or distance < abs(self.starts[best] - seconds)
                ):
                    best = k
        return None if best is None else self.index[best]

    def at_or_after(self, seconds: float) -> int | None:
        """The first segment starting at or after `seconds` (less a hair), if any."""
        at = bisect.bisect_left(self.starts, seconds - 0.5)
        return self.index[at] if at < len(self.starts) else None


@dataclass
class Draft:
    """A moment before its link is made: the segment it starts at, its words."""

    segment: int
    start: float
    title: str
    why: str


@dataclass
class Verified:
    """The moments that checked out, and how many were dropped for each reason."""

    moments: list[Draft] = field(default_factory=list)
    offered: int = 0
    dropped: Counter[str] = field(default_factory=Counter)

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    def note(self) -> str:
        """What was left out, in plain words ("" when nothing was)."""
        words = {
            "unreadable": "had no readable time",
            "no-segment": "named a time where no transcript line starts",
            "too-close": f"were within {MIN_GAP_S:.0f} s of another",
            "extra": "were more than asked for",
        }
        parts = [f"{n} {words[reason]}" for reason, n in sorted(self.dropped.items()) if n]
        if not parts:
            return ""
        return f"{self.dropped_total} of the model's {self.offered} moments were left out: " + (
            "; ".join(parts)
        )


def verify_moments(
    answer: dict[str, Any],
    segments: Sequence[Segment],
    count: int,
    untitled: Callable[[int], str],
) -> Verified:
    """The model's `{moments: [{start, title, why}]}` checked against `segments`.

    `untitled(segment)` titles a moment whose title was empty once made plain.
    """
    raw = answer.get("moments")
    items = [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []
    result = Verified(offered=len(raw) if isinstance(raw, list) else 0)
    result.dropped["unreadable"] += result.offered - len(items)
    starts = SegmentStarts(segments)
    drafts: list[Draft] = []
    for item in items:
        seconds = _seconds(item.get("start"))
        if seconds is None:
            result.dropped["unreadable"] += 1
            continue
        segment = starts.snap(seconds)
        if segment is None:
            result.dropped["no-segment"] += 1
            continue
        title = plain(str(item.get("title") or ""), TITLE_CHARS) or untitled(segment)
        why = plain(str(item.get("why") or ""), WHY_CHARS)
        drafts.append(Draft(segment, segments[segment].start, title, why))
    spaced = spaced_out(drafts)
    result.dropped["too-close"] += len(drafts) - len(spaced)
    result.dropped["extra"] += max(0, len(spaced) - count)
    result.dropped = +result.dropped  # only the reasons that dropped something
    result.moments = spaced[:count]
    return result


def spaced_out(drafts: Sequence[Draft], gap: float = MIN_GAP_S) -> list[Draft]:
    """`drafts` in time order, each at least `gap` after the one kept before it."""
    kept: list[Draft] = []
    for draft in sorted(drafts, key=lambda d: d.start):
        if not kept or draft.start - kept[-1].start >= gap:
            kept.append(draft)
    return kept


class TitleOf:
    """A title for a moment from the transcript itself: its first sentence from there."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self.segments = segments

    def __call__(self, segment: int) -> str:
        return first_sentence(self.segments, segment, TITLE_CHARS)


_SENTENCE_END = re.compile(r"[.!?…。！？]+[\"'”’)\]]*(?=\s|$)")
SENTENCE_WORDS = 14


def first_sentence(segments: Sequence[Segment], first: int, limit: int) -> str:
    """The first sentence of the transcript from segment `first` on, as plain text within
    `limit` characters; for captions without stops, its first words with `…`."""
    words: list[str] = []
    for segment in segments[first : first + 12]:
        words.extend(segment.text.split())
        if len(" ".join(words)) > 2 * limit:
            break
    text = " ".join(words)
    found = _SENTENCE_END.search(text)
    if found is not None and found.end() <= 2 * limit:
        text = text[: found.end()]
    elif len(words) > SENTENCE_WORDS:
        text = " ".join(words[:SENTENCE_WORDS]) + "…"
    text = plain(text, limit)
    return text[:1].upper() + text[1:]


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    try:
        return parse_time(str(value))
    except V2CError:
        return None
