"""Text bound for a terminal loses its control characters.

Titles, channel names and captions come from files and sites nobody vetted. Import strips
control characters already, but a library made by an older version (or another program)
may hold them, and printed raw to a terminal `ESC ] 52` writes the clipboard, `ESC ] 8`
plants a link and `ESC [ 2 J` clears the screen. So when stdout or stderr is a terminal,
`v2c` writes through `SafeTerminal`, which removes escape sequences and C0/C1 control
characters but newline and tab. Pipes and files get the text unchanged (`--json` output
escapes control characters itself).
"""

from __future__ import annotations

import sys
from typing import TextIO

from v2c_desktop.core.plain_text import strip_controls


class SafeTerminal:
    """A text stream that writes `strip_controls(text)` to the terminal it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(strip_controls(text))
        return len(text)

    def __getattr__(self, name: str) -> object:  # flush, fileno, isatty, encoding, ...
        return getattr(self._stream, name)


def guard_terminals() -> None:
    """Wrap stdout and stderr when they are terminals (once)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, SafeTerminal):
            continue
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        if tty:
            setattr(sys, name, SafeTerminal(stream))
