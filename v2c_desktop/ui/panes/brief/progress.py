"""A running build: its stage in words (`reading video 4 of 12 (part 9/30)`, `verifying the
quotes`, `merging topics`), a bar, the elapsed time and Cancel; then how it ended.

The core counts the map stage in parts (a long video is read in several); the videos are
known from the scope step ("12 distinct videos") and from each part's "(part n)" label, so
a person reads how many videos are done, with the parts beside.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from v2c_desktop.core.briefs.events import BriefStep

PART = re.compile(r"^(?P<title>.*) \(part (?P<part>\d+)\)$")
VIDEOS = re.compile(r"^(?P<count>\d+) distinct videos?$")


@dataclass
class RunCount:
    """What a run has said so far about its videos: how many it reads, which one now."""

    videos: int | None = None
    video: int = 0  # the video being read (1-based), 0 before the first part
    parts: int | None = None
    reused: int = 0  # parts whose reading came back from the cache (known when done)

    def follow(self, step: BriefStep) -> None:
        if step.stage == "scope":
            found = VIDEOS.match(step.message)
            if found:
                self.videos = int(found.group("count"))
        elif step.stage == "map":
            self.parts = step.total
            part = PART.match(step.message)
            if part and part.group("part") == "1":
                self.video += 1


def stage_text(step: BriefStep, count: RunCount | None = None) -> str:
    """What a step means to a person (`count`: what the run said before it)."""
    of = f"{step.done}/{step.total}" if step.total is not None else f"{step.done}"
    if step.stage == "scope":
        return f"finding the videos: {step.message}" if step.message else "finding the videos"
    if step.stage == "map":
        if step.total is not None and step.done >= step.total:
            return f"verifying: {step.message}"
        part = f"part {step.done + 1}/{step.total}" if step.total else f"part {step.done + 1}"
        if count is not None and count.video and count.videos:
            return f"reading video {count.video} of {count.videos} ({part})"
        return f"reading {part}"
    if step.stage == "write":
        return "writing the brief in one pass" if step.done == 0 else "verifying the quotes"
    if step.stage == "reduce":
        return f"merging topics ({step.message})" if step.message else "merging topics"
    if step.stage == "extract":
        return f"finding the best passages in {step.total} videos"
    if step.stage == "render":
        return "saving the brief"
    return f"{step.stage} {of} {step.message}".strip()


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
        if step.stage == "map" and step.total:  # the one stage that counts as it goes
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
