"""SRT: parsed by the `srt` library, with a check for cues it would swallow silently.

`srt.parse` handles the real-world mess (missing blank lines, blank lines inside cues, `.`
milliseconds, stray whitespace) and raises `SRTParseError` with a character offset when a
block cannot be read; that offset is turned into a line number here.

Hand-written: `srt` reads a file cut off early in a timing line (`57\\n00:03:1`) as more
text of the cue before it, so the cut goes unnoticed. `_swallowed_cue` looks for a cue
number plus a timestamp fragment after a blank line inside a cue's text and reports it.
"""

from __future__ import annotations

import re

import srt

from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.failures import broken

_ARROW_LINE = re.compile(r"^.*-->.*$", re.M)
# Inside a cue's text: blank line, a cue number, then (the start of) a timestamp or nothing.
_SWALLOWED = re.compile(
    r"\n[ \t]*\n[ \t]*(?P<cue>\d+)[ \t]*(?:\n[ \t]*\d+[:.,]?\d*[:.,\d \t>-]*)?\s*$"
)


def _line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def _swallowed_cue(content: str) -> int | None:
    """Offset in `content` where a cut-off cue was absorbed into the text, if any."""
    match = _SWALLOWED.search(content)
    return match.start("cue") if match else None


def parse_srt(text: str, source_name: str) -> list[RawCue]:
    """The cues of an SRT text (line endings already `\\n`)."""
    arrow_lines = [_line_of(text, m.start()) for m in _ARROW_LINE.finditer(text)]
    cues: list[RawCue] = []
    try:
        for number, subtitle in enumerate(srt.parse(text)):
            content: str = subtitle.content
            # The text starts on the line after this cue's timing line.
            first_text_line = arrow_lines[min(number, len(arrow_lines) - 1)] + 1
            if "-->" in content:
                line = first_text_line + content.count("\n", 0, content.index("-->"))
                raise broken(source_name, "srt", "a cue timing line is malformed", line=line)
            cut = _swallowed_cue(content)
            if cut is not None:
                line = first_text_line + content.count("\n", 0, cut)
                raise broken(
                    source_name, "srt", "the file ends in the middle of a cue timing", line=line
                )
            start = subtitle.start.total_seconds()
            end = subtitle.end.total_seconds()
            cues.append(RawCue(float(start), float(end), content.split("\n")))
    except srt.SRTParseError as error:
        unmatched: str = error.unmatched_content
        offset = int(error.expected_start) + len(unmatched) - len(unmatched.lstrip())
        snippet = " ".join(unmatched.split())[:60]
        raise broken(
            source_name,
            "srt",
            f"cannot read the cue starting {snippet!r} (its timing line is cut off or malformed)",
            line=_line_of(text, offset),
        ) from error
    except srt.TimestampParseError as error:
        raise broken(source_name, "srt", str(error)) from error
    return cues
