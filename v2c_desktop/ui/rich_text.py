"""Turning untrusted text (titles, transcripts, snippets) into safe Qt rich text."""

from __future__ import annotations

import html
import re

from v2c_desktop.core.timecode import clock

from .links import seek_href

_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def escape(text: str) -> str:
    return html.escape(text, quote=True)


def snippet_html(snippet: str) -> str:
    """A search snippet with its `**matched**` words bold: escaped first, then marked up."""
    return _BOLD.sub(r"<b>\1</b>", escape(snippet))


def time_link(video_id: str, seconds: float, text: str | None = None) -> str:
    """An `<a>` that seeks `video_id` to `seconds`, labelled `[m:ss]` unless told otherwise."""
    label = text if text is not None else f"[{clock(seconds)}]"
    return f'<a href="{escape(seek_href(video_id, seconds))}">{escape(label)}</a>'


def range_label(start: float, end: float) -> str:
    return f"[{clock(start)}-{clock(end)}]"
