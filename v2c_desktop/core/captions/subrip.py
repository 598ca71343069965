"""SRT: a hand-written scan finds the cue blocks, the `srt` library reads the good ones.

`srt.parse` copes with much real-world mess (missing blank lines between cues, blank lines
inside a cue, `.` milliseconds), but where a cue is damaged its leniency stores garbage:

- a cue whose timing line is lost (`2` then `Caption text #2` right after cue 1) is read as
  more text of cue 1, its number included: "Caption text #1 2 Caption text #2";
- a damaged timestamp is read as far as it goes: `00:00:0X,000` becomes 0 s, and "X,000"
  is kept as metadata;
- a block it cannot match at all (`00:00:0X,000 --> ...`) raises for the whole file.

So `_scan` splits the file into cue blocks first. A block starts at a readable timing line
(or the cue number just above it), at a line with an arrow that is not a readable timing
line, at a cue number after a blank line that no timing line follows, and text before the
first cue is a block of its own. A damaged block is skipped whole, text included (without
a time its words cannot be placed) and reported with its line (`SkippedCue`); the good
blocks are written out again as plain SRT for `srt.parse`, so the two always agree on
where the cues are.

What the user gets (`decide`): a file cut off inside its last cue (only a cue number or
part of a timing line left) is refused, the download is incomplete; so is a file with more
damaged cues than readable ones. Otherwise the readable cues are kept and the damaged ones
reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import srt

from v2c_desktop.core.captions.cue import ParsedCues, RawCue, SkippedCue
from v2c_desktop.core.captions.failures import broken, snippet

_SEP = r"[,.:，．。：]"  # the separators `srt` accepts between timestamp fields
_TS = rf"\d+{_SEP}\d{{1,2}}{_SEP}\d{{1,2}}(?:{_SEP}\d{{1,3}})?"
# A whole timing line (already stripped): start, arrow, end, then settings after a space.
_TIMING = re.compile(rf"^({_TS})[ \t]*-[ -][ \t]*>[ \t]*({_TS})(?:[ \t]+(.*))?$")
# A damaged timing line without "-->": a clock, then some other arrow ("=>", "->", "—>").
_ARROWISH = re.compile(r"^\d+[:.,]\d.*(?:-|=|—|–)\s*>")
_NUMBER = re.compile(r"^-?\d+(?:\.\d*)?$")
# What is left of a cue cut off mid-way: a number, digits, colons, separators, part of "-->".
_FRAGMENT = re.compile(r"^[\d:.,>\- \t]*$")


@dataclass
class _Block:
    kind: str  # "cue" (readable), "arrow" (unreadable timing), "number" (no timing), "lead"
    head: int  # 0-based index of its first line
    end: int  # index one past its last line
    number: str = ""  # its cue number as written, "" when it has none
    timing: int = -1  # index of its timing line ("cue" and "arrow" blocks)
    text: list[str] = field(default_factory=list)  # its text lines, blank ones left out


def _kind(line: str) -> str:
    stripped = line.strip()
    if not stripped:
        return "blank"
    if _TIMING.match(stripped):
        return "timing"
    if "-->" in stripped or _ARROWISH.match(stripped):
        return "arrow"
    if _NUMBER.match(stripped):
        return "number"
    return "text"


def _heads(kinds: list[str]) -> dict[int, str]:
    """Where blocks start (line index -> block kind)."""
    next_filled = [-1] * (len(kinds) + 1)
    for index in range(len(kinds) - 1, -1, -1):
        next_filled[index] = index if kinds[index] != "blank" else next_filled[index + 1]
    heads: dict[int, str] = {}
    last_head = previous = -1  # the last block start, the last non-blank line
    for index, kind in enumerate(kinds):
        if kind in ("timing", "arrow"):
            # the cue number above the timing line (blank lines between are tolerated)
            own_number = previous > last_head and kinds[previous] == "number"
            last_head = previous if own_number else index
            heads[last_head] = "cue" if kind == "timing" else "arrow"
        elif kind == "number" and (previous == -1 or kinds[index - 1] == "blank"):
            following = next_filled[index + 1]
            if following == -1 or kinds[following] not in ("timing", "arrow"):
                heads[index] = "number"  # a cue number that no timing line follows
                last_head = index
        if kind != "blank":
            previous = index
    first = next_filled[0]
    if first != -1 and (not heads or min(heads) > first):
        heads[first] = "lead"
    return heads


def _scan(lines: list[str]) -> list[_Block]:
    kinds = [_kind(line) for line in lines]
    heads = _heads(kinds)
    starts = sorted(heads)
    blocks: list[_Block] = []
    for position, head in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(lines)
        block = _Block(heads[head], head, end)
        first_text = head
        if block.kind in ("cue", "arrow", "number") and kinds[head] == "number":
            block.number = lines[head].strip()
            first_text = head + 1
        if block.kind in ("cue", "arrow"):
            block.timing = next(i for i in range(head, end) if kinds[i] in ("timing", "arrow"))
            first_text = block.timing + 1
        block.text = [line for line in lines[first_text:end] if line.strip()]
        blocks.append(block)
    return blocks


def _problem(block: _Block, lines: list[str]) -> tuple[str, str]:
    """What is wrong with a damaged block: quoting the file, and without a quote."""
    name = f"cue {block.number}" if block.number else "a cue"
    if block.kind == "arrow":
        bare = f"{name} has a timing line that cannot be read"
        return f"{bare}: {snippet(lines[block.timing])!r}", bare
    if block.kind == "number":
        said = f" (its text: {snippet(' '.join(block.text))!r})" if block.text else ""
        bare = f"{name} has no timing line"
        return bare + said, bare
    return f"{snippet(' '.join(block.text))!r} is not part of any cue", "text outside any cue"


def _is_cut_off(block: _Block, lines: list[str]) -> bool:
    """A last block that is only a cue number and/or part of a timing line."""
    rest = [line for line in lines[block.head : block.end] if line.strip()]
    return block.kind != "cue" and all(_FRAGMENT.match(line) for line in rest)


def _canonical(blocks: list[_Block], lines: list[str]) -> str:
    """The readable cues as plain SRT, numbered in order, one blank line between them."""
    parts = []
    for number, block in enumerate(blocks, start=1):
        match = _TIMING.match(lines[block.timing].strip())
        assert match is not None  # a "cue" block's timing line matched when it was scanned
        start, end, settings = match.groups()
        timing = f"{start} --> {end}" + (f" {settings}" if settings else "")
        parts.append("\n".join([str(number), timing, *block.text]))
    return "\n\n".join(parts) + "\n"


def parse_srt(text: str, source_name: str) -> ParsedCues:
    """The cues of an SRT text (line endings already `\\n`) and the damaged ones skipped."""
    lines = text.split("\n")
    blocks = _scan(lines)
    if blocks and _is_cut_off(blocks[-1], lines):
        raise broken(
            source_name,
            "srt",
            "the file ends in the middle of a cue timing (it looks cut off)",
            line=blocks[-1].head + 1,
        )
    good = [block for block in blocks if block.kind == "cue"]
    skipped = [
        SkippedCue(block.head + 1, *_problem(block, lines))
        for block in blocks
        if block.kind != "cue"
    ]
    if not good or len(skipped) > len(good):
        first = skipped[0] if skipped else SkippedCue(1, "there is no cue timing line")
        if good:
            problem = f"{len(skipped)} of {len(blocks)} cues cannot be read, the first: "
        else:
            problem = "no cue can be read: "
        # the file is refused: it may be no captions at all, so nothing of it is quoted
        raise broken(source_name, "srt", problem + first.unquoted, line=first.line)
    try:
        subtitles = list(srt.parse(_canonical(good, lines)))
    except (srt.SRTParseError, srt.TimestampParseError) as error:  # the scan should prevent it
        # srt's message quotes the file: say only what kind of error it was
        raise broken(source_name, "srt", f"cannot read the cues ({type(error).__name__})") from None
    cues = [
        RawCue(
            float(subtitle.start.total_seconds()),
            float(subtitle.end.total_seconds()),
            str(subtitle.content).split("\n"),
        )
        for subtitle in subtitles
    ]
    return ParsedCues(cues, skipped)
