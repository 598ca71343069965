"""The faster-whisper transcriber: CTranslate2 Whisper, int8 on the CPU, Silero VAD on.

A loaded model is kept for the process (loading tiny.en takes about 0.4 s) and one
transcription runs at a time per model (a second waits): CTranslate2 already uses every
thread it is given, so two at once would only make both slower.
"""

from __future__ import annotations

import os
import threading
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.videos import Segment
from ..progress import Progress, ProgressCallback
from ..timecode import clock
from .audio import SAMPLE_RATE, decode
from .errors import engine_missing, missing_model
from .models import SpeechModel
from .types import Cancelled, Producer, SpeechResult

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ENGINE = "faster-whisper"
STAGE = "transcribe"
#: A recognised segment longer than this many words is cut at its words' times too.
_MAX_WORDS = 30

_models: dict[tuple[str, str, int], Any] = {}
_locks: dict[str, threading.Lock] = {}
_registry_lock = threading.Lock()


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


def default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


class FasterWhisperTranscriber:
    """`Transcriber` over faster-whisper; see the module docstring."""

    def __init__(
        self,
        model: SpeechModel,
        *,
        compute_type: str = "int8",
        cpu_threads: int | None = None,
        beam_size: int = 5,
    ) -> None:
        self.model = model
        self.compute_type = compute_type
        self.cpu_threads = cpu_threads or default_threads()
        self.beam_size = beam_size

    @property
    def model_name(self) -> str:
        return self.model.name

    def producer(self) -> Producer:
        return Producer(
            engine=ENGINE,
            engine_version=_version("faster-whisper"),
            model=self.model.name,
            compute_type=self.compute_type,
            runtime=f"ctranslate2 {_version('ctranslate2')}",
        )

    def _loaded(self) -> Any:
        key = (str(self.model.path), self.compute_type, self.cpu_threads)
        with _registry_lock:
            if key not in _models:
                try:
                    from faster_whisper import WhisperModel
                except ImportError as exc:
                    raise engine_missing(str(exc)) from None
                try:
                    _models[key] = WhisperModel(
                        str(self.model.path),
                        device="cpu",
                        compute_type=self.compute_type,
                        cpu_threads=self.cpu_threads,
                    )
                except (RuntimeError, ValueError, OSError) as exc:
                    raise missing_model(
                        self.model.name,
                        f"{self.model.path} does not hold a usable CTranslate2 Whisper model "
                        f"({str(exc)[:200]}); reinstall it",
                    ) from None
            return _models[key]

    def _decode(self, samples: npt.NDArray[np.float32], language: str | None) -> Any:
        """faster-whisper's lazy (pieces, info) over samples, with the settings every
        transcription here uses: a file's and a live stream's window alike."""
        return self._loaded().transcribe(
            samples,
            language=language,
            beam_size=self.beam_size,
            vad_filter=True,
            word_timestamps=True,
            condition_on_previous_text=False,
        )

    def _lock(self) -> threading.Lock:
        with _registry_lock:
            return _locks.setdefault(str(self.model.path), threading.Lock())

    def transcribe(
        self,
        path: Path,
        *,
        language: str | None = None,
        progress: ProgressCallback,
        cancel: threading.Event,
    ) -> SpeechResult:
        started = time.monotonic()
        name = path.name
        progress(Progress(STAGE, 0, None, f"{name}: reading the audio"))
        audio = decode(
            path,
            cancel=cancel,
            on_chunk=lambda s: progress(
                Progress(STAGE, 0, None, f"{name}: reading the audio ({clock(s)})")
            ),
        )
        total = audio.duration
        if self.model.english_only:
            language = "en"
        lock = self._lock()
        while not lock.acquire(timeout=0.5):  # one transcription at a time per model
            if cancel.is_set():
                raise Cancelled()
            progress(Progress(STAGE, 0, round(total), f"{name}: waiting for the model"))
        try:
            if cancel.is_set():
                raise Cancelled()
            progress(  # the first load of a model takes a moment: say what the wait is
                Progress(STAGE, 0, round(total), f"{name}: loading {self.model.name}")
            )
            segments_iter, info = self._decode(audio.samples, language)
            segments: list[Segment] = []
            work_started = time.monotonic()
            progress(Progress(STAGE, 0, round(total), f"{name}: 0:00 of {clock(total)}"))
            for piece in segments_iter:  # the model decodes one window per step
                if cancel.is_set():
                    raise Cancelled()
                segments.extend(_split(piece, total))
                done = min(float(piece.end), total)
                progress(_progress_event(name, done, total, time.monotonic() - work_started))
        finally:
            lock.release()
        progress(Progress(STAGE, round(total), round(total), f"{name}: done"))
        return SpeechResult(
            segments=_increasing(segments, total),
            language=str(getattr(info, "language", "") or language or ""),
            duration=total,
            producer=self.producer(),
            wall_seconds=time.monotonic() - started,
            warnings=list(audio.warnings),
        )

    def recognise(
        self,
        samples: npt.NDArray[np.float32],
        *,
        offset: float = 0.0,
        language: str | None = None,
        cancel: threading.Event,
    ) -> tuple[list[Segment], str]:
        """The caption lines of 16 kHz mono `samples` already in memory (a window of a live
        stream's audio), their times moved by `offset` seconds, and the language heard.

        Blocking, like `transcribe`, with the same model settings and the same one run at a
        time per model; raises `Cancelled` once `cancel` is set (checked between segments).
        """
        total = len(samples) / SAMPLE_RATE
        if self.model.english_only:
            language = "en"
        lock = self._lock()
        while not lock.acquire(timeout=0.5):  # one transcription at a time per model
            if cancel.is_set():
                raise Cancelled()
        try:
            if cancel.is_set():
                raise Cancelled()
            pieces, info = self._decode(samples, language)
            lines: list[Segment] = []
            for piece in pieces:
                if cancel.is_set():
                    raise Cancelled()
                lines.extend(_split(piece, total))
        finally:
            lock.release()
        heard = str(getattr(info, "language", "") or language or "")
        moved = [
            Segment(s.start + offset, s.end + offset, s.text) for s in _increasing(lines, total)
        ]
        return moved, heard


