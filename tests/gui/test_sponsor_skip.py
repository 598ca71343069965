"""Skipping sponsor segments in the player (issue 20), on a real library with SponsorBlock's
recorded answer replayed through httpx: on, opening the video fetches its segments through
the job runner and the player seeks over the sponsor read it plays into (and says so); off,
nothing is fetched and nothing is skipped. The setting is on the Imports page of Settings."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.conftest import REPO
from tests.gui.conftest import wait_for
from tests.support.sponsorblock import SAMPLE_ID, Script, replay_web
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings, load_settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.player.backend import PlayerBackend
from v2c_desktop.ui.player.dock import PlayerDock
from v2c_desktop.ui.settings.dialog import SettingsDialog

pytestmark = pytest.mark.gui

SAMPLE = f"youtube:{SAMPLE_ID}"


class ScriptedBackend(PlayerBackend):
    """A player whose playhead the test moves; it records the seeks the dock asks for."""

    kind = "youtube"

    def __init__(self) -> None:
        super().__init__()
        self._widget = QWidget()
        self.loaded: list[tuple[str, float]] = []
        self.seeks: list[float] = []
        self.at = 0.0

    def widget(self) -> QWidget:
        return self._widget

    def load(self, video: Video, seconds: float) -> None:
        self.loaded.append((video.id, seconds))
        self.at = seconds

    def play_to(self, seconds: float) -> None:
        """The playhead reaches `seconds` (as the page reports it every 250 ms)."""
        self.at = seconds
        self.position_changed.emit(seconds)

    def seek(self, seconds: float) -> None:
        self.seeks.append(seconds)
        self.play_to(seconds)

    def position(self) -> float:
        return self.at

    def play(self) -> None: ...
    def pause(self) -> None: ...
    def toggle(self) -> None: ...
    def stop(self) -> None: ...
    def set_rate(self, rate: float) -> None: ...
    def set_volume(self, volume: float) -> None: ...
    def set_muted(self, muted: bool) -> None: ...


@pytest.fixture
def sponsorblock() -> Script:
    return Script()


@pytest.fixture
def sample(
    tmp_path: Path, qloop: asyncio.AbstractEventLoop, qtbot: QtBot, sponsorblock: Script
) -> Iterator[CoreAPI]:
    """A library holding the bundled sample (YouTube spCOYV4KyPA), SponsorBlock replayed."""
    web = replay_web(sponsorblock)
    api = CoreAPI(
        Services.open(tmp_path / "lib.duckdb", settings=Settings(), web=web, index_on_import=False)
    )
    result = wait_for(qtbot, api.add([str(REPO / "resources" / "samples")]))
    assert result.count("failed") == 0
    yield api
    pending = [t for t in asyncio.all_tasks() if not t.done()]
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10000)
    wait_for(qtbot, api.aclose())


@pytest.mark.parametrize("skip", [True, False], ids=["on", "off"])
def test_the_player_skips_the_sponsor_read_it_plays_into_only_when_the_setting_is_on(
    qtbot: QtBot, runner: JobRunner, sample: CoreAPI, sponsorblock: Script, skip: bool
) -> None:
    backend = ScriptedBackend()
    dock = PlayerDock(
        runner,
        sample.get_video,
        skip_segments=sample.get_skip_segments,
        skip_sponsors=skip,
        backend_factory=lambda _kind: backend,
        webengine=True,
    )
    qtbot.addWidget(dock)
    said: list[str] = []
    dock.message_changed.connect(said.append)
    jobs: list[str] = []
    runner.started.connect(lambda _id, label: jobs.append(label))
    dock.play_at(SAMPLE, 50.0)
    qtbot.waitUntil(lambda: backend.loaded == [(SAMPLE, 50.0)], timeout=10000)
    if skip:  # fetched on opening, on the runner: the library keeps them from then on
        qtbot.waitUntil(lambda: bool(dock.skips), timeout=10000)
        assert [(s.category, s.start, s.end) for s in dock.skips] == [("sponsor", 58.0, 70.0)]
        assert len(sponsorblock.requests) == 1
        assert wait_for(qtbot, sample.get_skip_segments(SAMPLE)).from_library
    # the fetch starts as the video loads, or never
    assert [j for j in jobs if j.startswith("sponsor segments")] == (
        ["sponsor segments of Testing Spacecraft with Pytest"] if skip else []
    )
    for second in (56.0, 56.25, 57.75, 58.0):  # plays into the sponsor read at 58 s
        backend.play_to(second)
    if not skip:
        assert backend.seeks == [] and dock.skips == [] and sponsorblock.requests == []
        return
    assert backend.seeks == [70.0] and backend.at == 70.0
    assert said[-1] == "Skipped sponsor 0:58-1:10"
    # a moment the user seeks to inside the segment plays: only playing into it skips it
    dock.play_at(SAMPLE, 62.0)
    backend.play_to(62.25)
    backend.play_to(62.5)
    assert backend.seeks == [70.0, 62.0]
    dock.set_skip_sponsors(False)
    assert dock.skips == []


def test_the_setting_is_off_until_ticked_and_saved_with_the_others(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "settings.json"
    dialog = SettingsDialog(Settings(), path)
    qtbot.addWidget(dialog)
    dialog.show_page("imports")
    assert not dialog.skip_sponsors.isChecked()
    assert dialog.skip_sponsors.text() == "Skip sponsor segments during playback"
    dialog.skip_sponsors.setChecked(True)
    with qtbot.waitSignal(dialog.saved):
        dialog.accept()
    assert load_settings(path).sponsorblock.skip_in_player
