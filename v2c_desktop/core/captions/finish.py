"""From the cues a format parser read to the clean segments the rest of the app uses.

Every format parser returns `RawCue`s (times in seconds, the cue's text lines with their
markup). Everything that should be the same whatever the format happens here, once:
markup and entities out, whitespace normalised, rolling auto-caption repeats collapsed,
empty or punctuation-only cues dropped, sorted by start, and no segment ending before it
starts.
"""

from __future__ import annotations

import bisect
import itertools

from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.rolling import collapse_rolling, looks_rolling
from v2c_desktop.core.captions.text import clean_line, has_words, word_count
from v2c_desktop.core.domain.videos import Segment

# Reading time given to a cue whose end time can't be trusted: 0.3 s a word (200 wpm),
# at least 1 s, at most 5 s.
SECONDS_PER_WORD = 0.3
MIN_READING = 1.0
MAX_READING = 5.0


def reading_time(text: str) -> float:
    """A short, plausible time on screen for `text`."""
    return min(max(MIN_READING, SECONDS_PER_WORD * word_count(text)), MAX_READING)


def clip_overlaps(cues: list[RawCue]) -> None:
    """End each cue no later than the next one starts (in place; cues sorted by start).

    YouTube auto-captions (json3 / srv3 with append events) keep a line on screen until it
    scrolls away two lines later; as a transcript each line ends when the next is spoken.
    """
    for cue, nxt in itertools.pairwise(cues):
        if cue.start <= nxt.start < cue.end:
            cue.end = nxt.start


def finish(cues: list[RawCue]) -> list[Segment]:
    """Clean, de-duplicate, sort and time-fix the cues; see the module docstring."""
    cleaned: list[RawCue] = []
    for cue in cues:
        lines = [text for text in (clean_line(line) for line in cue.lines) if text]
        cleaned.append(RawCue(cue.start, cue.end, lines))
    cleaned.sort(key=lambda cue: cue.start)
    if looks_rolling(cleaned):
        cleaned = collapse_rolling(cleaned)

    kept = [(cue.start, cue.end, " ".join(cue.lines)) for cue in cleaned]
    kept = [item for item in kept if has_words(item[2])]
    return _fix_ends(kept)


def _fix_ends(items: list[tuple[float, float, str]]) -> list[Segment]:
    """Give cues that end before they start a usable end.

    Chosen rule: the end becomes the earlier of (a) the start of the next cue that starts
    later than this one, i.e. when the next caption replaces it, and (b) this start plus a
    short reading time (0.3 s a word, 1-5 s). (b) alone applies to the last cue or when every
    following cue starts at the same moment. Such cues exist in real creator SRTs
    (3Blue1Brown's `2017_gradient-descent` cues 301-302 end before they start).
    """
    starts = [start for start, _, _ in items]
    segments: list[Segment] = []
    for start, end, text in items:
        if end < start:
            later = bisect.bisect_right(starts, start)
            end = start + reading_time(text)
            if later < len(starts):
                end = min(end, starts[later])
        segments.append(Segment(round(start, 3), round(end, 3), text))
    return segments
