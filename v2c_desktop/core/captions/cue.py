"""The shapes every format parser hands on: cues with their times, and the cues it skipped."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class RawCue:
    """One cue as its format stores it: start/end in seconds and its text lines (markup kept)."""

    start: float
    end: float
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SkippedCue:
    """A damaged cue left out of the transcript: where it starts in the file and why.

    A cue whose timing cannot be read is skipped whole, text included: without a time its
    words cannot be placed, and its index or broken timing line must never become speech.
    """

    line: int  # 1-based line of the file where the cue starts
    problem: str  # "cue 2 has no timing line (its text: 'Caption text #2')"
    # The problem without any quote of the file, for when the whole file is refused: a file
    # that is not captions at all (a key, a password file named .srt) is never echoed.
    bare: str = ""

    @property
    def unquoted(self) -> str:
        """`problem` without quoted content: `bare` when the parser set one."""
        return self.bare or self.problem

    def describe(self) -> str:
        """`line 5: cue 2 has no timing line (...), so it was left out`."""
        return f"line {self.line}: {self.problem}, so it was left out"


@dataclass(slots=True)
class ParsedCues:
    """What a format parser read: the good cues and the damaged ones it skipped."""

    cues: list[RawCue]
    skipped: list[SkippedCue] = field(default_factory=list)
