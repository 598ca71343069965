"""Key moments on the player's scrub bar: ticks appear once a video plays (found on the job
runner, extractive here: no chat model), each with its title as a tooltip, a line says how
they were found, and a click near a tick seeks exactly to its moment."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip
from pytestqt.qtbot import QtBot

from tests.gui.conftest import offline_backend, wait_for
from tests.gui.player_helpers import long_talk
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.progress import ProgressCallback
from v2c_desktop.core.timecode import clock
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.player.dock import PlayerDock
from v2c_desktop.ui.player.local_backend import LocalBackend

pytestmark = pytest.mark.gui


def test_markers_appear_with_tooltips_and_a_click_near_one_seeks_there(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = long_talk(tmp_path / "talk")  # 5 minutes, no chapters, not embedded
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids

    def key_moments(video: str, progress: ProgressCallback):  # type: ignore[no-untyped-def]
        return core.get_key_moments(video, progress=progress)

    dock = PlayerDock(
        runner, core.get_video, key_moments=key_moments, backend_factory=offline_backend
    )
    qtbot.addWidget(dock)
    dock.resize(600, 500)
    dock.show()
    dock.play_at(video_id, 10)
    markers = dock.moments
    qtbot.waitUntil(lambda: len(markers.moments) > 0, timeout=20000)
    qtbot.waitUntil(lambda: dock.transport.duration() > 0, timeout=10000)
    backend = dock.backend
    assert isinstance(backend, LocalBackend)

    moments = markers.moments
    record = wait_for(qtbot, core.get_video(video_id))
    starts = {s.start for s in record.transcript.segments}
    assert len(moments) == 8 and all(m.start in starts for m in moments)
    assert markers.result is not None and markers.result.method == "extractive"
    # which method found them is on screen, under the controls
    assert markers.label.isVisible()
    assert markers.label.text() == (
        "8 key moments on the timeline (extractive: evenly spaced through the video)"
    )
    assert "no chat model chose these" in markers.label.toolTip()
    xs = markers.tick_positions()
    assert len(xs) == 8 and xs == sorted(xs) and len(set(xs)) == 8

    scrub = dock.transport.scrub
    middle = scrub.height() // 2
    target = moments[3]
    x = markers.x_of(target.start)
    assert x is not None
    # the tick is drawn where the moment is, across the bar: darker than beside it
    image = scrub.grab().toImage()
    ratio = image.devicePixelRatio()
    for y in (3, middle, scrub.height() - 4):
        on = image.pixelColor(round(x * ratio), round(y * ratio))
        beside = image.pixelColor(round((x + 4) * ratio), round(y * ratio))
        assert on.lightness() < beside.lightness(), (y, on.name(), beside.name())

    # hovering the tick shows its time, title and who chose it
    event = QHelpEvent(QEvent.Type.ToolTip, QPoint(x + 2, middle), scrub.mapToGlobal(QPoint(x, 0)))
    QApplication.sendEvent(scrub, event)
    tip = QToolTip.text()
    assert f"{clock(target.start)}  {target.title}" in tip and "evenly spaced" in tip

    # a click a few pixels beside the tick seeks to the moment itself
    backend.pause()
    with qtbot.waitSignal(dock.transport.seek_requested, timeout=5000) as sought:
        qtbot.mouseClick(scrub, Qt.MouseButton.LeftButton, pos=QPoint(x + 3, middle))
    assert sought.args == [pytest.approx(target.start)]
    qtbot.waitUntil(
        lambda: abs(backend.player.position() - target.start * 1000) < 300, timeout=5000
    )

    # between two ticks a click still lands where it is clicked
    between = (xs[5] + xs[6]) // 2
    assert markers.moment_at(between) is None
    with qtbot.waitSignal(dock.transport.seek_requested, timeout=5000) as landed:
        qtbot.mouseClick(scrub, Qt.MouseButton.LeftButton, pos=QPoint(between, middle))
    assert all(abs(landed.args[0] - m.start) > 5 for m in moments)
    assert moments[5].start < landed.args[0] < moments[6].start
