"""Caption parsers: WebVTT, SRT, YouTube json3 and YouTube timedtext XML to clean segments.

Every importer (YouTube, yt-dlp folders, subtitle files) goes through `read_captions` (or
`parse_captions`, its segments alone), so the library holds the same kind of text whatever
the source: sorted by start, plain text with single spaces, no empty cues, no segment ending
before it starts, and YouTube's rolling auto-caption repeats collapsed (see `rolling`).
Failures are `V2CError`s: "bad-request" for a recognised but broken file (with the line or
cue to look at), "unsupported-input" for something that is not captions, "no-transcript" for
a file without text.

A few damaged cues in an otherwise good SRT or WebVTT file (a timing line that cannot be
read, a cue number with no timing line) do not sink the file: they are left out, never
turned into speech, and listed in `Captions.skipped` with their line numbers so the import
can say so. A file cut off inside its last cue, or with more damaged cues than good ones,
is refused.

Which code reads what: webvtt-py reads WebVTT (`vtt`), the `srt` library reads SRT
(`subrip`), defusedxml reads timedtext XML (`timedtext`), the stdlib reads json3 (`json3`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from v2c_desktop.core.captions.cue import ParsedCues, SkippedCue
from v2c_desktop.core.captions.decode import decode_bytes, looks_binary
from v2c_desktop.core.captions.detect import CaptionFormat, detect_format
from v2c_desktop.core.captions.failures import FORMAT_LABELS, no_text, not_subtitles
from v2c_desktop.core.captions.finish import finish
from v2c_desktop.core.captions.json3 import parse_json3
from v2c_desktop.core.captions.subrip import parse_srt
from v2c_desktop.core.captions.timedtext import parse_timedtext
from v2c_desktop.core.captions.vtt import parse_vtt
from v2c_desktop.core.domain.videos import Segment

__all__ = [
    "CaptionFormat",
    "Captions",
    "SkippedCue",
    "detect_format",
    "parse_captions",
    "read_captions",
]

_PARSERS: dict[str, Callable[[str, str], ParsedCues]] = {
    "vtt": parse_vtt,
    "srt": parse_srt,
    "json3": lambda text, name: ParsedCues(parse_json3(text, name)),
    "timedtext": lambda text, name: ParsedCues(parse_timedtext(text, name)),
}


@dataclass(slots=True)
class Captions:
    """The clean segments of a caption file and the damaged cues left out of them."""

    segments: list[Segment]
    skipped: list[SkippedCue] = field(default_factory=list)


def parse_captions(
    data: str | bytes, fmt: CaptionFormat | None = None, *, source_name: str = ""
) -> list[Segment]:
    """Clean segments from caption text or bytes (`read_captions` without the skipped cues)."""
    return read_captions(data, fmt, source_name=source_name).segments


def read_captions(
    data: str | bytes, fmt: CaptionFormat | None = None, *, source_name: str = ""
) -> Captions:
    """Clean segments from caption text or bytes, and the damaged cues that were left out.

    Bytes are decoded (UTF-8 with or without BOM, UTF-16 with BOM, else cp1252). `fmt=None`
    detects the format from the content, then from `source_name`'s extension. Raises
    V2CError ("bad-request", "unsupported-input" or "no-transcript"), never a library error.
    """
    text = decode_bytes(data) if isinstance(data, bytes) else data
    text = text.lstrip("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise no_text(source_name, "the file is empty")
    if looks_binary(text):
        raise not_subtitles(source_name, "it holds binary data, not text")
    if fmt is None:
        fmt = detect_format(text, source_name)
    elif fmt not in _PARSERS:
        raise not_subtitles(source_name, f"{fmt!r} is not a caption format we read")
    parsed = _PARSERS[fmt](text.rstrip(), source_name)
    segments = finish(parsed.cues)
    if not segments:
        raise no_text(source_name, f"the {FORMAT_LABELS[fmt]} file has no cue with words")
    return Captions(segments, parsed.skipped)
