"""The library pane in a test: one way to open it and to select a video in it."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.panes.library.pane import LibraryPane


def make_pane(qtbot: QtBot, api: CoreAPI, runner: JobRunner) -> LibraryPane:
    pane = LibraryPane(api, runner)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    return pane


def select_video(qtbot: QtBot, pane: LibraryPane, video_id: str, timeout: int = 5000) -> None:
    """Wait for the row, select it, wait for its details (each wait up to `timeout` ms)."""
    qtbot.waitUntil(lambda: video_id in pane.table.visible_ids(), timeout=timeout)
    pane.table.select_ids([video_id])
    qtbot.waitUntil(lambda: pane.details.video_id == video_id, timeout=timeout)
