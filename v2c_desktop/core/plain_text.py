"""Text from files and sites nobody vetted, made safe to print: no terminal escapes.

Titles, channel names, descriptions and captions are stripped on import (`captions/text.py`)
and again when `v2c` prints to a terminal (`cli/terminal.py`), with this one function.
"""

from __future__ import annotations

import re

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


def counted(n: int, word: str) -> str:
    """`n` and a regular English noun, plural unless one: "1 piece", "3 pieces"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
