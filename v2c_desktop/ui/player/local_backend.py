"""Local media (a file import with its video or audio beside the subtitles) in QtMultimedia."""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer, QtAudio
from PySide6.QtMultimediaWidgets import QVideoWidget
from PySide6.QtWidgets import QWidget

from v2c_desktop.core.domain.videos import Video

from .backend import PlayerBackend

_READY = (
    QMediaPlayer.MediaStatus.LoadedMedia,
    QMediaPlayer.MediaStatus.BufferingMedia,
    QMediaPlayer.MediaStatus.BufferedMedia,
    QMediaPlayer.MediaStatus.EndOfMedia,
)


class LocalBackend(PlayerBackend):
    """QMediaPlayer + QVideoWidget + QAudioOutput; a seek before the media is loaded waits.

    Loading the file that is already open (the user comes back to it from another video)
    sets no new source: QMediaPlayer ignores a `setSource` of the same URL and never reports
    the media loaded again, so a seek waiting for that report would wait forever (the black
    frame at 0:00). Such a load seeks and plays at once.
    """

    kind = "local"

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.player = QMediaPlayer(self)
        self.audio = QAudioOutput(self)
        self.player.setAudioOutput(self.audio)
        self._view = QVideoWidget()
        self._view.setObjectName("localVideo")
        self.player.setVideoOutput(self._view)
        self._pending: float | None = None
        self._play_when_ready = False
        self.player.mediaStatusChanged.connect(self._on_status)
        self.player.positionChanged.connect(lambda ms: self.position_changed.emit(ms / 1000))
        self.player.durationChanged.connect(lambda ms: self.duration_changed.emit(ms / 1000))
        self.player.playbackStateChanged.connect(
            lambda state: self.playing_changed.emit(
                state == QMediaPlayer.PlaybackState.PlayingState
            )
        )
        self.player.errorOccurred.connect(self._on_error)

    def widget(self) -> QWidget:
        return self._view

    def load(self, video: Video, seconds: float) -> None:
        source = QUrl.fromLocalFile(video.source_path)
        self._pending = seconds
        self._play_when_ready = True
        if self.player.source() == source and self._ready():
            self._on_status(self.player.mediaStatus())  # already open: seek and play now
            return
        self.player.setSource(source)

    def seek(self, seconds: float) -> None:
        if self._ready():
            self.player.setPosition(round(seconds * 1000))
        else:
            self._pending = seconds

    def play(self) -> None:
        if self._ready():
            self.player.play()
        else:
            self._play_when_ready = True

    def pause(self) -> None:
        self._play_when_ready = False
        self.player.pause()

    def toggle(self) -> None:
        if self.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
            self.pause()
        else:
            self.play()

    def position(self) -> float:
        return self.player.position() / 1000

    def duration(self) -> float:
        return self.player.duration() / 1000

    def stop(self) -> None:
        """Silence it when the dock shows something else: a pause, not `QMediaPlayer.stop`.

        `stop()` tears the FFmpeg playback engine down while the GUI thread holds the GIL;
        its audio thread, destroying its objects meanwhile, waits for the GIL in PySide's
        override check while holding the lock `stop()` waits for: a deadlock (seen in CI
        switching sources). A pause keeps the engine, and the file stays open for the next
        timestamp of the same video."""
        self._pending = None
        self._play_when_ready = False
        self.player.pause()

    def set_rate(self, rate: float) -> None:
        self.player.setPlaybackRate(rate)

    def set_volume(self, volume: float) -> None:
        """`volume` as the ear hears it (a slider's position), turned into the linear gain."""
        linear = QtAudio.convertVolume(
            max(0.0, min(1.0, volume)),
            QtAudio.VolumeScale.LogarithmicVolumeScale,
            QtAudio.VolumeScale.LinearVolumeScale,
        )
        self.audio.setVolume(linear)

    def set_muted(self, muted: bool) -> None:
        self.audio.setMuted(muted)

    def _ready(self) -> bool:
        return self.player.mediaStatus() in _READY

    def _on_status(self, status: QMediaPlayer.MediaStatus) -> None:
        if status not in _READY:
            return
        if self._pending is not None:
            seconds, self._pending = self._pending, None
            self.player.setPosition(round(seconds * 1000))
        if self._play_when_ready:
            self._play_when_ready = False
            self.player.play()

    def _on_error(self, _error: QMediaPlayer.Error, message: str) -> None:
        self.failed.emit(message or "this media file cannot be played")
