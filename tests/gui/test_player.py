"""The player: YouTube in the app (offline, with a stub IFrame API), local media, fallbacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtMultimedia import QMediaPlayer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.conftest import offline_backend, wait_for, write_media
from tests.gui.player_helpers import make_dock, subtitles_alone
from tests.gui.youtube_stub import page_calls, start_stub
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.settings import Settings
from v2c_desktop.core.timecode import clock
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.player.choice import choose_playback
from v2c_desktop.ui.player.dock import MIN_WIDTH, PlayerDock
from v2c_desktop.ui.player.local_backend import LocalBackend
from v2c_desktop.ui.player.youtube_backend import PAGE_ORIGIN, YouTubeBackend

pytestmark = pytest.mark.gui

HOMUNCULUS = "youtube:fxZWtc0mYpQ"


def youtube_video(native: str = "fxZWtc0mYpQ") -> Video:
    return Video(id=f"youtube:{native}", title="Homunculus", platform="youtube", native_id=native)


def test_the_youtube_page_seeks_plays_and_reports_time_without_the_network(
    qtbot: QtBot,
) -> None:
    backend = YouTubeBackend(allow_remote=False, load_api=False)
    qtbot.addWidget(backend.widget())
    backend.widget().resize(480, 270)
    backend.widget().show()
    with qtbot.waitSignal(backend.playing_changed, timeout=20000) as playing:
        backend.load(youtube_video(), 42.5)
        start_stub(qtbot, backend)
    assert playing.args == [True]
    assert page_calls(qtbot, backend) == [
        ["new", "player", "fxZWtc0mYpQ", 42],
        ["seekTo", 42.5],
        ["playVideo"],
    ]
    with qtbot.waitSignal(backend.position_changed, timeout=5000) as moved:
        backend.seek(90.25)
    assert moved.args == [pytest.approx(90.25)]
    assert backend.calls[-1] == "v2c.seekTo(90.25)"
    assert page_calls(qtbot, backend)[-1] == ["seekTo", 90.25]
    with qtbot.waitSignal(backend.playing_changed, timeout=5000) as paused:
        backend.toggle()
    assert paused.args == [False]
    # nothing left the machine: the only request blocked is the page's own favicon
    assert all(QUrl(url).host() == QUrl(PAGE_ORIGIN).host() for url in backend.guard.blocked)


def test_a_rejected_youtube_id_fails_before_loading(qtbot: QtBot) -> None:
    backend = YouTubeBackend(allow_remote=False, load_api=False)
    qtbot.addWidget(backend.widget())
    with qtbot.waitSignal(backend.failed) as failed:
        backend.load(youtube_video("bad id'); alert(1"), 0)
    assert "not a YouTube video id" in failed.args[0]


def test_local_media_loads_seeks_and_plays(qtbot: QtBot, tmp_path: Path) -> None:
    media, _srt = write_media(tmp_path)
    backend = LocalBackend()
    qtbot.addWidget(backend.widget())
    video = Video(id="file:x", title="talk", platform="file", native_id="x", source_path=str(media))
    reported: list[int] = []
    backend.player.positionChanged.connect(reported.append)
    with qtbot.waitSignal(backend.playing_changed, timeout=10000):
        backend.load(video, 62.5)
    qtbot.waitUntil(lambda: any(ms > 62500 for ms in reported), timeout=10000)  # it plays
    # ...from 62.5 s: the seek lands before playback starts, so the first position the
    # player reports is 62.5 s itself, however fast or slow the machine plays
    assert next(ms for ms in reported if ms) == 62500
    backend.pause()
    backend.seek(30.0)
    qtbot.waitUntil(lambda: backend.player.position() == 30000, timeout=5000)
    assert backend.position() == pytest.approx(30.0)


def test_choosing_a_backend(tmp_path: Path) -> None:
    media, srt = write_media(tmp_path)
    local = Video(id="file:a", title="a", platform="file", native_id="a", source_path=str(media))
    assert choose_playback(local, webengine=True).kind == "local"
    assert choose_playback(youtube_video(), webengine=True).kind == "youtube"
    no_engine = choose_playback(youtube_video(), webengine=False)
    assert no_engine.kind == "external" and "QtWebEngine" in no_engine.reason
    subtitles = Video(id="file:b", title="b", platform="file", native_id="b", source_path=str(srt))
    assert choose_playback(subtitles, webengine=True).kind == "none"
    vimeo = Video(
        id="vimeo:1", title="v", platform="vimeo", native_id="1", url="https://vimeo.com/1"
    )
    assert choose_playback(vimeo, webengine=True).kind == "external"
    gone = Video(
        id="file:c", title="c", platform="file", native_id="c", source_path=str(tmp_path / "x.mp4")
    )
    assert "missing" in choose_playback(gone, webengine=True).reason
    with_page = Video(
        id="file:d",
        title="d",
        platform="file",
        native_id="d",
        source_path=str(srt),
        url="https://youtu.be/eMlx5fFNoYc",
    )
    opened = choose_playback(with_page, webengine=True)
    assert opened.kind == "external" and "subtitle file" in opened.reason
    planted = Video(
        id="file:e",
        title="e",
        platform="file",
        native_id="e",
        source_path=str(srt),
        url="smb://x/y",
    )
    assert choose_playback(planted, webengine=True).kind == "none"  # only http(s) is opened


def test_the_dock_plays_local_media_and_reports_the_playhead(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    result = wait_for(qtbot, core.add([str(media)]))
    (video_id,) = result.changed_ids
    dock = PlayerDock(runner, core.get_video, backend_factory=offline_backend)
    qtbot.addWidget(dock)
    dock.show()
    reported: list[float] = []
    dock.position_changed.connect(lambda vid, s: reported.append(s) if vid == video_id else None)
    with qtbot.waitSignal(
        dock.position_changed,
        timeout=10000,
        check_params_cb=lambda vid, s: vid == video_id and s > 62.5,  # playing on from there
    ):
        dock.play_at(video_id, 62.5)
    assert isinstance(dock.backend, LocalBackend)
    backend = dock.backend
    assert next(s for s in reported if s) == 62.5  # the playhead starts at 62.5 s exactly
    backend.pause()
    paused = QMediaPlayer.PlaybackState.PausedState
    qtbot.waitUntil(lambda: backend.player.playbackState() == paused)
    before = backend.player.position()  # paused: it stays put, so the skip is exact
    dock.skip(-10)
    qtbot.waitUntil(lambda: backend.player.position() == before - 10000, timeout=5000)


def wait_playing_from(qtbot: QtBot, dock: PlayerDock, media: Path, seconds: float) -> LocalBackend:
    """The dock's local player is playing `media` from `seconds` (not from 0:00, not stuck)."""
    qtbot.waitUntil(lambda: isinstance(dock.backend, LocalBackend), timeout=10000)
    backend = dock.backend
    assert isinstance(backend, LocalBackend)
    playing = QMediaPlayer.PlaybackState.PlayingState
    source = QUrl.fromLocalFile(str(media.resolve()))
    qtbot.waitUntil(
        lambda: (
            backend.player.source() == source
            and backend.player.playbackState() == playing
            and backend.player.position() >= seconds * 1000
        ),
        timeout=10000,
    )
    assert backend.player.position() < seconds * 1000 + 5000
    return backend


