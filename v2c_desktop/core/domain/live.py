"""What watching a live stream streams to a face (`CoreAPI.watch_live`): a start, new lines of
text as they are heard, notes, then the saved result.

Every face shows the same objects: the CLI prints each line as it arrives, the MCP server
sends them as progress notifications and the result as structured content. They cross the
owner socket, so they are `@wire` dataclasses of plain values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..timecode import clock
from ..wire import wire

#: Where the words come from: the site's live captions, or speech-to-text on its audio.
LiveSource = Literal["captions", "speech"]
#: Why the watch stopped: the stream ended (`#EXT-X-ENDLIST`), the time asked for was up,
#: or the stream stopped answering (what was heard until then is kept).
LiveEnd = Literal["stream-ended", "max-minutes", "stream-lost"]

#: The most minutes one watch may last, and the default.
MAX_MINUTES = 240.0
DEFAULT_MINUTES = 5.0


@wire
@dataclass(frozen=True, slots=True)
class LiveLine:
    """One line of the rolling transcript. `start`/`end`: seconds from the start of watching;
    `at`: the stream's own clock at `start` (ISO 8601, UTC) when the stream states it
    (`#EXT-X-PROGRAM-DATE-TIME`), else ""."""

    start: float
    end: float
    text: str
    at: str = ""

    def line(self) -> str:
        """`[m:ss] text`, as every face prints it."""
        return f"[{clock(self.start)}] {self.text}"


@wire
@dataclass(frozen=True, slots=True)
class LiveStarted:
    """The stream was found live and is being watched: `how` says with what, in words
    ("live captions (English)", "speech-to-text with tiny.en")."""

    title: str
    url: str
    source: LiveSource
    how: str
    max_minutes: float


@wire
@dataclass(frozen=True, slots=True)
class LiveText:
    """New lines, in time order, as soon as they are heard; `watched`: seconds of the stream
    received so far; `count`: lines heard so far, these included."""

    lines: tuple[LiveLine, ...]
    watched: float
    count: int


@wire
@dataclass(frozen=True, slots=True)
class LiveNote:
    """Something worth saying while watching (segments missed, the stream stalling)."""

    message: str


@wire
@dataclass(slots=True)
class LiveResult:
    """A finished watch, saved in the library as the video `video_id` (`status`: added).

    `watched`: seconds of the stream received; `started_at`: when watching started (ISO 8601,
    UTC); `stream_at`: the stream's own clock then, when it says; `speed`: seconds of audio
    transcribed per second of transcription (0 for captions)."""

    video_id: str
    title: str
    url: str
    source: LiveSource
    language: str
    producer: str
    watched: float
    ended: LiveEnd
    started_at: str
    lines: list[LiveLine] = field(default_factory=list)
    stream_at: str = ""
    speed: float = 0.0
    status: str = "added"
    warnings: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The whole transcript as `[m:ss] text` lines."""
        return "\n".join(line.line() for line in self.lines)


@wire
@dataclass(frozen=True, slots=True)
class LiveDone:
    """The last event of a watch: its saved result."""

    result: LiveResult


LiveEvent = LiveStarted | LiveText | LiveNote | LiveDone
