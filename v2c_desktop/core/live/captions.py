"""A live stream's own captions: the WebVTT segments of its HLS subtitles rendition.

Each segment is a small WebVTT file read by the library's caption parser. RFC 8216 ties its
cue times to the stream's clock with `X-TIMESTAMP-MAP` (MPEG-TS ticks of 90 kHz against a
local cue time), and repeats a cue in every segment it overlaps, so cues are moved onto the
stream's clock and each is taken once. Times are seconds from the first line seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..captions import read_captions
from ..domain.videos import Segment
from ..errors import V2CError
from ..timecode import parse_time

_MAP = re.compile(r"^X-TIMESTAMP-MAP=(.*)$", re.MULTILINE)
_MPEGTS_HZ = 90000


def timestamp_shift(text: str) -> float:
    """Seconds to add to the cue times of a WebVTT segment to put them on the stream's clock
    (0 when it has no `X-TIMESTAMP-MAP`)."""
    found = _MAP.search(text)
    if found is None:
        return 0.0
    fields = dict(part.split(":", 1) for part in found.group(1).split(",") if ":" in part)
    try:
        ticks = int(fields.get("MPEGTS", "0"))
        local = parse_time(fields.get("LOCAL", "0"))
    except (ValueError, V2CError):
        return 0.0
    return ticks / _MPEGTS_HZ - local


def segment_cues(data: bytes, name: str) -> list[Segment]:
    """The cues of one WebVTT segment on the stream's clock (none for an empty segment)."""
    text = data.decode("utf-8", errors="replace")
    shift = timestamp_shift(text)
    try:
        cues = read_captions(text, "vtt", source_name=name).segments
    except V2CError as error:
        if error.code == "no-transcript":
            return []  # a segment while nobody speaks
        raise
    return [Segment(c.start + shift, c.end + shift, c.text) for c in cues]


@dataclass
class LiveCaptions:
    """The captions of one watch: `add` each segment's cues, get the new lines back."""

    origin: float | None = None
    _seen: set[tuple[int, str]] = field(default_factory=set)

    def add(self, cues: list[Segment]) -> list[Segment]:
        fresh: list[Segment] = []
        for cue in sorted(cues, key=lambda c: c.start):
            key = (round(cue.start * 1000), cue.text)
            if key in self._seen:
                continue
            self._seen.add(key)
            if self.origin is None:
                self.origin = cue.start
            start = max(0.0, cue.start - self.origin)
            fresh.append(
                Segment(round(start, 3), round(max(start, cue.end - self.origin), 3), cue.text)
            )
        return fresh
