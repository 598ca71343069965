"""Turn one caption line's markup into plain, single-spaced text.

Hand-written because no caption library does this the same way for every format: SRT players
accept HTML-ish `<i>`/`<font>` tags and ASS `{\\an8}` overrides that the `srt` library keeps
in the text, YouTube srv1 XML carries entity-escaped `&lt;i>` that only becomes markup once the
XML is decoded, and any format may carry HTML entities. webvtt-py strips WebVTT cue tags
itself; running its output through here too is harmless and keeps every format's text alike.
"""

from __future__ import annotations

import html
import re
import unicodedata

from ..plain_text import strip_controls

# Tag-shaped only: `<i>`, `</font>`, `<c.colorCCCCCC>`, `<v Roger>` and VTT word timestamps
# `<00:00:01.280>`. A bare "<" in speech ("x < y") is left alone.
_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<(?:\d+:)?\d{1,2}:\d{1,2}[.,]\d{1,3}>")
_ASS_OVERRIDE = re.compile(r"\{\\[^{}]*\}")


def clean_line(raw: str) -> str:
    """Strip markup, unescape entities, control characters and collapse whitespace.

    Whitespace includes no-break spaces; entities go first so `&#27;` cannot smuggle one in.
    """
    text = _ASS_OVERRIDE.sub("", _TAG.sub("", raw)) if ("<" in raw or "{" in raw) else raw
    if "&" in text:
        text = html.unescape(text)
    return " ".join(strip_controls(text).split())


def has_words(text: str) -> bool:
    """True when the text says something: a letter, digit or symbol such as ♪.

    A cue that is only punctuation (the lone "." cues in some creator SRTs) is dropped like
    an empty one: joined into a transcript it only adds a stray mark.
    """
    return any(ch.isalnum() or unicodedata.category(ch)[0] == "S" for ch in text)


def word_count(text: str) -> int:
    """Whitespace-separated words, for reading-time estimates."""
    return len(text.split())
