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

# Tag-shaped only: `<i>`, `</font>`, `<c.colorCCCCCC>`, `<v Roger>` and VTT word timestamps
# `<00:00:01.280>`. A bare "<" in speech ("x < y") is left alone.
_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<(?:\d+:)?\d{1,2}:\d{1,2}[.,]\d{1,3}>")
_ASS_OVERRIDE = re.compile(r"\{\\[^{}]*\}")
# Terminal escape sequences, 7-bit (ESC ...) and 8-bit (C1 CSI/OSC/DCS ...), taken out whole
# so no payload is left behind: OSC (`ESC ] 52;c;... BEL`, clipboard writes; `ESC ] 8;;url`,
# links) and DCS/SOS/PM/APC strings up to BEL or ST, CSI (`ESC [ 2 J`, screen clears) up to
# their final byte, and any other two-character ESC sequence. An unterminated string ends at
# the end of its line.
_ESCAPE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?"
    r"|\x1b[\x20-\x7e]?"
)
# C0 and C1 control characters (and DEL) but newline and tab.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """`text` without terminal escape sequences and C0/C1 control characters (but `\\n`, `\\t`).

    Titles, channel names, descriptions and captions come from files and sites nobody
    vetted; printed raw to a terminal, `ESC ] 52` writes the clipboard, `ESC ] 8` plants a
    link and `ESC [ 2 J` clears the screen. A carriage return goes too (it rewrites a line).
    """
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", _ESCAPE.sub("", text))


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
