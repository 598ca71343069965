"""Test media made during the run: espeak-ng speech from known sentences, silence, a video
without sound, muxed into wav / m4a / mp4 / mp3 with PyAV (no system ffmpeg needed)."""

from __future__ import annotations

import re
import shutil
import subprocess
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

ESPEAK = shutil.which("espeak-ng")
T = TypeVar("T")

#: Known sentences: plain words Whisper tiny.en gets right from espeak-ng's voice.
SENTENCES = [
    "Good morning and welcome to the library of recorded talks.",
    "Today we will learn how a search engine finds the right passage.",
    "The weather in the mountains was cold and windy all week.",
    "Please remember to water the garden before the sun goes down.",
    "A quiet river runs past the old stone bridge near the village.",
]


def need_espeak() -> str:
    if ESPEAK is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng; .ci/run does)")
    return ESPEAK


def espeak_wav(text: str, path: Path) -> tuple[np.ndarray, int]:
    """`text` spoken by espeak-ng (en-us, 150 words a minute) as int16 mono samples."""
    subprocess.run(
        [need_espeak(), "-v", "en-us", "-s", "150", "-w", str(path), text],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return read_wav(path)


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as handle:
        assert handle.getsampwidth() == 2 and handle.getnchannels() == 1
        data = np.frombuffer(handle.readframes(handle.getnframes()), dtype=np.int16)
        return data.copy(), handle.getframerate()


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(samples.astype(np.int16).tobytes())
    return path


@dataclass
class SpeechTrack:
    samples: np.ndarray  # int16 mono
    rate: int
    spans: list[tuple[float, float]]  # where each sentence is spoken, in seconds
    sentences: list[str]

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate


def speech_track(folder: Path, sentences: list[str] = SENTENCES, gap: float = 1.2) -> SpeechTrack:
    """The sentences one after another with `gap` seconds of silence between (and before)."""
    parts: list[np.ndarray] = []
    spans: list[tuple[float, float]] = []
    rate = 0
    position = 0
    for i, sentence in enumerate(sentences):
        voice, rate = espeak_wav(sentence, folder / f"sentence-{i}.wav")
        silence = np.zeros(int(gap * rate), dtype=np.int16)
        parts.append(silence)
        position += len(silence)
        spans.append((position / rate, (position + len(voice)) / rate))
        parts.append(voice)
        position += len(voice)
    parts.append(np.zeros(int(gap * rate), dtype=np.int16))
    return SpeechTrack(np.concatenate(parts), rate, spans, list(sentences))


def mux(
    samples: np.ndarray, rate: int, path: Path, *, video: bool = False, audio: bool = True
) -> Path:
    """Encode int16 mono `samples` into `path` (the codec follows the extension), with a
    small moving picture when `video`; `audio=False` makes a file without any sound."""
    import av

    codec = {".m4a": "aac", ".mp4": "aac", ".mkv": "libopus", ".mp3": "libmp3lame"}.get(
        path.suffix, "pcm_s16le"
    )
    seconds = len(samples) / rate
    with av.open(str(path), "w") as container:
        vstream = None
        if video:
            vstream = container.add_stream("mpeg4", rate=5)
            vstream.width, vstream.height, vstream.pix_fmt = 64, 48, "yuv420p"
        astream = None
        if audio:
            out_rate = 48000 if codec == "libopus" else rate
            astream = container.add_stream(codec, rate=out_rate)
            astream.layout = "mono"
        if astream is not None:
            frame_size = astream.codec_context.frame_size or 1024
            resampler = av.AudioResampler(
                format=astream.codec_context.format.name, layout="mono", rate=astream.rate
            )
            for start in range(0, len(samples), frame_size):
                chunk = samples[start : start + frame_size].reshape(1, -1)
                frame = av.AudioFrame.from_ndarray(chunk, format="s16", layout="mono")
                frame.sample_rate = rate
                frame.pts = start
                frame.time_base = Fraction(1, rate)
                for resampled in resampler.resample(frame):
                    container.mux(astream.encode(resampled))
            for resampled in resampler.resample(None):
                container.mux(astream.encode(resampled))
            container.mux(astream.encode(None))
        if vstream is not None:
            for index in range(max(1, int(seconds * 5))):
                picture = np.full((48, 64, 3), (index * 7) % 255, dtype=np.uint8)
                frame = av.VideoFrame.from_ndarray(picture, format="rgb24")
                frame.pts = index
                container.mux(vstream.encode(frame))
            container.mux(vstream.encode(None))
    return path


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / reference words, by edit distance."""
    ref, hyp = words(reference), words(hypothesis)
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i]
        for j, h in enumerate(hyp, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h)))
        previous = current
    return previous[-1] / max(1, len(ref))


def content_words(sentence: str) -> set[str]:
    """A sentence's words of four letters or more: the ones that tell it apart."""
    return {w for w in words(sentence) if len(w) >= 4}


def heard(sentence: str, text: str) -> int:
    """How many of the sentence's content words `text` holds."""
    said = set(words(text))
    return len(content_words(sentence) & said)


def says(sentence: str, text: str) -> bool:
    """Whether `text` holds the sentence as Whisper heard it: most of its content words.

    Not one chosen word: tiny.en's int8 kernels differ between CPUs, and so do a few words it
    hears (measured: "The weather today is windy" came out as "But whenever today is windy"
    on this AVX-512 machine and as "But whether today is windy" under qemu's AVX2 CPU), so a
    test that looks for "weather" alone would pass or fail by the CPU it runs on.
    """
    return heard(sentence, text) * 2 > len(content_words(sentence))


def line_saying(sentence: str, lines: Sequence[T]) -> T:
    """The line (a segment, a live line: anything with `.text`) that holds the most of the
    sentence's content words, at least two (a sentence may be split over two lines)."""
    best = max(lines, key=lambda line: heard(sentence, line.text))  # type: ignore[attr-defined]
    assert heard(sentence, best.text) >= 2, (sentence, [line.text for line in lines])  # type: ignore[attr-defined]
    return best
