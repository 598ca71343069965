"""The row under the video: play/pause, back and forward 10 s, and the current time."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStyle, QToolButton, QWidget

from v2c_desktop.core.timecode import clock

SKIP_SECONDS = 10.0


class TransportBar(QWidget):
    """Buttons that drive whichever backend is playing.

    Signals:
        toggle_requested()
        skip_requested(delta_seconds)
    """

    toggle_requested = Signal()
    skip_requested = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        style = self.style()
        self.back = self._button(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaSeekBackward), "Back 10 s (Alt+Left)"
        )
        self.play = self._button(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay), "Play/pause (Space)"
        )
        self.forward = self._button(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaSeekForward),
            "Forward 10 s (Alt+Right)",
        )
        self.time = QLabel("0:00")
        self.time.setObjectName("playerTime")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for button in (self.back, self.play, self.forward):
            layout.addWidget(button)
        layout.addStretch(1)
        layout.addWidget(self.time)
        self.back.clicked.connect(lambda: self.skip_requested.emit(-SKIP_SECONDS))
        self.forward.clicked.connect(lambda: self.skip_requested.emit(SKIP_SECONDS))
        self.play.clicked.connect(self.toggle_requested)
        self.set_enabled(False)

    def _button(self, icon: QIcon, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setIcon(icon)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        return button

    def set_enabled(self, enabled: bool) -> None:
        for button in (self.back, self.play, self.forward):
            button.setEnabled(enabled)

    def set_playing(self, playing: bool) -> None:
        pixmap = (
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        )
        self.play.setIcon(self.style().standardIcon(pixmap))

    def set_time(self, seconds: float) -> None:
        self.time.setText(clock(seconds))
