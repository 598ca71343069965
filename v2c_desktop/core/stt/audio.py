"""Audio out of any media file with PyAV (FFmpeg inside its wheels): 16 kHz mono float32.

Decoding runs in the caller's (worker) thread in chunks, checking `cancel` between them. What
can go wrong becomes a typed error: a file that is not media at all, a damaged or truncated
one, one without an audio track, a codec FFmpeg cannot decode. A file that stops decoding
part way keeps the audio read before the damage, with a warning saying where it stopped.
"""

from __future__ import annotations

import threading
import wave
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import V2CError
from .errors import corrupt_media, no_audio_stream, not_media, unsupported_codec
from .types import Cancelled

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

SAMPLE_RATE = 16000
#: Decoded audio is handed over (and `cancel` checked) about every this many seconds.
_CHUNK_SECONDS = 30.0
#: How much shorter than its header says a file may decode before it counts as truncated.
_TRUNCATION_SLACK = 2.0


@dataclass(slots=True)
class Audio:
    samples: npt.NDArray[np.float32]
    header_duration: float | None  # what the container says, when it says
    codec: str
    warnings: list[str] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return len(self.samples) / SAMPLE_RATE


def _looks_like_text(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if not head or b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _open(path: Path) -> Any:
    import av  # heavy: loaded on first use

    name = path.name
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise V2CError(
            "not-found", f"cannot read {name}: {exc.strerror}", "check the path"
        ) from exc
    if size == 0:
        raise not_media(name, "the file is empty")
    try:
        return av.open(str(path), mode="r", metadata_errors="ignore")
    except av.error.FileNotFoundError as exc:
        raise V2CError("not-found", f"there is no file {path}", "check the path") from exc
    except (av.error.InvalidDataError, av.error.DemuxerNotFoundError) as exc:
        if _looks_like_text(path):
            raise not_media(name, "it holds text") from None
        raise corrupt_media(name, _reason(exc)) from None
    except av.error.FFmpegError as exc:
        raise corrupt_media(name, _reason(exc)) from None


def _reason(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc)
    return str(text).split(":")[0].strip()[:120] or type(exc).__name__


def probe(path: Path) -> tuple[float | None, str]:
    """(duration from the header, audio codec) of the first audio track; typed errors for
    files that are not media, are damaged, or have no audio track."""
    with _open(path) as container:
        stream = _audio_stream(container, path.name)
        return _header_duration(container, stream), str(stream.codec_context.name)


def _audio_stream(container: Any, name: str) -> Any:
    streams = list(container.streams.audio)
    if not streams:
        raise no_audio_stream(name)
    stream = streams[0]
    if stream.codec_context is None:
        raise unsupported_codec(name, str(getattr(stream, "codec_tag", "") or "unknown"))
    return stream


def _header_duration(container: Any, stream: Any) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return float(container.duration) / 1_000_000
    return None


def _riff_duration(path: Path) -> float | None:
    """What a WAV file's own header says (FFmpeg trims it to the bytes that are there)."""
    if path.suffix.lower() != ".wav":
        return None
    try:
        with wave.open(str(path), "rb") as handle:
            rate = handle.getframerate()
            return handle.getnframes() / rate if rate else None
    except (OSError, EOFError, wave.Error):
        return None


def decode(
    path: Path,
    *,
    cancel: threading.Event,
    on_chunk: Callable[[float], None] | None = None,
) -> Audio:
    """All of the first audio track as 16 kHz mono float32; `on_chunk(seconds_decoded)`."""
    import av
    import numpy as np

    name = path.name
    chunks: list[npt.NDArray[Any]] = []
    decoded = 0  # samples at 16 kHz
    next_report = _CHUNK_SECONDS * SAMPLE_RATE
    warnings: list[str] = []
    with _open(path) as container:
        stream = _audio_stream(container, name)
        header = _header_duration(container, stream)
        codec = str(stream.codec_context.name)
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        try:
            for packet in container.demux(stream):
                if cancel.is_set():
                    raise Cancelled()
                try:
                    frames = packet.decode()
                except av.error.FFmpegError as exc:  # a damaged packet: skip it, like ffmpeg
                    if not warnings:
                        warnings.append(
                            f"{name}: damaged audio near {decoded / SAMPLE_RATE:.0f} s "
                            f"was skipped ({_reason(exc)})"
                        )
                    continue
                for frame in frames:
                    for out in resampler.resample(frame):
                        array = out.to_ndarray().reshape(-1)
                        chunks.append(array)
                        decoded += len(array)
                if decoded >= next_report:
                    next_report += _CHUNK_SECONDS * SAMPLE_RATE
                    if on_chunk is not None:
                        on_chunk(decoded / SAMPLE_RATE)
            for out in resampler.resample(None):  # flush
                array = out.to_ndarray().reshape(-1)
                chunks.append(array)
                decoded += len(array)
        except av.error.DecoderNotFoundError:
            raise unsupported_codec(name, codec) from None
        except av.error.FFmpegError as exc:  # the container itself broke off
            if decoded == 0:
                raise corrupt_media(name, _reason(exc)) from None
            warnings.append(
                f"{name}: decoding stopped at {decoded / SAMPLE_RATE:.0f} s "
                f"({_reason(exc)}); the rest was not transcribed"
            )
    if decoded == 0 and header is not None and header > 0.5:
        raise corrupt_media(name, "no audio could be decoded")
    samples = (
        np.concatenate(chunks).astype(np.float32) / 32768.0
        if chunks
        else np.zeros(0, dtype=np.float32)
    )
    seconds = len(samples) / SAMPLE_RATE
    header = max(header or 0.0, _riff_duration(path) or 0.0) or None
    if header is not None and header - seconds > max(_TRUNCATION_SLACK, 0.05 * header):
        warnings.append(
            f"{name} seems truncated: it holds {seconds:.0f} s of audio, its header says "
            f"{header:.0f} s"
        )
    return Audio(samples.astype(np.float32, copy=False), header, codec, warnings)
