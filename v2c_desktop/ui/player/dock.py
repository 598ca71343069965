"""The player dock: every timestamp click ends here, and it picks how to show that moment.

`play_at(video_id, seconds, quote="")` loads the video if it is not the one playing
(reading it from the library through the job runner), picks a backend
(`choice.choose_playback`), seeks and plays. A video with nothing to play here (a subtitle
file alone, YouTube without QtWebEngine or offline, a site that only plays in its page)
opens in the transcript reader at that second instead, with the quote marked.

Before each load the dock looks beside a subtitle-only video's file for its media
(`choice.media_beside`); what it finds, or what the user points the reader's "Locate media
file..." at, is saved through `CoreAPI.set_media` and plays from then on.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QStackedWidget, QVBoxLayout, QWidget

from v2c_desktop.core.domain.videos import Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.timecode import clock

from ..actions import focus_is_text_input
from ..bridge import JobRunner
from ..elided_label import ElidedLabel
from .backend import PlayerBackend
from .choice import Kind, choose_playback, media_beside
from .reader import OpenUrl, TranscriptReader
from .transport import KEYS, RATES, VOLUME_STEP, TransportBar

LoadVideo = Callable[[str], Awaitable[VideoRecord]]
SetMedia = Callable[[str, str], Awaitable[VideoRecord]]
BackendFactory = Callable[[Kind], PlayerBackend]

MIN_WIDTH = 340  # the player keeps a usable width whatever the window holds


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


def _sentence(reason: str) -> str:
    if not reason:
        return ""
    text = f"{reason[:1].upper()}{reason[1:]}"
    return text if text.endswith((".", "?", "!")) else f"{text}."


class PlayerDock(QDockWidget):
    """Plays the video behind any timestamp link, or opens its transcript there.

    Signals:
        position_changed(video_id, seconds): the playhead of the current video (or the
            second the transcript reader opened at).
        message_changed(text): what the dock tells the user (found media, failures).
    """

    position_changed = Signal(str, float)
    message_changed = Signal(str)

    def __init__(
        self,
        runner: JobRunner,
        load_video: LoadVideo,
        *,
        set_media: SetMedia | None = None,
        backend_factory: BackendFactory = default_backend,
        open_url: OpenUrl = QDesktopServices.openUrl,
        webengine: bool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Player", parent)
        self.setObjectName("playerDock")
        self._runner = runner
        self._load_video = load_video
        self._set_media = set_media
        self._factory = backend_factory
        self._webengine = webengine_available() if webengine is None else webengine
        self._backends: dict[Kind, PlayerBackend] = {}
        self._backend: PlayerBackend | None = None
        self._video: Video | None = None
        self._record: VideoRecord | None = None
        self._failed: dict[str, str] = {}  # why a source did not play, until "Try again"
        self._request = 0
        self.rate, self.volume, self.muted = 1.0, 1.0, False

        self.title = ElidedLabel("Nothing is playing", preferred=200, least=0)
        self.title.setObjectName("playerTitle")
        self.stack = QStackedWidget()
        self.placeholder = QLabel("Click a timestamp to play that moment here.")
        self.placeholder.setWordWrap(True)
        self.placeholder.setTextFormat(Qt.TextFormat.PlainText)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.placeholder)
        self.reader = TranscriptReader(open_url)
        self.stack.addWidget(self.reader)
        self.transport = TransportBar()
        self.note = QLabel()
        self.note.setObjectName("playerNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.hide()
        body = QWidget()
        body.setMinimumWidth(MIN_WIDTH)
        layout = QVBoxLayout(body)
        layout.addWidget(self.title)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.transport)
        layout.addWidget(self.note)
        self.setWidget(body)
        self.transport.toggle_requested.connect(self.toggle_play)
        self.transport.skip_requested.connect(self.skip)
        self.transport.seek_requested.connect(self.seek_to)
        self.transport.rate_requested.connect(self.set_rate)
        self.transport.volume_requested.connect(self.set_volume)
        self.transport.mute_requested.connect(self.set_muted)
        self.reader.moved.connect(self.position_changed)
        self.reader.media_chosen.connect(self.use_media)
        self.reader.retry_requested.connect(self._retry)
        self.shortcuts = {
            "slower": self._shortcut("Slower", KEYS["slower"], lambda: self.step_rate(-1)),
            "faster": self._shortcut("Faster", KEYS["faster"], lambda: self.step_rate(1)),
            "normal_speed": self._shortcut(
                "Normal speed", KEYS["normal_speed"], lambda: self.set_rate(1.0)
            ),
            "volume_up": self._shortcut(
                "Louder", KEYS["volume_up"], lambda: self.step_volume(VOLUME_STEP)
            ),
            "volume_down": self._shortcut(
                "Quieter", KEYS["volume_down"], lambda: self.step_volume(-VOLUME_STEP)
            ),
            "mute": self._shortcut("Mute", KEYS["mute"], lambda: self.set_muted(not self.muted)),
        }

    def _shortcut(self, text: str, key: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda: None if focus_is_text_input() else slot())
        self.addAction(action)
        return action

    # -- what is shown -----------------------------------------------------------------------
    @property
    def video(self) -> Video | None:
        """The video playing (None while the reader or the placeholder shows)."""
        return self._video

    @property
    def backend(self) -> PlayerBackend | None:
        return self._backend

    def showing_reader(self) -> bool:
        return self.stack.currentWidget() is self.reader

    def message(self) -> str:
        return self.note.text() if not self.note.isHidden() else ""

    # -- commands ----------------------------------------------------------------------------
    def play_at(self, video_id: str, seconds: float, quote: str = "") -> None:
        """Play `video_id` from `seconds` (loading it first if it is not playing), or open
        its transcript there with `quote` marked when it has nothing to play."""
        self._request += 1
        request = self._request
        if self._video is not None and self._video.id == video_id and self._backend is not None:
            self._backend.seek(seconds)
            self._backend.play()
            return
        if self.showing_reader() and self.reader.video_id == video_id:
            self._read_at(seconds, quote)  # at once; the load below may still find media

        def loaded(result: tuple[VideoRecord, str]) -> None:
            if request == self._request:  # a later click wins
                self._open(result[0], seconds, quote, note=result[1])

        def failed(error: V2CError) -> None:
            if request == self._request:
                self._say(f"Cannot open {video_id}: {error.message}")

        self._runner.start(
            lambda _progress: self._prepare(video_id),
            label=f"open {video_id}",
            on_finished=loaded,
            on_failed=failed,
        )

    def use_media(self, video_id: str, path: str) -> None:
        """Play `video_id` from the media file at `path` from now on ("Locate media file")."""

        async def point() -> VideoRecord:
            if self._set_media is None:
                record = await self._load_video(video_id)
                return _with_media(record, path)
            return await self._set_media(video_id, path)

        def pointed(record: VideoRecord) -> None:
            if self.showing_reader() and self.reader.video_id == video_id:
                self._request += 1
                self._open(record, self.reader.seconds, self.reader.quote)

        self._runner.start(
            lambda _progress: point(),
            label="use the media file",
            interactive=True,
            on_finished=pointed,
        )

    def _retry(self, video_id: str) -> None:
        """The reader's "Try again": play the video here again (the network is back)."""
        for key in [k for k in self._failed if k.split("\n")[1] == video_id]:
            del self._failed[key]
        self.play_at(video_id, self.reader.seconds, self.reader.quote)

    def toggle_play(self) -> None:
        if self._backend is not None:
            self._backend.toggle()

    def skip(self, delta: float) -> None:
        if self._backend is not None:
            self.seek_to(self._backend.position() + delta)

    def seek_to(self, seconds: float) -> None:
        """Move the playhead (playing or paused, it stays so)."""
        if self._backend is not None:
            end = self.transport.duration()
            self._backend.seek(max(0.0, min(seconds, end) if end > 0 else seconds))

    def set_rate(self, rate: float) -> None:
        self.rate = min(RATES, key=lambda r: abs(r - rate))
        self.transport.set_rate(self.rate)
        if self._backend is not None:
            self._backend.set_rate(self.rate)

    def step_rate(self, steps: int) -> None:
        index = RATES.index(self.rate) + steps
        self.set_rate(RATES[max(0, min(index, len(RATES) - 1))])

    def set_volume(self, volume: float) -> None:
        self.volume = max(0.0, min(1.0, volume))
        self.transport.set_volume(self.volume)
        if self._backend is not None:
            self._backend.set_volume(self.volume)

    def step_volume(self, delta: float) -> None:
        if delta > 0 and self.muted:
            self.set_muted(False)
        self.set_volume(round(self.volume + delta, 2))

    def set_muted(self, muted: bool) -> None:
        self.muted = muted
        self.transport.set_muted(muted)
        if self._backend is not None:
            self._backend.set_muted(muted)

    # -- choosing what shows the moment ------------------------------------------------------
    async def _prepare(self, video_id: str) -> tuple[VideoRecord, str]:
        """The video, pointed at a media file that appeared beside its subtitles since."""
        record = await self._load_video(video_id)
        media = await asyncio.to_thread(media_beside, record.video.source_path)
        if media is None:
            return record, ""
        note = f"Playing {media.name}, found beside the subtitles"
        if self._set_media is None:
            return _with_media(record, str(media)), note
        try:
            return await self._set_media(video_id, str(media)), note
        except V2CError as error:  # it still plays now; the library did not keep it
            return _with_media(record, str(media)), f"{note} (not saved: {error.message})"

    def _open(self, record: VideoRecord, seconds: float, quote: str, note: str = "") -> None:
        video = record.video
        self._record = record
        self.title.set_full_text(video.title or video.id)
        playback = choose_playback(video, webengine=self._webengine)
        if playback.kind not in ("youtube", "local"):
            self._show_reader(record, seconds, quote, playback.reason)
            return
        failed = self._failed.get(_source_key(playback.kind, video))
        if failed is not None:  # it failed a moment ago: read, until the user tries again
            self._show_reader(record, seconds, quote, failed, retry=True)
            return
        backend = self._backend_for(playback.kind)
        if self._backend is not None and self._backend is not backend:
            self._backend.stop()
        self._backend, self._video = backend, video
        self.stack.setCurrentWidget(backend.widget())
        self.transport.show()
        self.transport.set_enabled(True)
        self.transport.set_duration(record.duration)
        self.transport.set_time(seconds)
        self._say(note, in_dock=False)
        backend.load(video, seconds)
        backend.set_rate(self.rate)
        backend.set_volume(self.volume)
        backend.set_muted(self.muted)

    def _show_reader(
        self, record: VideoRecord, seconds: float, quote: str, reason: str, retry: bool = False
    ) -> None:
        if self._backend is not None:
            self._backend.stop()
        self._backend, self._video = None, None
        self.reader.show_record(record, _sentence(reason), retry=retry)
        self.stack.setCurrentWidget(self.reader)
        self.transport.hide()
        self._say("")
        self._read_at(seconds, quote)
        title = record.video.title or record.video.id
        self.message_changed.emit(f"{title}: the transcript at {clock(seconds)} ({reason})")

    def _read_at(self, seconds: float, quote: str) -> None:
        self.reader.show_at(seconds, quote)
        self.position_changed.emit(self.reader.video_id, self.reader.seconds)

    def _backend_for(self, kind: Kind) -> PlayerBackend:
        backend = self._backends.get(kind)
        if backend is None:
            backend = self._factory(kind)
            backend.setParent(self)
            self._backends[kind] = backend
            self.stack.addWidget(backend.widget())
            backend.position_changed.connect(lambda s, b=backend: self._on_position(b, s))
            backend.duration_changed.connect(lambda s, b=backend: self._on_duration(b, s))
            backend.playing_changed.connect(lambda p, b=backend: self._on_playing(b, p))
            backend.failed.connect(lambda message, b=backend: self._on_failed(b, message))
        return backend

    def _on_position(self, backend: PlayerBackend, seconds: float) -> None:
        if backend is self._backend and self._video is not None:
            self.transport.set_time(seconds)
            self.position_changed.emit(self._video.id, seconds)

    def _on_duration(self, backend: PlayerBackend, seconds: float) -> None:
        if backend is self._backend and seconds > 0:
            self.transport.set_duration(seconds)

    def _on_playing(self, backend: PlayerBackend, playing: bool) -> None:
        if backend is self._backend:
            self.transport.set_playing(playing)

    def _on_failed(self, backend: PlayerBackend, message: str) -> None:
        if backend is not self._backend or self._record is None:
            return
        self._failed[_source_key(backend.kind, self._record.video)] = message
        self._show_reader(self._record, backend.position(), "", message, retry=True)

    def _say(self, text: str, in_dock: bool = True) -> None:
        """Tell the user (the status bar hears it); failures also stay under the player."""
        shown = text if in_dock else ""
        self.note.setText(shown)
        self.note.setVisible(bool(shown))
        self.message_changed.emit(text)


def _source_key(kind: str, video: Video) -> str:
    return f"{kind}\n{video.id}\n{video.source_path}"


def _with_media(record: VideoRecord, path: str) -> VideoRecord:
    return dataclasses.replace(record, video=dataclasses.replace(record.video, source_path=path))
