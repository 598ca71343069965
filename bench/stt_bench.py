"""Speech-to-text speed: Whisper tiny.en (faster-whisper, CTranslate2 int8, 2 CPU threads).

Makes about a minute of speech with espeak-ng from known sentences (or takes `--audio FILE`),
then transcribes it `--rounds` times with each model and prints: model load time, the
real-time factor (audio seconds per wall second, best and median of the rounds; the load
average beside it, since the machine may be shared), audio seconds per CPU second (what
the work costs whatever else runs), the word error rate against the script, and peak RSS
(resource.getrusage). Models: `tiny.en` always, plus any `--model ID|FOLDER` given (e.g. a
`base` model folder in CTranslate2 format, when there is one).
Run: .venv/bin/python bench/stt_bench.py [--rounds 3] [--threads 2] [--model base]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.unit.stt.speech_media import (  # noqa: E402
    SENTENCES,
    speech_track,
    word_error_rate,
    write_wav,
)
from v2c_desktop.core.stt.models import resolve_model  # noqa: E402
from v2c_desktop.core.stt.whisper import FasterWhisperTranscriber  # noqa: E402


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def bench(model_id: str, audio: Path, script: str | None, rounds: int, threads: int) -> None:
    model = resolve_model(model_id)
    transcriber = FasterWhisperTranscriber(model, cpu_threads=threads)
    started = time.monotonic()
    transcriber._loaded()  # load once, outside the timed rounds
    load = time.monotonic() - started
    speeds: list[float] = []
    per_cpu: list[float] = []
    wer = None
    for _ in range(rounds):
        cpu = cpu_seconds()
        result = transcriber.transcribe(audio, progress=lambda _: None, cancel=threading.Event())
        spent = cpu_seconds() - cpu
        speeds.append(result.speed)
        per_cpu.append(result.duration / spent if spent > 0 else 0.0)
        if script is not None:
            wer = word_error_rate(script, " ".join(s.text for s in result.segments))
    print(f"model {model.name} ({model.path})")
    print(f"  load {load:.2f} s; {result.duration:.1f} s of audio, {len(result.segments)} lines")
    print(
        f"  real-time factor: best {max(speeds):.1f}x, median {statistics.median(speeds):.1f}x "
        f"(audio s per wall s, {threads} threads; load average {os.getloadavg()[0]:.2f})"
    )
    print(f"  audio s per CPU s: {max(per_cpu):.2f}")
    if wer is not None:
        print(f"  word error rate against the script: {wer:.3f}")
    print(f"  peak RSS so far: {peak_rss_mb():.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audio", type=Path, help="a media file (default: espeak-ng speech)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--model", action="append", default=[], help="another model id/folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = None
        audio = args.audio
        if audio is None:
            sentences = SENTENCES * 2 + SENTENCES[::-1]  # about 80 s
            track = speech_track(Path(tmp), sentences, gap=0.8)
            audio = write_wav(Path(tmp) / "speech.wav", track.samples, track.rate)
            script = " ".join(sentences)
            silence = np.count_nonzero(track.samples == 0) / len(track.samples)
            print(f"espeak-ng speech: {track.duration:.1f} s ({silence:.0%} silent samples)")
        print(f"cpu count {os.cpu_count()}; before: peak RSS {peak_rss_mb():.0f} MB")
        for model_id in ["tiny.en", *args.model]:
            bench(model_id, audio, script, args.rounds, args.threads)


if __name__ == "__main__":
    main()
