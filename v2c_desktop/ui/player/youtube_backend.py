"""YouTube videos inside the app: the IFrame player page in QtWebEngine, bridged by QWebChannel.

Python drives the page with `runJavaScript("v2c.seekTo(42.5)")` and friends (every call is
also kept in `calls`, so tests can see exactly what the page was asked to do); the page
reports the current time, the player state and errors back through a `QWebChannel` object.
A `RequestGuard` can keep the page off the network entirely (tests have none).
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from PySide6.QtCore import QFile, QIODevice, QObject, QUrl, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineScript,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from v2c_desktop.core.domain.videos import Video
from v2c_desktop.resources import resources_dir

from .backend import PlayerBackend

PAGE_ORIGIN = "https://v2c-desktop.localhost"
_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_PLAYING = 1
_ERRORS = {
    -1: "the YouTube player could not be loaded (are you offline?)",
    2: "YouTube rejected the video id",
    5: "this video cannot play in an embedded HTML5 player",
    100: "the video was removed or is private",
    101: "the owner does not allow this video to play outside YouTube",
    150: "the owner does not allow this video to play outside YouTube",
    153: "YouTube refused the embedded player's configuration",
}


def player_page() -> str:
    return (resources_dir() / "player" / "youtube.html").read_text(encoding="utf-8")


def _webchannel_script() -> QWebEngineScript:
    source = QFile(":/qtwebchannel/qwebchannel.js")
    source.open(QIODevice.OpenModeFlag.ReadOnly)
    script = QWebEngineScript()
    script.setName("qwebchannel")
    script.setSourceCode(bytes(source.readAll().data()).decode("utf-8"))
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setRunsOnSubFrames(False)
    return script


class RequestGuard(QWebEngineUrlRequestInterceptor):
    """Blocks requests to the page's own made-up origin (there is nothing there), and every
    request that leaves the machine when `allow_remote` is off (tests); `blocked` lists them."""

    def __init__(self, allow_remote: bool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.allow_remote = allow_remote
        self.blocked: list[str] = []

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        remote = url.scheme() in ("http", "https", "ws", "wss")
        if url.host() == QUrl(PAGE_ORIGIN).host() or (remote and not self.allow_remote):
            self.blocked.append(url.toString())
            info.block(True)


class PageBridge(QObject):
    """The object the page sees as `bridge`: its reports arrive here."""

    def __init__(self, backend: YouTubeBackend) -> None:
        super().__init__(backend)
        self._backend = backend

    @Slot(float)
    def time(self, seconds: float) -> None:
        self._backend.report_time(seconds)

    @Slot(int)
    def state(self, state: int) -> None:
        self._backend.report_state(state)

    @Slot(float)
    def duration(self, seconds: float) -> None:
        self._backend.duration_changed.emit(seconds)

    @Slot(int)
    def ready(self, _unused: int) -> None:
        self._backend.page_ready = True

    @Slot(int)
    def error(self, code: int) -> None:
        self._backend.failed.emit(_ERRORS.get(code, f"the YouTube player failed (error {code})"))


class YouTubeBackend(PlayerBackend):
    """Plays `youtube:<id>` videos; `load_api=False` leaves the IFrame API for a test stub."""

    kind = "youtube"

    def __init__(
        self, parent: QObject | None = None, *, allow_remote: bool = True, load_api: bool = True
    ) -> None:
        super().__init__(parent)
        self.load_api = load_api
        self.calls: list[str] = []
        self.page_ready = False
        self._loaded = False
        self._queued: list[str] = []
        self._time = 0.0
        self._playing = False
        self.view = QWebEngineView()
        self.view.setObjectName("youtubeView")
        self.page = QWebEnginePage(self.view)
        self.page.settings().setAttribute(
            QWebEngineSettings.WebAttribute.PlaybackRequiresUserGesture, False
        )
        self.guard = RequestGuard(allow_remote, self)
        self.page.setUrlRequestInterceptor(self.guard)
        self.page.scripts().insert(_webchannel_script())
        self.bridge = PageBridge(self)
        self.channel = QWebChannel(self.page)
        self.channel.registerObject("bridge", self.bridge)
        self.page.setWebChannel(self.channel)
        self.page.loadFinished.connect(self._on_loaded)
        self.view.setPage(self.page)

    def widget(self) -> QWidget:
        return self.view

    # -- commands ----------------------------------------------------------------------------
    def load(self, video: Video, seconds: float) -> None:
        if not _YOUTUBE_ID.match(video.native_id):
            self.failed.emit(f"{video.native_id!r} is not a YouTube video id")
            return
        query = {"v": video.native_id, "start": f"{max(0.0, seconds):.3f}"}
        if not self.load_api:
            query["api"] = "off"
        self._loaded = False
        self.page_ready = False
        self._queued.clear()
        self._time = seconds
        self.page.setHtml(player_page(), QUrl(f"{PAGE_ORIGIN}/player?{urlencode(query)}"))

    def seek(self, seconds: float) -> None:
        self._time = seconds
        self.run_js(f"v2c.seekTo({json.dumps(round(max(0.0, seconds), 3))})")

    def play(self) -> None:
        self.run_js("v2c.playVideo()")

    def pause(self) -> None:
        self.run_js("v2c.pauseVideo()")

    def toggle(self) -> None:
        self.run_js("v2c.togglePlay()")

    def position(self) -> float:
        return self._time

    def stop(self) -> None:
        self.run_js("v2c.pauseVideo()")

    def set_rate(self, rate: float) -> None:
        self.run_js(f"v2c.setRate({json.dumps(round(float(rate), 3))})")

    def set_volume(self, volume: float) -> None:
        self.run_js(f"v2c.setVolume({round(max(0.0, min(1.0, volume)) * 100)})")

    def set_muted(self, muted: bool) -> None:
        self.run_js(f"v2c.setMuted({json.dumps(bool(muted))})")

    def run_js(self, code: str) -> None:
        """Run `code` in the page, or as soon as the page has loaded."""
        self.calls.append(code)
        if self._loaded:
            self.page.runJavaScript(code)
        else:
            self._queued.append(code)

    # -- reports from the page ---------------------------------------------------------------
    def report_time(self, seconds: float) -> None:
        self._time = seconds
        self.position_changed.emit(seconds)

    def report_state(self, state: int) -> None:
        playing = state == _PLAYING
        if playing != self._playing:
            self._playing = playing
            self.playing_changed.emit(playing)

    def _on_loaded(self, ok: bool) -> None:
        if not ok:
            self.failed.emit("the YouTube player page did not load")
            return
        self._loaded = True
        for code in self._queued:
            self.page.runJavaScript(code)
        self._queued.clear()
