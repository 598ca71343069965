"""Reading transcripts back: formats, the source header, outlines, sections and pages.

Everything here works on a `VideoRecord` and returns text (or plain dataclasses), so the CLI,
the MCP server and the GUI render a transcript the same way.
"""

from __future__ import annotations

from .formats import FORMATS, FormatInfo, format_id, render
from .header import context_header
from .outline import Outline, OutlineSection, outline, render_outline
from .paging import Page, paginate
from .section import Section, find_chapter, render_section, section_line, select_section
from .tokens import estimate_tokens

__all__ = [
    "FORMATS",
    "FormatInfo",
    "Outline",
    "OutlineSection",
    "Page",
    "Section",
    "context_header",
    "estimate_tokens",
    "find_chapter",
    "format_id",
    "outline",
    "paginate",
    "render",
    "render_outline",
    "render_section",
    "section_line",
    "select_section",
]
