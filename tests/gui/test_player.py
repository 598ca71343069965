"""The player: YouTube in the app (offline, with a stub IFrame API), local media, fallbacks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from tests.gui.conftest import offline_backend, wait_for, write_media
from tests.gui.youtube_stub import page_calls, start_stub
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Video
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.player.choice import choose_playback
from v2c_desktop.ui.player.dock import PlayerDock
from v2c_desktop.ui.player.local_backend import LocalBackend
from v2c_desktop.ui.player.youtube_backend import PAGE_ORIGIN, YouTubeBackend

pytestmark = pytest.mark.gui

HOMUNCULUS = "youtube:fxZWtc0mYpQ"


def recorder(opened: list[QUrl]) -> Callable[[QUrl], bool]:
    """Stands in for QDesktopServices.openUrl: remembers the URL, opens nothing."""

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    return open_url


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
    with qtbot.waitSignal(backend.playing_changed, timeout=10000):
        backend.load(video, 62.5)
    qtbot.waitUntil(lambda: 62500 <= backend.player.position() < 65000, timeout=10000)
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
    assert opened.kind == "external" and "its page opens in the browser" in opened.reason
    planted = Video(
        id="file:e",
        title="e",
        platform="file",
        native_id="e",
        source_path=str(srt),
        url="smb://x/y",
    )
    assert choose_playback(planted, webengine=True).kind == "none"  # only http(s) is opened


def test_without_webengine_youtube_opens_in_the_browser_at_that_second(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    opened: list[QUrl] = []
    dock = PlayerDock(
        runner,
        crashcourse.get_video,
        backend_factory=offline_backend,
        open_url=recorder(opened),
        webengine=False,
    )
    qtbot.addWidget(dock)
    with qtbot.waitSignal(dock.message_changed, timeout=10000) as said:
        dock.play_at(HOMUNCULUS, 83.7)
    assert [u.toString() for u in opened] == ["https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=83s"]
    assert said.args[0].startswith("Opened in your browser: QtWebEngine is not available")
    assert dock.backend is None


def test_a_subtitle_only_import_says_there_is_nothing_to_play(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    _media, srt = write_media(tmp_path / "only")
    _media.unlink()
    result = wait_for(qtbot, core.add([str(srt)]))
    (video_id,) = result.changed_ids
    opened: list[QUrl] = []
    dock = PlayerDock(
        runner,
        core.get_video,
        backend_factory=offline_backend,
        open_url=recorder(opened),
    )
    qtbot.addWidget(dock)
    with qtbot.waitSignal(dock.message_changed, timeout=10000) as said:
        dock.play_at(video_id, 30)
    assert "subtitle file alone" in said.args[0]
    assert opened == []


def test_the_dock_plays_local_media_and_reports_the_playhead(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    result = wait_for(qtbot, core.add([str(media)]))
    (video_id,) = result.changed_ids
    dock = PlayerDock(runner, core.get_video, backend_factory=offline_backend)
    qtbot.addWidget(dock)
    dock.show()
    with qtbot.waitSignal(
        dock.position_changed,
        timeout=10000,
        check_params_cb=lambda vid, s: vid == video_id and s >= 62.5,
    ):
        dock.play_at(video_id, 62.5)
    assert isinstance(dock.backend, LocalBackend)
    backend = dock.backend
    assert 62500 <= backend.player.position() < 66000
    backend.pause()
    before = backend.player.position()
    dock.skip(-10)
    qtbot.waitUntil(lambda: abs(backend.player.position() - (before - 10000)) < 300, timeout=5000)
