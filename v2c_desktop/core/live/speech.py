"""Speech-to-text on a live stream's audio as it arrives, a window at a time, cut in silence.

Whisper reads a whole window at once, so the audio is gathered until there is enough to
hear well (`MIN_WINDOW_S`) and then cut in the middle of a pause that Silero VAD (the one
faster-whisper ships) finds, so no word is cut in two and no window is read twice: each
window's words are final when they are emitted. Speech without a pause for `MAX_WINDOW_S`
is cut there. Audio without any speech is dropped unread (Whisper invents words in long
silences, and it costs time). At the end of the watch what is left is read too.

The recogniser is the library's speech-to-text model (`stt.whisper`), run in a worker thread
with the same model settings and its one-run-at-a-time lock, so an import's transcription
and a live watch take turns. Times are seconds from the start of watching: the stream's time
of the first sample heard is the origin.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..domain.videos import Segment
from ..stoppable import await_stoppable
from ..stt.audio import SAMPLE_RATE
from ..stt.types import Cancelled, Producer
from .audio import GAP_S, AudioChunk

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

T = TypeVar("T")

#: Seconds of audio gathered before a window may be cut and read.
MIN_WINDOW_S = 8.0
#: A window is cut here even without a pause in the speech.
MAX_WINDOW_S = 20.0
#: The shortest pause (after VAD's padding) that a window may be cut in.
MIN_PAUSE_S = 0.3
#: Silence kept at the end when a window without speech is dropped.
KEEP_S = 1.0
#: New audio needed before VAD looks again for a place to cut.
_RECHECK_S = 1.0
#: How long a cancelled watch waits for a window being read before it goes on.
CANCEL_WAIT = 2.0


class Recogniser(Protocol):
    """What a live watch needs of a speech model (`stt.whisper.FasterWhisperTranscriber`)."""

    @property
    def model_name(self) -> str: ...

    def producer(self) -> Producer: ...

    def recognise(
        self,
        samples: npt.NDArray[np.float32],
        *,
        offset: float = 0.0,
        language: str | None = None,
        cancel: threading.Event,
    ) -> tuple[list[Segment], str]: ...


def warm_up(recogniser: Recogniser) -> None:
    """Load the speech model and VAD now (blocking), so the first window is not kept
    waiting by it: a second of silence, read once."""
    import numpy as np

    silence = np.zeros(SAMPLE_RATE, dtype=np.float32)
    speech_spans(silence)
    recogniser.recognise(silence, cancel=threading.Event())


@dataclass(frozen=True, slots=True)
class Cut:
    """Cut the buffer `at` seconds from its start; `speech`: whether that part is read."""

    at: float
    speech: bool


def plan_cut(spans: list[tuple[float, float]], length: float, *, final: bool) -> Cut | None:
    """Where to cut a buffer of `length` seconds whose speech VAD found at `spans` (seconds,
    in order): None to wait for more audio. `final`: the stream is over, read it all."""
    if length <= 0:
        return None
    if final:
        return Cut(length, bool(spans))
    if length < MIN_WINDOW_S:
        return None
    if not spans:
        return Cut(max(0.0, length - KEEP_S), False)
    pauses = [(a[1], b[0]) for a, b in itertools.pairwise(spans)]
    pauses.append((spans[-1][1], length))
    cuts = [(begin + end) / 2 for begin, end in pauses if end - begin >= MIN_PAUSE_S]
    if cuts:
        return Cut(max(cuts), True)
    if length >= MAX_WINDOW_S:
        return Cut(length, True)
    return None


def speech_spans(samples: npt.NDArray[np.float32]) -> list[tuple[float, float]]:
    """Where Silero VAD hears speech in 16 kHz `samples`, in seconds (blocking)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=250, speech_pad_ms=100)
    found: list[dict[str, Any]] = get_speech_timestamps(samples, options)
    return [(s["start"] / SAMPLE_RATE, s["end"] / SAMPLE_RATE) for s in found]


@dataclass
class LiveSpeech:
    """The windows of one watch; `add` each chunk, `finish` at the end; both return the new
    lines (seconds from the start of watching)."""

    recogniser: Recogniser
    language: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    origin: float | None = None  # the stream time of the first sample heard
    received: float = 0.0  # seconds of audio received
    transcribed: float = 0.0  # seconds of audio read by the model
    busy: float = 0.0  # wall seconds the model took for them
    heard_language: str = ""
    _parts: list[Any] = field(default_factory=list)
    _size: int = 0
    _start: float = 0.0  # the stream time of the buffer's first sample
    _checked: int = 0  # the buffer's size when VAD last found no place to cut

    @property
    def speed(self) -> float:
        """Seconds of audio read per second of recognition (the real-time factor's inverse)."""
        return self.transcribed / self.busy if self.busy > 0 else 0.0

    def _buffer_end(self) -> float:
        return self._start + self._size / SAMPLE_RATE

    async def add(self, chunk: AudioChunk) -> list[Segment]:
        if self.origin is None:
            self.origin = chunk.start
            self._start = chunk.start
        self.received += chunk.duration
        lines: list[Segment] = []
        if self._size and chunk.start - self._buffer_end() > GAP_S:
            lines += await self._drain(final=True)  # a gap: read what came before it
        if not self._size:
            self._start = chunk.start
        self._parts.append(chunk.samples)
        self._size += len(chunk.samples)
        lines += await self._drain(final=False)
        return lines

    async def finish(self) -> list[Segment]:
        return await self._drain(final=True)

    async def _drain(self, *, final: bool) -> list[Segment]:
        import numpy as np

        lines: list[Segment] = []
        while self._size:
            samples = np.concatenate(self._parts) if len(self._parts) > 1 else self._parts[0]
            self._parts = [samples]
            length = len(samples) / SAMPLE_RATE
            if not final and (
                length < MIN_WINDOW_S or self._size - self._checked < _RECHECK_S * SAMPLE_RATE
            ):
                return lines  # too short yet, or too little new since the last look
            spans = await self._in_worker(speech_spans, samples)
            cut = plan_cut(spans, length, final=final)
            if cut is None:
                self._checked = self._size
                return lines
            cut_at = min(len(samples), max(1, round(cut.at * SAMPLE_RATE)))
            window, rest = samples[:cut_at], samples[cut_at:]
            if cut.speech:
                lines += await self._read(window, self._start - (self.origin or 0.0))
            self._start += cut_at / SAMPLE_RATE
            self._parts, self._size = ([rest], len(rest)) if len(rest) else ([], 0)
            self._checked = 0
        return lines

    async def _read(self, window: npt.NDArray[np.float32], offset: float) -> list[Segment]:
        started = time.monotonic()
        lines, language = await self._in_worker(
            lambda: self.recogniser.recognise(
                window, offset=offset, language=self.language, cancel=self.cancel
            )
        )
        self.busy += time.monotonic() - started
        self.transcribed += len(window) / SAMPLE_RATE
        self.heard_language = self.heard_language or language
        return lines

    async def _in_worker(self, fn: Callable[..., T], *args: Any) -> T:
        work = asyncio.ensure_future(asyncio.to_thread(fn, *args))
        try:
            return await await_stoppable(work, self.cancel, CANCEL_WAIT)
        except Cancelled:
            raise asyncio.CancelledError() from None
