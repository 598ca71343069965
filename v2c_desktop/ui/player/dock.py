"""The player dock: every timestamp click ends here, and it picks how to show that moment.

`play_at(video_id, seconds, quote="")` loads the video if it is not the one playing
(reading it from the library through the job runner), picks a backend
(`choice.choose_playback`), seeks and plays. A video with nothing to play here (a subtitle
file alone, YouTube without QtWebEngine or offline, a site that only plays in its page)
opens in the transcript reader at that second instead, with the quote marked.

Before each load the dock looks beside a subtitle-only video's file for its media
(`choice.media_beside`); what it finds, or what the user points the reader's "Locate media
file..." at, is saved through `CoreAPI.set_media` and plays from then on.

Given `key_moments` (`CoreAPI.get_key_moments`), a video that plays gets its key moments as
ticks on the scrub bar (`moments.MomentMarkers`), found on the job runner.

With "Skip sponsor segments during playback" on (`set_skip_sponsors`), opening a YouTube
video also asks the library for its SponsorBlock sponsor segments (`CoreAPI.
get_skip_segments`, through the job runner: the first time the owner asks SponsorBlock and
keeps them), and while it plays the dock seeks over each one the playhead enters by playing,
saying so in the status bar. A moment the user opens or seeks to inside a segment plays: only
playing into one skips it. Off, nothing is asked.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QStackedWidget, QVBoxLayout, QWidget

from v2c_desktop.core.domain.skips import SPONSOR, SkipSegment, SkipSegments
from v2c_desktop.core.domain.videos import Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.ids import youtube_id_of
from v2c_desktop.core.timecode import clock

from ..actions import focus_is_text_input
from ..bridge import JobRunner
from ..elided_label import ElidedLabel
from .backend import PlayerBackend
from .choice import Kind, choose_playback, media_beside
from .moments import LoadMoments, MomentMarkers
from .reader import OpenUrl, TranscriptReader
from .transport import KEYS, RATES, VOLUME_STEP, TransportBar

LoadVideo = Callable[[str], Awaitable[VideoRecord]]
SetMedia = Callable[[str, str], Awaitable[VideoRecord]]
LoadSkips = Callable[[str, list[str]], Awaitable[SkipSegments]]
BackendFactory = Callable[[Kind], PlayerBackend]

MIN_WIDTH = 340  # the player keeps a usable width whatever the window holds
#: A playhead that moved forward at most this far, from before a sponsor segment's start
#: plus this, into the segment entered it by playing (the page reports every 250 ms).
ENTER_S = 2.0
#: So close to a segment's end, the skip is not worth the jump.
END_MARGIN_S = 0.5


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
        key_moments: LoadMoments | None = None,
        skip_segments: LoadSkips | None = None,
        skip_sponsors: bool = False,
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
        self._load_skips = skip_segments
        self._skip_sponsors = skip_sponsors
        self._skips: list[SkipSegment] = []  # the playing video's sponsor segments
        self._skips_of: str | None = None  # ...of this video (asked for, or arrived)
        self._last_position: float | None = None
        self._watching: SkipSegment | None = None  # opened or sought into: it plays
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
        self.moments = MomentMarkers(self.transport.scrub, runner, key_moments, self)
        layout.addWidget(self.moments.label)
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

    @property
    def skips(self) -> list[SkipSegment]:
        """The sponsor segments the dock skips in the playing video (empty when off)."""
        return list(self._skips)

    # -- skipping sponsor segments -----------------------------------------------------------
    def set_skip_sponsors(self, on: bool) -> None:
        """Skip the sponsor segments of what plays (the user's setting); off forgets them."""
        self._skip_sponsors = on
        if not on:
            self._skips, self._skips_of = [], None
        elif self._video is not None and self._skips_of != self._video.id:
            self._fetch_skips(self._video)

    def _fetch_skips(self, video: Video) -> None:
        """Ask the library for `video`'s sponsor segments (SponsorBlock the first time)."""
        self._skips, self._skips_of = [], None
        load = self._load_skips
        if not self._skip_sponsors or load is None or youtube_id_of(video) is None:
            return
        self._skips_of = video.id

        def arrived(found: SkipSegments) -> None:
            if self._skip_sponsors and self._video is not None and self._video.id == video.id:
                self._skips = list(found.segments)

        self._runner.start(
            lambda _progress: load(video.id, [SPONSOR]),
            label=f"sponsor segments of {video.title or video.id}",
            on_finished=arrived,
        )

    def _skip_if_entered(self, seconds: float) -> None:
        """Seek over the sponsor segment the playhead just played into, if any."""
        previous, self._last_position = self._last_position, seconds
        if not self._skips or self._backend is None:
            return
        segment = next((s for s in self._skips if s.start <= seconds < s.end - END_MARGIN_S), None)
        if segment is None or segment == self._watching:
            self._watching = segment
            return
        entered = (
            previous is not None
            and previous < segment.start + ENTER_S
            and 0 <= seconds - previous <= ENTER_S
        )
        if not entered:  # opened or sought into it: the user asked for this moment
            self._watching = segment
            return
        self._last_position = segment.end
        self._backend.seek(segment.end)
        self.message_changed.emit(
            f"Skipped {segment.category} {clock(segment.start)}-{clock(segment.end)}"
        )

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
        self.moments.show_for(video.id)
        self._last_position, self._watching = seconds, None
        if self._skips_of != video.id:
            self._fetch_skips(video)
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
        self.moments.clear()
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
            self._skip_if_entered(seconds)

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
