"""The controls under the video: a scrub bar with elapsed and total time, play/pause, back and
forward 10 s, playback speed, volume and mute. Each tooltip names its keyboard shortcut."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QMouseEvent, QWheelEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.timecode import clock

SKIP_SECONDS = 10.0
RATES = (0.75, 1.0, 1.25, 1.5, 1.75, 2.0)
VOLUME_STEP = 0.1

#: The dock's own shortcuts (play/pause and skipping are the window's, see `ui.actions`).
KEYS = {
    "slower": "[",
    "faster": "]",
    "normal_speed": "=",
    "volume_up": "Ctrl+Up",
    "volume_down": "Ctrl+Down",
    "mute": "M",
}


def rate_label(rate: float) -> str:
    return f"{rate:g}×"


class ScrubBar(QSlider):
    """A time slider in milliseconds: a click jumps to where it lands, a drag seeks on release,
    the arrow keys step 5 s and Page Up/Down 30 s.

    Signals:
        scrubbed(ms): the user chose a time.
    """

    scrubbed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("playerScrub")
        self.setRange(0, 0)
        self.setSingleStep(5000)
        self.setPageStep(30000)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.sliderReleased.connect(lambda: self.scrubbed.emit(self.value()))
        self.actionTriggered.connect(self._on_action)

    def _on_action(self, action: int) -> None:
        # keys and page clicks: the slider's position is already moved, its value not yet
        moves = (QSlider.SliderAction.SliderNoAction.value, QSlider.SliderAction.SliderMove.value)
        if action not in moves:
            self.scrubbed.emit(self.sliderPosition())

    def wheelEvent(self, event: QWheelEvent) -> None:
        super().wheelEvent(event)
        if event.isAccepted() and self.isEnabled():
            self.scrubbed.emit(self.value())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Jump to the clicked time (a plain slider only steps a page towards it)."""
        if event.button() != Qt.MouseButton.LeftButton or self.maximum() <= 0:
            super().mousePressEvent(event)
            return
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        handle = self.style().subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, self
        )
        if handle.contains(event.position().toPoint()):
            super().mousePressEvent(event)  # a drag of the handle
            return
        groove = self.style().subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, self
        )
        span = max(1, groove.width() - handle.width())
        x = round(event.position().x()) - groove.x() - handle.width() // 2
        value = QStyle.sliderValueFromPosition(self.minimum(), self.maximum(), x, span)
        self.setValue(value)
        self.scrubbed.emit(value)
        event.accept()


class TransportBar(QWidget):
    """Controls that drive whichever backend is playing.

    Signals:
        toggle_requested()
        skip_requested(delta_seconds)
        seek_requested(seconds): the scrub bar was moved to a time.
        rate_requested(rate)
        volume_requested(volume): 0 to 1.
        mute_requested(muted)
    """

    toggle_requested = Signal()
    skip_requested = Signal(float)
    seek_requested = Signal(float)
    rate_requested = Signal(float)
    volume_requested = Signal(float)
    mute_requested = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        style = self.style()
        self._duration = 0.0
        self.elapsed = QLabel("0:00")
        self.elapsed.setObjectName("playerTime")
        self.total = QLabel("0:00")
        self.total.setObjectName("playerTotal")
        self.scrub = ScrubBar()
        self.scrub.setToolTip(
            "Seek: click or drag; ←/→ 5 s, Page Up/Down 30 s when focused; "
            "Alt+Left / Alt+Right 10 s from anywhere"
        )
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
        self.speed = QComboBox()
        self.speed.setObjectName("playerSpeed")
        for rate in RATES:
            self.speed.addItem(rate_label(rate), rate)
        self.speed.setCurrentIndex(RATES.index(1.0))
        self.speed.setToolTip(
            f"Playback speed ({KEYS['slower']} slower, {KEYS['faster']} faster, "
            f"{KEYS['normal_speed']} normal)"
        )
        self.mute = self._button(style.standardIcon(QStyle.StandardPixmap.SP_MediaVolume), "")
        self.mute.setObjectName("playerMute")
        self.mute.setCheckable(True)
        self.volume = QSlider(Qt.Orientation.Horizontal)
        self.volume.setObjectName("playerVolume")
        self.volume.setRange(0, 100)
        self.volume.setValue(100)
        self.volume.setSingleStep(round(VOLUME_STEP * 100))
        self.volume.setFixedWidth(80)
        self.volume.setToolTip(
            f"Volume ({KEYS['volume_up']} louder, {KEYS['volume_down']} quieter)"
        )
        self._show_muted(False)

        time_row = QHBoxLayout()
        time_row.setContentsMargins(0, 0, 0, 0)
        time_row.addWidget(self.elapsed)
        time_row.addWidget(self.scrub, 1)
        time_row.addWidget(self.total)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for button in (self.back, self.play, self.forward):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.speed)
        buttons.addWidget(self.mute)
        buttons.addWidget(self.volume)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(time_row)
        layout.addLayout(buttons)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

        self.back.clicked.connect(lambda: self.skip_requested.emit(-SKIP_SECONDS))
        self.forward.clicked.connect(lambda: self.skip_requested.emit(SKIP_SECONDS))
        self.play.clicked.connect(self.toggle_requested)
        self.scrub.scrubbed.connect(lambda ms: self.seek_requested.emit(ms / 1000))
        self.scrub.sliderMoved.connect(lambda ms: self.elapsed.setText(clock(ms / 1000)))
        self.speed.activated.connect(lambda i: self.rate_requested.emit(RATES[i]))
        self.volume.valueChanged.connect(lambda v: self.volume_requested.emit(v / 100))
        self.mute.toggled.connect(self.mute_requested)
        self.set_enabled(False)

    def _button(self, icon: QIcon, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setIcon(icon)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        return button

    # -- what the dock shows -----------------------------------------------------------------
    def set_enabled(self, enabled: bool) -> None:
        for widget in (self.back, self.play, self.forward, self.scrub):
            widget.setEnabled(enabled)

    def set_playing(self, playing: bool) -> None:
        pixmap = (
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        )
        self.play.setIcon(self.style().standardIcon(pixmap))

    def set_time(self, seconds: float) -> None:
        if self.scrub.isSliderDown():  # the user's drag shows its own time
            return
        self.elapsed.setText(clock(seconds))
        self.scrub.blockSignals(True)
        self.scrub.setValue(round(seconds * 1000))
        self.scrub.blockSignals(False)

    def set_duration(self, seconds: float) -> None:
        self._duration = max(0.0, seconds)
        self.total.setText(clock(self._duration))
        self.scrub.setRange(0, round(self._duration * 1000))

    def duration(self) -> float:
        return self._duration

    def set_rate(self, rate: float) -> None:
        self.speed.setCurrentIndex(RATES.index(rate))

    def set_volume(self, volume: float) -> None:
        self.volume.blockSignals(True)
        self.volume.setValue(round(volume * 100))
        self.volume.blockSignals(False)

    def set_muted(self, muted: bool) -> None:
        self.mute.blockSignals(True)
        self.mute.setChecked(muted)
        self.mute.blockSignals(False)
        self._show_muted(muted)

    def _show_muted(self, muted: bool) -> None:
        pixmap = (
            QStyle.StandardPixmap.SP_MediaVolumeMuted
            if muted
            else QStyle.StandardPixmap.SP_MediaVolume
        )
        self.mute.setIcon(self.style().standardIcon(pixmap))
        self.mute.setToolTip(f"{'Unmute' if muted else 'Mute'} ({KEYS['mute']})")
