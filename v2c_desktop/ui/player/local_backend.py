"""Local media (a file import with its video or audio beside the subtitles) in QtMultimedia."""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer
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
    """QMediaPlayer + QVideoWidget + QAudioOutput; a seek before the media is loaded waits."""

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
        self.player.playbackStateChanged.connect(
            lambda state: self.playing_changed.emit(
                state == QMediaPlayer.PlaybackState.PlayingState
            )
        )
        self.player.errorOccurred.connect(self._on_error)

    def widget(self) -> QWidget:
        return self._view

    def load(self, video: Video, seconds: float) -> None:
        self._pending = seconds
        self._play_when_ready = True
        self.player.setSource(QUrl.fromLocalFile(video.source_path))

    def seek(self, seconds: float) -> None:
        if self.player.mediaStatus() in _READY:
            self.player.setPosition(round(seconds * 1000))
        else:
            self._pending = seconds

    def play(self) -> None:
        if self.player.mediaStatus() in _READY:
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

    def stop(self) -> None:
        self._pending = None
        self._play_when_ready = False
        self.player.stop()

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
