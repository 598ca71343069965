"""A Qt message handler that stays installed for the whole test session.

pytest-qt installs its capture handler for each test and, after it, puts back the handler
that was there before. With none before, it installs `None`, and PySide then clears its
global handler at once, while a Qt worker thread may already be inside PySide's trampoline
waiting for the GIL (FFmpeg's audio renderer warns "No audio device detected" from its own
thread as a test's player starts or stops). That thread then calls a NULL handler: the
segfault CI saw between two GUI tests (gdb on the core: `_PyObject_Call(callable=0x0)`
under `QMessageLogger::warning` in libffmpegmediaplugin). Installed first, this handler is
the one pytest-qt puts back, so PySide always holds a live callable.
"""

from __future__ import annotations

import sys
from typing import Any

_installed = False


def _to_stderr(_kind: Any, _context: Any, message: str) -> None:
    """What Qt's own handler does: the message on stderr (captured per test by pytest)."""
    sys.stderr.write(f"{message}\n")


def keep_installed() -> None:
    """Install the session's handler once, before pytest-qt's first test installs its own."""
    global _installed
    if _installed:
        return
    try:
        from PySide6.QtCore import qInstallMessageHandler
    except ImportError:  # no Qt here: nothing can log through PySide
        return
    qInstallMessageHandler(_to_stderr)
    _installed = True
