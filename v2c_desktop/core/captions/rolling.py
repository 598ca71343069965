"""Collapse YouTube's "rolling" auto-captions into one segment per spoken line.

Why this exists: YouTube auto-captions are made for a two-line on-screen roll-up, not for
reading. Every cue repeats the line shown before it and adds the new one; between two cues a
~10 ms "line switch" cue shows only the line that stays. Parsed naively (and after any
VTT-to-SRT conversion, where the repeats survive) every sentence appears two or three times.
yt-dlp files from 2018 (`<c.colorCCCCCC>` spans) and today (`<00:00:00.320><c> word</c>`
word timing) share the pattern, and so do SRTs converted from them.

Hand-written because none of the caption libraries (webvtt-py, srt) knows about roll-up
captions: they faithfully return every repeated line.

How: a cue's leading lines that equal the lines most recently emitted are the roll-up repeat
and are dropped; what is left is new speech and becomes a segment with the cue's times. A cue
that holds nothing new (the 10 ms switch cues, or a sound tag such as `[Music]` shown again
after a blank) only stretches the end of the segment it repeats, so `[Music]` over a long
intro comes out once, spanning the whole stretch, rather than once per cue.
"""

from __future__ import annotations

from v2c_desktop.core.captions.cue import RawCue

# The pattern is "rolling" when this share of consecutive cue pairs (and at least
# MIN_HITS of them) start with the line the cue before ended with. Creator captions repeat
# a line across cues almost never; roll-up captions do it on nearly every cue.
MIN_SHARE = 0.3
MIN_HITS = 3
# How many recently emitted lines a cue may repeat (YouTube shows two; leave some slack).
HISTORY = 3


def looks_rolling(cues: list[RawCue]) -> bool:
    """True when the cues (lines already cleaned, blanks dropped) follow the roll-up pattern."""
    pairs = hits = 0
    previous_last: str | None = None
    for cue in cues:
        if not cue.lines:
            continue
        if previous_last is not None:
            pairs += 1
            if cue.lines[0] == previous_last:
                hits += 1
        previous_last = cue.lines[-1]
    return hits >= MIN_HITS and hits >= MIN_SHARE * pairs


def _repeated_prefix(history: list[str], lines: list[str]) -> int:
    """How many of `lines`' leading lines repeat the tail of `history`."""
    for size in range(min(len(lines), len(history)), 0, -1):
        if lines[:size] == history[-size:]:
            return size
    return 0


def collapse_rolling(cues: list[RawCue]) -> list[RawCue]:
    """One cue per newly spoken line, repeats removed (cues sorted by start)."""
    out: list[RawCue] = []
    history: list[str] = []
    for cue in cues:
        if not cue.lines:
            continue
        repeated = _repeated_prefix(history, cue.lines)
        new_lines = cue.lines[repeated:]
        if not new_lines:
            if out:
                out[-1].end = max(out[-1].end, cue.end)
            continue
        out.append(RawCue(cue.start, cue.end, new_lines))
        history = (history + new_lines)[-HISTORY:]
    return out
