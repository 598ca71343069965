"""What every player backend offers the dock: load at a time, seek, play, pause, report time,
and the listening controls (speed, volume, mute)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from v2c_desktop.core.domain.videos import Video


class PlayerBackend(QObject):
    """One way of playing a video inside the app.

    Signals:
        position_changed(seconds): the current time, a few times a second while playing,
            and once after every seek.
        duration_changed(seconds): the length of the loaded video, once it is known.
        playing_changed(playing)
        failed(message): the backend cannot play this video; the dock falls back.
    """

    position_changed = Signal(float)
    duration_changed = Signal(float)
    playing_changed = Signal(bool)
    failed = Signal(str)

    kind = "none"

    def widget(self) -> QWidget:
        raise NotImplementedError

    def load(self, video: Video, seconds: float) -> None:
        """Open `video`, then seek to `seconds` and play as soon as it can, every time: also
        when it is the video this backend had open before another backend took over."""
        raise NotImplementedError

    def seek(self, seconds: float) -> None:
        raise NotImplementedError

    def play(self) -> None:
        raise NotImplementedError

    def pause(self) -> None:
        raise NotImplementedError

    def toggle(self) -> None:
        raise NotImplementedError

    def position(self) -> float:
        """The last known time in seconds."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop playing (another backend, or the transcript reader, takes over the dock)."""
        raise NotImplementedError

    def set_rate(self, rate: float) -> None:
        """Play at `rate` times the normal speed (0.75 to 2)."""
        raise NotImplementedError

    def set_volume(self, volume: float) -> None:
        """The loudness from 0 (silent) to 1 (full)."""
        raise NotImplementedError

    def set_muted(self, muted: bool) -> None:
        raise NotImplementedError
