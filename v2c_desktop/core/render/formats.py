"""The format registry: what a transcript can be rendered as, looked up at runtime.

The CLI, the MCP `list_formats` tool and the GUI's export menu all list `FORMATS`, so adding a
format here adds it everywhere, and no surface keeps its own hard-coded list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.videos import Segment, VideoRecord
from ..errors import bad_request
from .common import PageInfo, Renderer
from .jsonfmt import render_json
from .markdown import render_markdown
from .subtitles import render_srt, render_vtt
from .text import render_text


@dataclass(frozen=True, slots=True)
class FormatInfo:
    """A format as surfaces list it; `extension` has no leading dot (`"srt"`)."""

    id: str
    description: str
    mime_type: str
    extension: str


FORMATS: dict[str, FormatInfo] = {
    info.id: info
    for info in (
        FormatInfo(
            "text",
            "Plain text: source header, then [m:ss] lines (or paragraphs without timestamps)",
            "text/plain",
            "txt",
        ),
        FormatInfo(
            "markdown",
            "Markdown note: metadata, chapter headings, lines linked to their moment",
            "text/markdown",
            "md",
        ),
        FormatInfo(
            "json",
            "JSON: video metadata, transcript origin, chapters and segments with start/end",
            "application/json",
            "json",
        ),
        FormatInfo("srt", "SubRip subtitles", "application/x-subrip", "srt"),
        FormatInfo("vtt", "WebVTT subtitles", "text/vtt", "vtt"),
    )
}

_RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
    "srt": render_srt,
    "vtt": render_vtt,
}

# Names people type for the same formats; accepted, never listed.
_ALIASES = {"txt": "text", "md": "markdown", "webvtt": "vtt"}


def format_id(fmt: str) -> str:
    """The registry id for `fmt` (case-insensitive, common aliases); bad-request if unknown."""
    key = fmt.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise bad_request(
            f"unknown format {fmt!r}",
            f"use one of: {', '.join(FORMATS)}",
        )
    return key


def renderer(fmt: str) -> Renderer:
    return _RENDERERS[format_id(fmt)]


def render(
    record: VideoRecord,
    fmt: str,
    *,
    segments: Sequence[Segment] | None = None,
    timestamps: bool = True,
) -> str:
    """`record` (or just `segments` of it, e.g. a section) in format `fmt`, unpaged."""
    chosen = record.transcript.segments if segments is None else segments
    return renderer(fmt)(record, chosen, timestamps=timestamps, page=None)


def render_page(
    record: VideoRecord,
    fmt: str,
    segments: Sequence[Segment],
    page: PageInfo,
    *,
    timestamps: bool = True,
) -> str:
    """One page of a paged rendering; `segments` are the page's own segments."""
    return renderer(fmt)(record, segments, timestamps=timestamps, page=page)
