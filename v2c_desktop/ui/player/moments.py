"""Key moments as ticks on the player's scrub bar.

When the dock opens a video, `MomentMarkers.show_for` asks the core for its key moments
(`CoreAPI.get_key_moments`) through the job runner, so the window never waits: extractive
ones (chapters, topic shifts) come back at once, a model's after it has worked. A tick is
drawn at each moment; hovering one shows its time, title, why and who chose it, and a click
near one seeks exactly there (a click anywhere else still lands where it is clicked). The
line under the controls says how many there are and how they were found.

The ticks are painted by a child of the scrub bar that lets every mouse event through; the
bar's own events (hover, press) are read through an event filter, so `ScrubBar` itself is
unchanged.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable

from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QColor, QHelpEvent, QMouseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QLabel, QStyle, QStyleOptionSlider, QToolTip, QWidget

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.moments.events import KeyMoment, KeyMoments
from v2c_desktop.core.progress import ProgressCallback
from v2c_desktop.core.timecode import clock

from ..bridge import JobRunner
from .transport import ScrubBar

LoadMoments = Callable[[str, ProgressCallback], Awaitable[KeyMoments]]

#: How close (pixels) a hover or a click must be to a tick to mean that moment.
HIT_PX = 5
TICK_WIDTH = 2


class _Ticks(QWidget):
    """Draws the ticks over the scrub bar; transparent to the mouse."""

    def __init__(self, markers: MomentMarkers, scrub: ScrubBar) -> None:
        super().__init__(scrub)
        self._markers = markers
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)

    def paintEvent(self, event: QPaintEvent) -> None:
        xs = self._markers.tick_positions()
        if not xs:
            return
        painter = QPainter(self)
        colour = tick_colour(self.palette(), self.isEnabled())
        height = self.height()
        for x in xs:  # the bar's full height: visible over the played part of the groove too
            painter.fillRect(QRect(x - TICK_WIDTH // 2, 2, TICK_WIDTH, height - 4), colour)
        painter.end()


def tick_colour(palette: QPalette, enabled: bool = True) -> QColor:
    """The text colour, a little see-through: it shows on the groove and on its filled part."""
    group = QPalette.ColorGroup.Active if enabled else QPalette.ColorGroup.Disabled
    colour = QColor(palette.color(group, QPalette.ColorRole.Text))
    colour.setAlpha(170)
    return colour


class MomentMarkers(QObject):
    """The key moments of the video the dock plays, on its scrub bar and in `label`.

    `moments` are the ticks shown (empty while loading or without a video); `result` is
    the core's answer they came from.
    """

    def __init__(
        self,
        scrub: ScrubBar,
        runner: JobRunner,
        load: LoadMoments | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._scrub = scrub
        self._runner = runner
        self._load = load
        self._video_id: str | None = None
        self._job: str | None = None
        self.result: KeyMoments | None = None
        self.label = QLabel()
        self.label.setObjectName("playerMoments")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.hide()
        self._ticks = _Ticks(self, scrub)
        self._ticks.resize(scrub.size())
        scrub.installEventFilter(self)
        scrub.rangeChanged.connect(lambda *_: self._ticks.update())
        runner.progress.connect(self._on_progress)

    @property
    def moments(self) -> list[KeyMoment]:
        return list(self.result.moments) if self.result is not None else []

    # -- what is shown -----------------------------------------------------------------------
    def show_for(self, video_id: str) -> None:
        """Find and show the key moments of `video_id` (nothing to do if they are shown, or
        when the dock was made without a way to load them)."""
        load = self._load
        if load is None or video_id == self._video_id:
            return
        self.clear()
        self._video_id = video_id
        self._say("Finding key moments…")

        def found(result: KeyMoments) -> None:
            if video_id == self._video_id:
                self._job = None
                self._show(result)

        def failed(error: V2CError) -> None:
            if video_id == self._video_id:
                self._job = None
                self._say(f"No key moments: {error.message}")

        self._job = self._runner.start(
            lambda progress: load(video_id, progress),
            label=f"key moments of {video_id}",
            on_finished=found,
            on_failed=failed,
        )

    def clear(self) -> None:
        """No ticks and no line (another video, or the transcript reader shows)."""
        if self._job is not None:
            self._runner.cancel(self._job)
            self._job = None
        self._video_id = None
        self.result = None
        self._say("")
        self._ticks.update()

    def _show(self, result: KeyMoments) -> None:
        self.result = result
        count = len(result.moments)
        if count == 0:
            self._say("No key moments found")
        else:
            moments = "key moment" if count == 1 else "key moments"
            self._say(f"{count} {moments} on the timeline ({result.label()})")
        self.label.setToolTip(result.note)
        self._ticks.update()

    def _say(self, text: str) -> None:
        self.label.setText(text)
        self.label.setVisible(bool(text))

    def _on_progress(self, job_id: str, _stage: str, _done: int, _total: int, message: str) -> None:
        if job_id == self._job and message:
            self._say(f"Finding key moments: {message}")

    # -- where the ticks are -----------------------------------------------------------------
    def x_of(self, seconds: float) -> int | None:
        """The scrub bar's x (pixels) of `seconds`, None before its duration is known."""
        scrub = self._scrub
        if scrub.maximum() <= 0:
            return None
        groove, handle = self._geometry()
        span = max(1, groove.width() - handle.width())
        value = min(max(round(seconds * 1000), scrub.minimum()), scrub.maximum())
        offset = QStyle.sliderPositionFromValue(scrub.minimum(), scrub.maximum(), value, span)
        return groove.x() + handle.width() // 2 + offset

    def tick_positions(self) -> list[int]:
        return [x for m in self.moments if (x := self.x_of(m.start)) is not None]

    def moment_at(self, x: float) -> KeyMoment | None:
        """The moment whose tick is nearest `x`, within `HIT_PX`."""
        best: tuple[float, KeyMoment] | None = None
        for moment in self.moments:
            tick = self.x_of(moment.start)
            if tick is None:
                continue
            distance = abs(tick - x)
            if distance <= HIT_PX and (best is None or distance < best[0]):
                best = (distance, moment)
        return best[1] if best is not None else None

    def _geometry(self) -> tuple[QRect, QRect]:
        option = QStyleOptionSlider()
        self._scrub.initStyleOption(option)
        style = self._scrub.style()
        groove = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, self._scrub
        )
        handle = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, self._scrub
        )
        return groove, handle

    def tooltip(self, moment: KeyMoment) -> str:
        """Rich text of plain words: time and title, why, who chose it."""
        lines = [f"{clock(moment.start)}  {moment.title}", moment.why]
        if self.result is not None:
            lines.append(f"Key moment, {self.result.label()}")
        return "<qt>" + "<br>".join(html.escape(line) for line in lines if line) + "</qt>"

    # -- the scrub bar's events --------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self._scrub:
            return False
        kind = event.type()
        if kind == QEvent.Type.Resize:
            self._ticks.resize(self._scrub.size())
        elif kind == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            moment = self.moment_at(event.pos().x())
            if moment is not None:
                QToolTip.showText(event.globalPos(), self.tooltip(moment), self._scrub)
                return True
        elif kind == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            return self._press(event)
        return False

    def _press(self, event: QMouseEvent) -> bool:
        """A left click near a tick seeks to its moment exactly (not on the handle: a drag)."""
        if event.button() != Qt.MouseButton.LeftButton or not self._scrub.isEnabled():
            return False
        point = event.position().toPoint()
        if self._geometry()[1].contains(point):
            return False
        moment = self.moment_at(point.x())
        if moment is None:
            return False
        ms = round(moment.start * 1000)
        self._scrub.setValue(ms)
        self._scrub.scrubbed.emit(ms)
        event.accept()
        return True
