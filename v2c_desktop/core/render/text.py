"""Plain text: the header, then `[m:ss] text` lines (or flowing paragraphs)."""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.videos import Segment, VideoRecord
from ..timecode import clock
from .common import PageInfo, one_line, paragraphs
from .header import context_header


def text_body(record: VideoRecord, segments: Sequence[Segment], *, timestamps: bool) -> str:
    """The transcript lines without the header, shared by sections that add their own intro.

    With timestamps every segment is its own line, so a reader can cite any sentence; without
    them the text flows in paragraphs, which reads (and tokenizes) better for summarising.
    """
    if timestamps:
        return "\n".join(f"[{clock(s.start)}] {one_line(s.text)}".rstrip() for s in segments)
    return "\n\n".join(p.text for p in paragraphs(record, segments))


def render_text(
    record: VideoRecord,
    segments: Sequence[Segment],
    *,
    timestamps: bool,
    page: PageInfo | None,
) -> str:
    parts = [context_header(record), text_body(record, segments, timestamps=timestamps)]
    if page is not None:
        parts.append(page.trailer())
    return "\n\n".join(p for p in parts if p) + "\n"
