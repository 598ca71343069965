"""SRT and WebVTT files, for players and editors that want subtitles back.

Both must be valid on their own (a page of either loads in a player), so text that would
break the syntax is cleaned: blank lines inside a cue end it early, `-->` starts a timing
line, and WebVTT reads `&` and `<` as markup. Segments without text are left out: an empty
cue shows nothing and some parsers reject it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.videos import Segment, VideoRecord
from ..timecode import subtitle_clock
from .common import PageInfo
from .header import source_location


def _cue_lines(text: str) -> list[str]:
    """The cue's lines without blank ones (a blank line would end the cue)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _times(seg: Segment, separator: str) -> str:
    # Some real files end a cue before it starts; players reject that, so we clamp.
    end = max(seg.end, seg.start)
    return f"{subtitle_clock(seg.start, separator)} --> {subtitle_clock(end, separator)}"


def render_srt(
    record: VideoRecord,
    segments: Sequence[Segment],
    *,
    timestamps: bool,
    page: PageInfo | None,
) -> str:
    """Cues numbered from 1 on every page; SRT has no comments, so paging info stays outside."""
    blocks: list[str] = []
    for seg in segments:
        lines = [line.replace("-->", "->") for line in _cue_lines(seg.text)]
        if lines:
            blocks.append("\n".join([str(len(blocks) + 1), _times(seg, ","), *lines]))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _vtt_escape(line: str) -> str:
    return line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _note(lines: list[str]) -> str:
    """A NOTE block; it may hold neither `-->` nor a blank line."""
    clean = [line.replace("-->", "->").strip() for line in lines]
    return "\n".join(["NOTE", *[line for line in clean if line]])


def render_vtt(
    record: VideoRecord,
    segments: Sequence[Segment],
    *,
    timestamps: bool,
    page: PageInfo | None,
) -> str:
    """`WEBVTT`, a NOTE naming the source (and the page and next cursor), then the cues."""
    video = record.video
    _, where = source_location(video)
    blocks = ["WEBVTT", _note([video.title or video.id, where])]
    if page is not None:
        blocks.append(_note([page.trailer()]))
    for seg in segments:
        lines = [_vtt_escape(line) for line in _cue_lines(seg.text)]
        if lines:
            blocks.append("\n".join([_times(seg, "."), *lines]))
    return "\n\n".join(blocks) + "\n"
