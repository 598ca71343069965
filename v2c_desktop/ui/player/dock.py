"""The player dock: every timestamp click ends here, and it picks how to play the video.

`play_at(video_id, seconds)` loads the video if it is not the current one (reading it
from the library through the job runner), picks a backend (`choice.choose_playback`),
seeks and plays. A video that cannot play inside the app opens at that moment in the
system browser, and the dock says why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDockWidget, QLabel, QStackedWidget, QVBoxLayout, QWidget

from v2c_desktop.core.domain.videos import Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.ids import timestamp_url

from ..bridge import JobRunner
from .backend import PlayerBackend
from .choice import Kind, choose_playback
from .transport import TransportBar

LoadVideo = Callable[[str], Awaitable[VideoRecord]]
BackendFactory = Callable[[Kind], PlayerBackend]
OpenUrl = Callable[[QUrl], bool]


def webengine_available() -> bool:
    try:
        import PySide6.QtWebEngineWidgets  # noqa: F401
    except ImportError:
        return False
    return True


def default_backend(kind: Kind) -> PlayerBackend:
    if kind == "youtube":
        from .youtube_backend import YouTubeBackend

        return YouTubeBackend()
    from .local_backend import LocalBackend

    return LocalBackend()


class PlayerDock(QDockWidget):
    """Plays the video behind any timestamp link.

    Signals:
        position_changed(video_id, seconds): the playhead of the current video.
        message_changed(text): what the dock tells the user (fallbacks, failures).
    """

    position_changed = Signal(str, float)
    message_changed = Signal(str)

    def __init__(
        self,
        runner: JobRunner,
        load_video: LoadVideo,
        *,
        backend_factory: BackendFactory = default_backend,
        open_url: OpenUrl = QDesktopServices.openUrl,
        webengine: bool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Player", parent)
        self.setObjectName("playerDock")
        self._runner = runner
        self._load_video = load_video
        self._factory = backend_factory
        self._open_url = open_url
        self._webengine = webengine_available() if webengine is None else webengine
        self._backends: dict[Kind, PlayerBackend] = {}
        self._backend: PlayerBackend | None = None
        self._video: Video | None = None
        self._request = 0

        self.title = QLabel("Nothing is playing")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.stack = QStackedWidget()
        self.placeholder = QLabel("Click a timestamp to play that moment here.")
        self.placeholder.setWordWrap(True)
        self.placeholder.setTextFormat(Qt.TextFormat.PlainText)
        self.stack.addWidget(self.placeholder)
        self.transport = TransportBar()
        self.note = QLabel()
        self.note.setObjectName("playerNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.hide()
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.title)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.transport)
        layout.addWidget(self.note)
        self.setWidget(body)
        self.transport.toggle_requested.connect(self.toggle_play)
        self.transport.skip_requested.connect(self.skip)

    # -- what is playing ---------------------------------------------------------------------
    @property
    def video(self) -> Video | None:
        return self._video

    @property
    def backend(self) -> PlayerBackend | None:
        return self._backend

    def message(self) -> str:
        return self.note.text() if not self.note.isHidden() else ""

    # -- commands ----------------------------------------------------------------------------
    def play_at(self, video_id: str, seconds: float) -> None:
        """Play `video_id` from `seconds`, loading it first if it is not the current video."""
        self._request += 1
        request = self._request
        if self._video is not None and self._video.id == video_id and self._backend is not None:
            self._backend.seek(seconds)
            self._backend.play()
            return

        def loaded(record: VideoRecord) -> None:
            if request == self._request:  # a later click wins
                self._open(record.video, seconds)

        def failed(error: V2CError) -> None:
            if request == self._request:
                self._say(f"Cannot play {video_id}: {error.message}")

        self._runner.start(
            lambda _progress: self._load_video(video_id),
            label=f"open {video_id}",
            on_finished=loaded,
            on_failed=failed,
        )

    def toggle_play(self) -> None:
        if self._backend is not None:
            self._backend.toggle()

    def skip(self, delta: float) -> None:
        if self._backend is not None:
            self._backend.seek(max(0.0, self._backend.position() + delta))

    # -- choosing a backend ------------------------------------------------------------------
    def _open(self, video: Video, seconds: float) -> None:
        playback = choose_playback(video, webengine=self._webengine)
        self.title.setText(video.title or video.id)
        if playback.kind in ("youtube", "local"):
            backend = self._backend_for(playback.kind)
            if self._backend is not None and self._backend is not backend:
                self._backend.stop()
            self._backend, self._video = backend, video
            self.stack.setCurrentWidget(backend.widget())
            self.transport.set_enabled(True)
            self._say("")
            backend.load(video, seconds)
            return
        self._leave(video)
        if playback.kind == "external":
            self._open_outside(video, seconds, playback.reason)
        else:
            self._say(f"Cannot play this video here: {playback.reason}.")

    def _leave(self, video: Video) -> None:
        if self._backend is not None:
            self._backend.stop()
        self._backend, self._video = None, None
        self.stack.setCurrentWidget(self.placeholder)
        self.transport.set_enabled(False)
        self.placeholder.setText(f"{video.title or video.id} is not playing inside the app.")

    def _open_outside(self, video: Video, seconds: float, reason: str) -> None:
        url = timestamp_url(video, seconds)
        if url and self._open_url(QUrl(url)):
            self._say(f"Opened in your browser: {reason}.")
        else:
            self._say(f"Cannot open this video: {reason}, and no browser took the link.")

    def _backend_for(self, kind: Kind) -> PlayerBackend:
        backend = self._backends.get(kind)
        if backend is None:
            backend = self._factory(kind)
            backend.setParent(self)
            self._backends[kind] = backend
            self.stack.addWidget(backend.widget())
            backend.position_changed.connect(lambda s, b=backend: self._on_position(b, s))
            backend.playing_changed.connect(lambda p, b=backend: self._on_playing(b, p))
            backend.failed.connect(lambda message, b=backend: self._on_failed(b, message))
        return backend

    def _on_position(self, backend: PlayerBackend, seconds: float) -> None:
        if backend is self._backend and self._video is not None:
            self.transport.set_time(seconds)
            self.position_changed.emit(self._video.id, seconds)

    def _on_playing(self, backend: PlayerBackend, playing: bool) -> None:
        if backend is self._backend:
            self.transport.set_playing(playing)

    def _on_failed(self, backend: PlayerBackend, message: str) -> None:
        if backend is not self._backend or self._video is None:
            return
        video, seconds = self._video, backend.position()
        self._leave(video)
        if video.url or video.platform.lower() == "youtube":
            self._open_outside(video, seconds, message)
        else:
            self._say(f"Cannot play this video here: {message}.")

    def _say(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))
        self.message_changed.emit(text)
