"""WebVTT: parsed by webvtt-py, with a hand-written pre-check that finds damaged cues.

webvtt-py (`webvtt.from_string`) reads the blocks, timestamps, identifiers, styles and cue
text and strips cue tags (`<c>`, `<00:00:01.280>`, `<c.colorCCCCCC>`). Hand-written here,
because webvtt-py does not do it:

- a pre-check that splits the file into blocks the way webvtt-py does and finds the damaged
  cues (an unreadable or out-of-range timing, a timing cut short, text with no timing line),
  since webvtt-py in its default lenient mode drops them without a word and its strict mode
  rejects harmless things real files have, without saying where. A damaged cue is taken out
  and reported with its line (`SkippedCue`); a file cut off inside its last cue, or with
  more damaged cues than readable ones, is refused (the same rules as for SRT);
- tolerance for two common slips: a missing `WEBVTT` header (files written by hand or by
  tools that forgot it; the timings still say "WebVTT") and SRT-style `,` milliseconds.
"""

from __future__ import annotations

import re

import webvtt
from webvtt.errors import MalformedCaptionError, MalformedFileError

from v2c_desktop.core.captions.cue import ParsedCues, RawCue, SkippedCue
from v2c_desktop.core.captions.failures import broken, snippet

_TS = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TS}[ \t]*-->[ \t]*{_TS}(?=[ \t]|$)")
# What is left of a timing line cut short: digits, colons, separators, part of the arrow.
_FRAGMENT = re.compile(r"^[ \t]*\d+(?::\d*)+(?:[.,]\d*)?[ \t]*-{0,2}>?[ \t]*$")
_ONLY_DIGITS = re.compile(r"^[ \t\d:.,>-]+$")
_BLOCK_KEYWORDS = ("NOTE", "STYLE", "REGION")


def _seconds(hours: str | None, minutes: str, seconds: str, millis: str) -> float | None:
    """The timestamp in seconds, None when a field is out of range."""
    if int(minutes) > 59 or int(seconds) > 59:
        return None
    return (
        int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis.ljust(3, "0")) / 1000
    )


def _timing_problem(line: str) -> tuple[str, str]:
    """Why a cue timing line cannot be used, quoting it and not; ("", "") when it can."""
    match = _TIMING.match(line)
    if not match:
        return f"the cue timing {snippet(line)!r} cannot be read", "the cue timing cannot be read"
    if _seconds(*match.groups()[:4]) is None or _seconds(*match.groups()[4:]) is None:
        return f"the cue timing {snippet(line)!r} is out of range", "the cue timing is out of range"
    return "", ""


def _with_dots(line: str) -> str:
    """A readable timing line with SRT-style `,` milliseconds turned into `.`."""
    match = _TIMING.match(line)
    assert match is not None
    head = match.group(0)
    return head.replace(",", ".") + line[len(head) :] if "," in head else line


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """The blocks as webvtt-py splits them, as (first index, end index); the header first.

    A block ends at an empty line, and webvtt-py's rule: a "-->" line that cannot be the
    block's own timing line (the header's, or after two lines, or after another "-->" line)
    starts the next block.
    """
    blocks: list[tuple[int, int]] = []
    start = -1  # the current block's first line, -1 between blocks
    for index, line in enumerate(lines):
        if start >= 0 and (
            not line
            or ("-->" in line and (not blocks or index - start > 1 or "-->" in lines[start]))
        ):
            blocks.append((start, index))
            start = -1
        if line and start < 0:
            start = index
    if start >= 0:
        blocks.append((start, len(lines)))
    return blocks


def _block_problem(lines: list[str], start: int, end: int) -> tuple[str, str, int] | None:
    """Why a block after the header is a damaged cue (quoting the file and not), and its line
    index; None when fine."""
    block = lines[start:end]
    for position in (0, 1):
        if position < len(block) and "-->" in block[position]:
            problem, bare = _timing_problem(block[position])
            return (problem, bare, start + position) if problem else None
    if block[0].startswith(_BLOCK_KEYWORDS) or not any(line.strip() for line in block):
        return None
    filled = [line for line in block if line.strip()]
    if len(filled) == 1 and end < len(lines) and "-->" in lines[end]:
        return None  # an identifier (or stray line) right above a cue, as webvtt-py reads it
    for position in (0, 1):  # no "-->" in either: a timing line cut short, or none at all
        if position < len(block) and _FRAGMENT.match(block[position]):
            problem = f"the cue timing {snippet(block[position])!r} is cut off"
            return problem, "the cue timing is cut off", start + position
    return f"{snippet(' '.join(filled))!r} has no cue timing line", "text with no cue timing", start


def _prepare(text: str, source_name: str) -> tuple[str, list[SkippedCue]]:
    """Add a missing header, fix `,` milliseconds, and take damaged cues out.

    A damaged cue is blanked out and reported; a file cut off inside its last cue, or with
    more damaged cues than readable ones, is refused. Line numbers in messages are those of
    the file the user has.
    """
    lines = text.split("\n")
    blank = 0
    while blank < len(lines) - 1 and not lines[blank].strip():
        blank += 1
    del lines[:blank]
    shift = -blank  # a file line number is list index + 1 - shift
    if not lines[0].startswith("WEBVTT"):
        if "-->" not in text:
            raise broken(source_name, "vtt", "there is no WEBVTT header and no cue", line=1)
        lines[:0] = ["WEBVTT", ""]
        shift += 2
    blocks = _blocks(lines)[1:]  # the first block is the header
    skipped: list[SkippedCue] = []
    good = 0
    for number, (start, end) in enumerate(blocks):
        found = _block_problem(lines, start, end)
        if found is None:
            for index in range(start, min(start + 2, end)):
                if "-->" in lines[index]:
                    lines[index] = _with_dots(lines[index])
                    good += 1
            continue
        problem, bare, where = found
        tail = [line for line in lines[start:end] if line.strip()]
        if number == len(blocks) - 1 and all(_ONLY_DIGITS.match(line) for line in tail):
            raise broken(
                source_name, "vtt", "the file ends in the middle of a cue", line=start + 1 - shift
            )
        skipped.append(SkippedCue(where + 1 - shift, problem, bare))
        lines[start:end] = [""] * (end - start)
    if skipped and (not good or len(skipped) > good):
        first = skipped[0]
        if good:
            problem = f"{len(skipped)} of {len(skipped) + good} cues cannot be read, the first: "
        else:
            problem = "no cue can be read: "
        # the file is refused: it may be no captions at all, so nothing of it is quoted
        raise broken(source_name, "vtt", problem + first.unquoted, line=first.line)
    return "\n".join(lines), skipped


def parse_vtt(text: str, source_name: str) -> ParsedCues:
    """The cues of a WebVTT text (line endings already `\\n`) and the damaged ones skipped."""
    prepared, skipped = _prepare(text, source_name)
    try:
        captions = webvtt.from_string(prepared).captions
    except (MalformedFileError, MalformedCaptionError, ValueError) as error:
        # webvtt-py's messages quote the file: say only what kind of error it was
        raise broken(source_name, "vtt", f"cannot read the cues ({type(error).__name__})") from None
    cues = [
        RawCue(
            caption.start_time.in_milliseconds() / 1000,
            caption.end_time.in_milliseconds() / 1000,
            caption.text.split("\n"),
        )
        for caption in captions
    ]
    return ParsedCues(cues, skipped)
