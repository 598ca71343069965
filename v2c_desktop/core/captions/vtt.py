"""WebVTT: parsed by webvtt-py, with a hand-written pre-check that finds broken cues.

webvtt-py (`webvtt.from_string`) reads the blocks, timestamps, identifiers, styles and cue
text and strips cue tags (`<c>`, `<00:00:01.280>`, `<c.colorCCCCCC>`). Hand-written here,
because webvtt-py does not do it:

- a pre-check, since webvtt-py in its default lenient mode silently skips a cue whose timing
  line is broken (a file cut off mid timing line just loses its last cue, with no error),
  and its strict mode rejects harmless things real files have, without saying where;
- tolerance for two common slips: a missing `WEBVTT` header (files written by hand or by
  tools that forgot it; the timings still say "WebVTT") and SRT-style `,` milliseconds.
"""

from __future__ import annotations

import re

import webvtt
from webvtt.errors import MalformedCaptionError, MalformedFileError

from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.failures import broken

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


def _check_timing(line: str, number: int, source_name: str) -> str:
    """Validate one timing line; returns it with `,` milliseconds turned into `.`."""
    match = _TIMING.match(line)
    if not match:
        raise broken(
            source_name, "vtt", f"cannot read the cue timing {line.strip()!r}", line=number
        )
    start = _seconds(*match.groups()[:4])
    end = _seconds(*match.groups()[4:])
    if start is None or end is None:
        raise broken(
            source_name, "vtt", f"the cue timing {line.strip()!r} is out of range", line=number
        )
    head = match.group(0)
    return head.replace(",", ".") + line[len(head) :] if "," in head else line


def _prepare(text: str, source_name: str) -> str:
    """Add a missing header, fix `,` milliseconds and raise on broken cue timings.

    Line numbers in messages are those of the file the user has.
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
    block_start = 0  # index of the current block's first line (0: the header block)
    in_header = True
    last_block: list[int] = []
    for index in range(1, len(lines)):
        line = lines[index]
        if not line:
            in_header = False
            block_start = index + 1
            last_block = []
            continue
        if "-->" in line:
            in_header = False
            lines[index] = _check_timing(line, index + 1 - shift, source_name)
        elif in_header:
            continue
        else:
            position = index - block_start
            first = lines[block_start]
            if (position == 0 or (position == 1 and "-->" not in first)) and (
                _FRAGMENT.match(line) and not first.startswith(_BLOCK_KEYWORDS)
            ):
                raise broken(
                    source_name,
                    "vtt",
                    f"the cue timing {line.strip()!r} is cut off",
                    line=index + 1 - shift,
                )
        last_block.append(index)
    if last_block and not in_header and len(last_block) <= 2:
        tail = [lines[i] for i in last_block]
        if all(_ONLY_DIGITS.match(line) for line in tail) and not any("-->" in t for t in tail):
            raise broken(
                source_name,
                "vtt",
                "the file ends in the middle of a cue",
                line=last_block[0] + 1 - shift,
            )
    return "\n".join(lines)


def parse_vtt(text: str, source_name: str) -> list[RawCue]:
    """The cues of a WebVTT text (line endings already `\\n`)."""
    prepared = _prepare(text, source_name)
    try:
        captions = webvtt.from_string(prepared).captions
    except (MalformedFileError, MalformedCaptionError, ValueError) as error:
        raise broken(source_name, "vtt", str(error) or type(error).__name__) from error
    return [
        RawCue(
            caption.start_time.in_milliseconds() / 1000,
            caption.end_time.in_milliseconds() / 1000,
            caption.text.split("\n"),
        )
        for caption in captions
    ]
