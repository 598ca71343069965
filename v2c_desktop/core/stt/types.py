"""The transcriber interface, beside the other model runtimes: one engine today
(faster-whisper), another (whisper.cpp) can implement the same protocol later."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..domain.videos import Segment
from ..progress import ProgressCallback


class Cancelled(Exception):
    """The transcription was cancelled (its `cancel` event was set); nothing was produced."""


@dataclass(frozen=True, slots=True)
class Producer:
    """Who made a transcript: engine, model, versions and compute type."""

    engine: str  # "faster-whisper"
    engine_version: str
    model: str  # "tiny.en"
    compute_type: str  # "int8"
    runtime: str = ""  # "ctranslate2 4.8.5"

    def describe(self) -> str:
        """The transcript's `producer` field, e.g.
        `faster-whisper 1.2.1, model tiny.en, int8, ctranslate2 4.8.5`."""
        parts = [f"{self.engine} {self.engine_version}", f"model {self.model}", self.compute_type]
        if self.runtime:
            parts.append(self.runtime)
        return ", ".join(parts)


@dataclass(slots=True)
class SpeechResult:
    """What a transcriber heard in one file."""

    segments: list[Segment]
    language: str
    duration: float  # seconds of audio in the file
    producer: Producer
    wall_seconds: float = 0.0  # decode + inference
    warnings: list[str] = field(default_factory=list)

    @property
    def speed(self) -> float:
        """Audio seconds per wall second (10.0: ten times faster than real time)."""
        return self.duration / self.wall_seconds if self.wall_seconds > 0 else 0.0


class Transcriber(Protocol):
    """Turns the speech of one media file into timed segments.

    Blocking: run it in a worker thread (`worker.transcribe_in_worker`). It checks `cancel`
    between pieces of work (decoded audio chunks, recognised segments) and raises
    `Cancelled` within a few seconds of it being set; `progress` hears audio seconds done.
    """

    @property
    def model_name(self) -> str: ...

    def transcribe(
        self,
        path: Path,
        *,
        language: str | None = None,
        progress: ProgressCallback,
        cancel: threading.Event,
    ) -> SpeechResult: ...