def test_switching_between_any_two_sources_seeks_and_plays_every_time(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    """The bug: back on a local file after a video that could not play (or after YouTube),
    it showed a black frame at 0:00 and did not play, or played from 0:00."""
    talk, _srt = write_media(tmp_path / "talk")
    other, _srt = write_media(tmp_path / "other", name="other", seconds=110)
    (talk_id,) = wait_for(qtbot, crashcourse.add([str(talk)])).changed_ids
    (other_id,) = wait_for(qtbot, crashcourse.add([str(other)])).changed_ids
    subtitles_id, _media = subtitles_alone(qtbot, crashcourse, tmp_path / "subs")
    dock = make_dock(qtbot, runner, crashcourse, webengine=True)

    dock.play_at(talk_id, 62.5)
    wait_playing_from(qtbot, dock, talk, 62.5)
    dock.play_at(subtitles_id, 30)
    qtbot.waitUntil(dock.showing_reader, timeout=10000)
    dock.play_at(talk_id, 30)  # the same file again: it seeks and plays
    wait_playing_from(qtbot, dock, talk, 30)
    dock.play_at(HOMUNCULUS, 20)
    qtbot.waitUntil(lambda: isinstance(dock.backend, YouTubeBackend), timeout=10000)
    dock.play_at(talk_id, 90)
    wait_playing_from(qtbot, dock, talk, 90)
    dock.play_at(other_id, 10)
    wait_playing_from(qtbot, dock, other, 10)
    dock.play_at(talk_id, 45)
    backend = wait_playing_from(qtbot, dock, talk, 45)
    dock.play_at(talk_id, 100)  # the same video: a seek in place
    qtbot.waitUntil(lambda: backend.player.position() >= 100000, timeout=5000)


def test_the_transport_scrubs_and_sets_speed_volume_and_mute_from_keys_too(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    dock = make_dock(qtbot, runner, core)
    dock.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dock)
    bar = dock.transport
    dock.play_at(video_id, 10)
    backend = wait_playing_from(qtbot, dock, media, 10)
    qtbot.waitUntil(lambda: bar.total.text() == "2:00")
    qtbot.waitUntil(lambda: bar.elapsed.text() == clock(backend.position()))

    # the scrub bar: a click lands where it is clicked, a key steps 5 s
    groove = bar.scrub.rect()
    qtbot.mouseClick(
        bar.scrub,
        Qt.MouseButton.LeftButton,
        pos=QPoint(groove.width() * 3 // 4, groove.center().y()),
    )
    qtbot.waitUntil(lambda: 80000 <= backend.player.position() <= 100000, timeout=5000)
    backend.pause()
    before = backend.player.position()
    bar.scrub.setFocus()
    qtbot.keyClick(bar.scrub, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: abs(backend.player.position() - (before + 5000)) < 300, timeout=5000)

    # speed, volume and mute, by their keys (named in the tooltips)
    assert "]" in bar.speed.toolTip() and "[" in bar.speed.toolTip()
    assert "Ctrl+Up" in bar.volume.toolTip() and "(M)" in bar.mute.toolTip()
    assert "Alt+Left" in bar.scrub.toolTip()
    qtbot.keyClick(dock, Qt.Key.Key_BracketRight)
    assert backend.player.playbackRate() == 1.25 and bar.speed.currentText() == "1.25×"
    for _ in range(4):
        qtbot.keyClick(dock, Qt.Key.Key_BracketLeft)
    assert backend.player.playbackRate() == 0.75  # the slowest it goes
    qtbot.keyClick(dock, Qt.Key.Key_Equal)
    assert backend.player.playbackRate() == 1.0
    bar.speed.setCurrentIndex(5)
    bar.speed.activated.emit(5)  # what a pick from the list sends
    assert backend.player.playbackRate() == 2.0 and dock.rate == 2.0
    qtbot.keyClick(dock, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(dock, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert bar.volume.value() == 80 and backend.audio.volume() < 0.8  # the ear's scale
    bar.volume.setValue(50)
    assert dock.volume == 0.5
    qtbot.keyClick(dock, Qt.Key.Key_M)
    assert backend.audio.isMuted() and bar.mute.isChecked()
    assert bar.mute.toolTip() == "Unmute (M)"
    qtbot.mouseClick(bar.mute, Qt.MouseButton.LeftButton)
    assert not backend.audio.isMuted() and not dock.muted
    # a video loaded next keeps what the user chose
    other, _srt = write_media(tmp_path / "other", name="other", seconds=110)
    (other_id,) = wait_for(qtbot, core.add([str(other)])).changed_ids
    dock.play_at(other_id, 5)
    wait_playing_from(qtbot, dock, other, 5)
    assert backend.player.playbackRate() == 2.0 and bar.volume.value() == 50


def test_a_long_title_is_elided_and_the_player_keeps_a_usable_width(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    title = " ".join(["A very long title about plants and light"] * 7)
    wait_for(qtbot, core.rename_video(video_id, title))
    dock = make_dock(qtbot, runner, core)
    window = MainWindow(core, runner, Settings(), player=dock)
    qtbot.addWidget(window)
    window.resize(1100, 700)
    window.show()
    qtbot.waitUntil(lambda: dock.isVisible() and dock.width() > 0)
    width = window.width()
    window.seek(video_id, 10)
    wait_playing_from(qtbot, dock, media, 10)
    label = dock.title
    qtbot.waitUntil(lambda: label.text().endswith("…"))
    assert label.toolTip() == title and label.full_text() == title
    assert label.height() < 2 * label.fontMetrics().height()  # one line, not a wrapped block
    assert window.width() == width
    assert dock.width() >= MIN_WIDTH
    window.resizeDocks([dock], [80], Qt.Orientation.Horizontal)  # squeezed: it stays usable
    qtbot.waitUntil(
        lambda: dock.width() == dock.minimumSizeHint().width() or dock.width() >= MIN_WIDTH
    )
    assert dock.width() >= MIN_WIDTH
