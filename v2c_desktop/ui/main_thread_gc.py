"""Python's cycle collector, run only in the GUI thread.

The collector runs in whichever thread happens to allocate when a generation fills up. In
this app that is often a worker thread (`asyncio.to_thread`, the store's worker, a model's
thread); if a closed dialog's Qt objects sit in a reference cycle, the collector then
deletes them from that thread, where Qt cannot unregister their timers, and a later timer
event lands on freed memory (a crash far from its cause, seen in the GUI tests). So the app
turns automatic collection off and collects on a timer in the GUI thread, generation by
generation as the counts pass the usual thresholds (the approach pyqtgraph and Anki use).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_MS = 500


class MainThreadCollector(QObject):
    """Turns automatic collection off while it lives; `stop` puts it back as it was."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)
        gc.disable()

    def check(self) -> int:
        """Collect the oldest generation whose count passed its threshold; objects freed."""
        counts = gc.get_count()
        generation = -1
        for level in range(3):
            if counts[level] > self._thresholds[level]:
                generation = level
        return gc.collect(generation) if generation >= 0 else 0

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()
