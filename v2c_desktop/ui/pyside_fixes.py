"""Work-arounds for PySide6 bugs that would crash the app; each one detects its bug first.

PySide6 6.12.0 `SignalInstance.emit()` returns `True` without taking a reference to it. On
Python 3.12+ `True` is immortal and nothing happens; on Python 3.11 every `emit()` from
Python (ours, qasync's thread-safe wake-ups, pytest-qt's) takes one reference away, and
after a few thousand signals (minutes of playback) the interpreter aborts with "Fatal
Python error: bool_dealloc". The fix gives `True` the immortality 3.12 gives it: a
reference count so large that no number of lost references can bring it to zero.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal

_PIN = 1 << 40
_applied = False


class _Probe(QObject):
    ping = Signal()


def emit_loses_true_references() -> bool:
    """Whether `emit()` loses references to `True` (measured, not assumed from versions)."""
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    return sys.getrefcount(True) < before


def pin_true() -> bool:
    """Make `True` effectively immortal when this PySide6 loses references to it.

    Returns whether the pin was applied (now or earlier in this process).
    """
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if not emit_loses_true_references():
        return False
    before = sys.getrefcount(True)
    refcount = ctypes.c_ssize_t.from_address(id(True))  # ob_refcnt leads every PyObject
    refcount.value += _PIN
    if sys.getrefcount(True) != before + _PIN:  # not the layout we expected: undo
        refcount.value -= _PIN
        return False
    _applied = True
    return True
