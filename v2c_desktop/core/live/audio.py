"""A live stream's audio as it arrives: segment bytes in, 16 kHz mono float32 chunks out.

The segments of one HLS rendition, laid end to end, are one continuous stream (MPEG-TS
packets, or an fMP4 initialisation section then its fragments), so one PyAV container reads
them through a pipe (`SegmentPipe`): the event loop writes each segment as it is fetched,
a worker thread decodes with one decoder and one resampler for the whole watch (no clicks or
lost samples at segment edges) and hands chunks back as they are decoded. Finishing the
pipe is how the reading stops: the decoder sees the end of the stream, flushes and returns,
so a cancel or the end of the watch never waits on the network inside FFmpeg.

Times are the stream's own (packet timestamps, in seconds); a jump (segments that went by
unread) starts a chunk at the new time, so the words after it keep their place.
"""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import V2CError
from ..stt.audio import SAMPLE_RATE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Decoded audio is handed over in chunks of about this many seconds.
CHUNK_S = 0.5
#: A jump in the stream's timestamps larger than this is a gap, not jitter.
GAP_S = 0.5


class SegmentPipe(io.RawIOBase):
    """Bytes the event loop writes (`put`), read by the decoder thread; `finish` ends them.

    Reads block until bytes or the end arrive; after `finish`, every read is the end (b"").
    """

    def __init__(self) -> None:
        super().__init__()
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._buffer = b""
        self._ended = False

    def readable(self) -> bool:
        return True

    def put(self, data: bytes) -> None:
        if data:
            self._queue.put(data)

    def finish(self) -> None:
        self._queue.put(None)

    def readinto(self, target: Any) -> int:
        while not self._buffer:
            if self._ended:
                return 0
            item = self._queue.get()
            if item is None:
                self._ended = True
                return 0
            self._buffer = item
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]
        return size


@dataclass(frozen=True, slots=True)
class AudioChunk:
    """`samples` (16 kHz mono float32) starting at `start` seconds on the stream's clock."""

    start: float
    samples: npt.NDArray[np.float32]

    @property
    def duration(self) -> float:
        return len(self.samples) / SAMPLE_RATE


def container_format(first: bytes) -> str | None:
    """The demuxer for segments starting with `first`: MPEG-TS by its sync byte, else probed."""
    return "mpegts" if first[:1] == b"\x47" else None


def _reason(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc)
    return str(text).split(":")[0].strip()[:120] or type(exc).__name__


class _Chunker:
    """Resampled samples gathered into `CHUNK_S` chunks, each with its start time."""

    def __init__(self, deliver: Callable[[AudioChunk], None]) -> None:
        self._deliver = deliver
        self._parts: list[Any] = []
        self._size = 0
        self._start = 0.0
        self.clock: float | None = None  # the stream time of the next sample out

    def add(self, samples: Any) -> None:
        if not len(samples):
            return
        if self._size == 0:
            self._start = self.clock or 0.0
        self._parts.append(samples)
        self._size += len(samples)
        self.clock = (self.clock or 0.0) + len(samples) / SAMPLE_RATE
        if self._size >= CHUNK_S * SAMPLE_RATE:
            self.flush()

    def flush(self) -> None:
        if self._size:
            import numpy as np

            joined = np.concatenate(self._parts).astype(np.float32, copy=False)
            self._deliver(AudioChunk(self._start, joined))
        self._parts, self._size = [], 0


def decode_stream(
    pipe: SegmentPipe,
    fmt: str | None,
    *,
    what: str,
    cancel: threading.Event,
    deliver: Callable[[AudioChunk], None],
) -> None:
    """Decode the first audio track of what `pipe` carries until its end (blocking: run it in
    a worker thread), calling `deliver` with each chunk; returns early once `cancel` is set.
    Raises `V2CError` when the stream is no media or has no sound."""
    import av

    try:
        container = av.open(pipe, mode="r", format=fmt, metadata_errors="ignore")
    except av.error.FFmpegError as exc:
        raise V2CError(
            "unsupported-input",
            f"{what} could not be read as audio ({_reason(exc)})",
            "Check that the address is a live audio or video stream.",
        ) from None
    chunker = _Chunker(deliver)
    with container:
        if not container.streams.audio:
            raise V2CError(
                "no-transcript",
                f"{what} has no sound, so there is no speech to transcribe",
                "Watch a stream with sound, or one that offers live captions.",
            )
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
        expected: float | None = None  # where the next decoded frame should start
        try:
            for packet in container.demux(stream):
                if cancel.is_set():
                    return
                try:
                    frames = packet.decode()
                except av.error.FFmpegError:  # a damaged packet: skip it, like ffmpeg
                    continue
                for frame in frames:
                    at = frame.time
                    if at is not None and (expected is None or abs(at - expected) > GAP_S):
                        chunker.flush()  # the first frame, or a gap: times restart here
                        chunker.clock = float(at)
                        if expected is not None:
                            resampler = av.AudioResampler(
                                format="flt", layout="mono", rate=SAMPLE_RATE
                            )
                    if at is not None:
                        expected = float(at) + frame.samples / frame.sample_rate
                    for out in resampler.resample(frame):
                        chunker.add(out.to_ndarray().reshape(-1))
            for out in resampler.resample(None):
                chunker.add(out.to_ndarray().reshape(-1))
        except av.error.FFmpegError:
            pass  # the stream broke off: what was decoded stands, the caller sees the end
        chunker.flush()
