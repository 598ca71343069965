"""A running build: its stage in words (`reading 4/12 parts`, `verifying 38 claims`,
`merging topics`), a bar, the elapsed time and Cancel; then how it ended."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from v2c_desktop.core.briefs.events import BriefStep


def stage_text(step: BriefStep) -> str:
    """What a step means to a person."""
    of = f"{step.done}/{step.total}" if step.total is not None else f"{step.done}"
    if step.stage == "scope":
        return f"finding the videos: {step.message}" if step.message else "finding the videos"
    if step.stage == "map":
        if step.total is not None and step.done >= step.total:
            return f"verifying: {step.message}"
        return f"reading {of} parts — {step.message}" if step.message else f"reading {of} parts"
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
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(False)
        self.elapsed = QLabel("")
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self.cancel_requested)
        self.stages: list[str] = []  # every stage text shown during this run (tests read it)
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
        self._started = time.monotonic()
        self.bar.setRange(0, 0)
        self.cancel.setEnabled(True)
        self.stage.setText("starting…")
        self._tick()
        self._timer.start()
        self.setVisible(True)

    def step(self, step: BriefStep) -> None:
        text = stage_text(step)
        self.stages.append(text)
        self.stage.setText(text)
        if step.total:
            self.bar.setRange(0, step.total)
            self.bar.setValue(min(step.done, step.total))
        else:
            self.bar.setRange(0, 0)

    def finish(self, text: str) -> None:
        """The run ended (done, cancelled or failed): say so, keep the time it took."""
        self._timer.stop()
        self._tick()
        self.stage.setText(text)
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.cancel.setEnabled(False)

    def seconds(self) -> float:
        return time.monotonic() - self._started

    def _tick(self) -> None:
        whole = int(self.seconds())
        self.elapsed.setText(f"{whole // 60}:{whole % 60:02d}")
