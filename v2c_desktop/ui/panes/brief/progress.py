"""A running build: its stage in words (`reading video 4 of 12 (part 9/30)`, `verifying the
quotes`, `merging topics`), a bar, the elapsed time and Cancel; then how it ended.

The words are the app's own, made from the numbers each core step carries (`videos`,
`video`, `part`, `parts`, `reused`), never parsed out of the step's message, which is worded
for the CLI and MCP. The core counts the map stage in parts (a long video is read in
several), so a person reads which video is being read, with the parts beside.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from v2c_desktop.core.briefs.events import BriefStep

#: The stages whose steps count as they go (the bar shows done of total).
COUNTED = ("map", "extract")


@dataclass
class RunCount:
    """What a run has said so far about its videos and parts (the latest numbers)."""

    videos: int | None = None
    video: int = 0  # the video being read (1-based), 0 when none is
    parts: int | None = None
    reused: int = 0  # parts whose reading came back from the cache so far

    def follow(self, step: BriefStep) -> None:
        if step.videos:
            self.videos = step.videos
        if step.stage in COUNTED:
            self.video = step.video
        if step.parts:
            self.parts = step.parts
        self.reused = max(self.reused, step.reused)


def stage_text(step: BriefStep, count: RunCount | None = None) -> str:
    """What a step means to a person (`count`: what the run said before it, this step
    included)."""
    videos = step.videos or (count.videos if count is not None else None)
    if step.stage == "scope":
        if step.videos:
            return f"finding the videos: {_videos(step.videos)} to read"
        return "finding the videos"
    if step.stage == "map":
        if not step.part:
            return "verifying the quotes"
        part = f"part {step.part}/{step.parts}" if step.parts else f"part {step.part}"
        if step.video and videos:
            return f"reading video {step.video} of {videos} ({part})"
        return f"reading {part}"
    if step.stage == "write":
        return "writing the brief in one pass" if step.done == 0 else "verifying the quotes"
    if step.stage == "reduce":
        return "merging topics" if step.done == 0 else "topics merged"
    if step.stage == "extract":
        if step.video and videos:
            return f"finding the best passages: video {step.video} of {videos}"
        if step.total is not None and step.done >= step.total:
            return "grouping the passages into topics"
        return f"finding the best passages in {_videos(videos or step.total or 0)}"
    if step.stage == "render":
        return "saving the brief"
    of = f"{step.done}/{step.total}" if step.total is not None else f"{step.done}"
    return f"{step.stage} {of}"


def _videos(count: int) -> str:
    return "1 video" if count == 1 else f"{count} videos"


class RunProgress(QWidget):
    """Signals:
    cancel_requested(): the user pressed Cancel.
    """

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("briefProgress")
        self.stage = QLabel("")
        self.stage.setObjectName("briefStage")
        self.stage.setWordWrap(True)  # a failure says its hint in full
        self.bar = QProgressBar()
        self.bar.setObjectName("briefBar")
        self.bar.setFixedWidth(160)
        self.bar.setFormat("%v/%m")  # parts read, written in the bar (no text while busy)
        self.elapsed = QLabel("")
        self.elapsed.setObjectName("briefElapsed")
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self.cancel_requested)
        self.stages: list[str] = []  # every stage text shown during this run (tests read it)
        self.count = RunCount()
        self._started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self._tick)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.stage, 1)
        row.addWidget(self.bar)
        row.addWidget(self.elapsed)
        row.addWidget(self.cancel)
        self.setVisible(False)

    def start(self) -> None:
        self.stages = []
        self.count = RunCount()
        self._started = time.monotonic()
        self._busy()
        self.bar.setVisible(True)
        self.cancel.setEnabled(True)
        self.stage.setText("starting…")
        self._tick()
        self._timer.start()
        self.setVisible(True)

    def step(self, step: BriefStep) -> None:
        self.count.follow(step)
        text = stage_text(step, self.count)
        self.stages.append(text)
        self.stage.setText(text)
        if step.stage in COUNTED and step.total:  # the stages that count as they go
            self.bar.setTextVisible(True)
            self.bar.setRange(0, step.total)
            self.bar.setValue(min(step.done, step.total))
        else:  # a step of unknown length: the style's moving busy indicator
            self._busy()

    def _busy(self) -> None:
        self.bar.setTextVisible(False)
        self.bar.setRange(0, 0)

    def finish(self, text: str) -> None:
        """The run ended (done, cancelled or failed): say so, keep the time it took."""
        self._timer.stop()
        self._tick()
        self.stage.setText(text)
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.bar.setVisible(False)  # a full bar beside "Failed" would say the opposite
        self.cancel.setEnabled(False)

    def seconds(self) -> float:
        return time.monotonic() - self._started

    def _tick(self) -> None:
        whole = int(self.seconds())
        self.elapsed.setText(f"{whole // 60}:{whole % 60:02d}")