def _progress_event(name: str, done: float, total: float, wall: float) -> Progress:
    speed = done / wall if wall > 0 else 0.0
    left = (total - done) / speed if speed > 0 else None
    message = f"{name}: {clock(done)} of {clock(total)} audio transcribed"
    if speed > 0:
        message += f", {speed:.1f}x real time"
    if left is not None:
        message += f", about {clock(left)} left"
    return Progress(STAGE, round(done), round(total), message)


def _clean(text: str) -> str:
    return " ".join(text.split())


def _split(piece: Any, total: float) -> list[Segment]:
    """One recognised segment as caption lines: cut after each sentence (and every
    `_MAX_WORDS` words) at its words' own times, so a citation lands on the sentence."""
    words = list(getattr(piece, "words", None) or [])
    if not words:
        text = _clean(str(piece.text))
        return [Segment(float(piece.start), min(float(piece.end), total), text)] if text else []
    out: list[Segment] = []
    current: list[Any] = []
    for word in words:
        current.append(word)
        ends_sentence = str(word.word).rstrip().endswith((".", "?", "!"))
        if ends_sentence or len(current) >= _MAX_WORDS:
            out.append(_line(current, total))
            current = []
    if current:
        out.append(_line(current, total))
    return [s for s in out if s.text]


def _line(words: list[Any], total: float) -> Segment:
    start = float(words[0].start)
    end = min(max(float(words[-1].end), start), total)
    return Segment(min(start, end), end, _clean("".join(str(w.word) for w in words)))


def _increasing(segments: list[Segment], total: float) -> list[Segment]:
    """Segments in time order, never overlapping the previous one, inside [0, total]."""
    out: list[Segment] = []
    last_end = 0.0
    for seg in sorted(segments, key=lambda s: s.start):
        start = max(seg.start, last_end, 0.0)
        end = min(max(seg.end, start), total) if total > 0 else max(seg.end, start)
        if start > end:
            start = end
        out.append(Segment(round(start, 3), round(end, 3), seg.text))
        last_end = end
    return out


__all__ = ["SAMPLE_RATE", "FasterWhisperTranscriber"]
