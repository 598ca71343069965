"""Cycles holding Qt objects are collected in the GUI thread, never by a worker's allocation."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject, QTimer
from pytestqt.qtbot import QtBot

from v2c_desktop.ui.main_thread_gc import MainThreadCollector


class Holder(QObject):
    """A QObject with a running timer, in a reference cycle with itself."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.start(10_000)
        self.me = self


def test_a_cycle_is_collected_by_the_collector_not_by_a_worker_thread(qtbot: QtBot) -> None:
    enabled_before = gc.isenabled()
    collector = MainThreadCollector(interval_ms=50)
    try:
        assert not gc.isenabled()
        gone = weakref.ref(holder := Holder())
        del holder
        threads: list[str] = []

        def allocate() -> None:  # garbage cycles: with automatic collection on, this collects
            for _ in range(5000):
                cycle: list[object] = []
                cycle.append(cycle)
            threads.append(threading.current_thread().name)

        worker = threading.Thread(target=allocate, name="worker")
        worker.start()
        worker.join()
        assert threads == ["worker"]
        assert gone() is not None  # the worker's allocations did not collect it
        qtbot.waitUntil(lambda: gone() is None, timeout=5000)  # collected on the GUI thread
    finally:
        collector.stop()
    assert gc.isenabled() == enabled_before
