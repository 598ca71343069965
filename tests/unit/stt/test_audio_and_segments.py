"""Decoding (typed errors for bad input, cancel between chunks) and the shaping of
recognised segments into caption lines; no speech model needed."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.stt import Cancelled, Producer
from v2c_desktop.core.stt.audio import SAMPLE_RATE, decode, probe
from v2c_desktop.core.stt.whisper import _increasing, _progress_event, _split

from .speech_media import mux, write_wav


def tone(seconds: float, rate: int = 22050) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)


def kind_of(path: Path) -> tuple[str, str]:
    with pytest.raises(V2CError) as caught:
        decode(path, cancel=threading.Event())
    assert caught.value.hint
    return caught.value.code, caught.value.details["kind"]


@pytest.mark.parametrize("suffix", [".wav", ".m4a", ".mp3", ".mkv"])
def test_audio_is_decoded_to_16k_mono_from_each_container(tmp_path: Path, suffix: str) -> None:
    path = mux(tone(3.0), 22050, tmp_path / f"tone{suffix}")
    audio = decode(path, cancel=threading.Event())
    assert audio.samples.dtype == np.float32
    assert abs(audio.duration - 3.0) < 0.1
    assert 0.1 < float(np.abs(audio.samples).max()) <= 1.0
    assert not audio.warnings
    header, codec = probe(path)
    assert codec and (header is None or abs(header - 3.0) < 0.2)


def test_a_text_file_with_a_media_name_is_not_media(tmp_path: Path) -> None:
    path = tmp_path / "notes.mp4"
    path.write_text("these are my notes, not a video\n", encoding="utf-8")
    assert kind_of(path) == ("unsupported-input", "not-media")
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    assert kind_of(empty) == ("unsupported-input", "not-media")


def test_garbage_and_a_truncated_mp4_are_corrupt(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(bytes(range(256)) * 64)
    assert kind_of(garbage) == ("no-transcript", "corrupt-media")
    whole = mux(tone(4.0), 22050, tmp_path / "whole.mp4", video=True)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])  # index at the end: lost
    assert kind_of(cut) == ("no-transcript", "corrupt-media")


def test_a_truncated_wav_keeps_its_audio_with_a_warning(tmp_path: Path) -> None:
    whole = write_wav(tmp_path / "whole.wav", tone(10.0), 22050)
    cut = tmp_path / "cut.wav"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    audio = decode(cut, cancel=threading.Event())
    assert 4.0 < audio.duration < 6.0
    assert any("truncated" in w for w in audio.warnings)


def test_a_video_without_sound_has_no_audio_stream(tmp_path: Path) -> None:
    path = mux(tone(2.0), 22050, tmp_path / "silent-film.mp4", video=True, audio=False)
    assert kind_of(path) == ("no-transcript", "no-audio-stream")


def test_decoding_stops_when_cancelled(tmp_path: Path) -> None:
    path = write_wav(tmp_path / "long.wav", tone(120.0, 16000), 16000)
    cancel = threading.Event()
    seen: list[float] = []

    def on_chunk(seconds: float) -> None:
        seen.append(seconds)
        cancel.set()

    with pytest.raises(Cancelled):
        decode(path, cancel=cancel, on_chunk=on_chunk)
    assert seen and seen[0] < 60


def word(text: str, start: float, end: float) -> SimpleNamespace:
    return SimpleNamespace(word=text, start=start, end=end)


def test_a_segment_is_cut_into_sentences_at_its_words_times() -> None:
    piece = SimpleNamespace(
        start=0.0,
        end=6.0,
        text=" Hello there. How are you?",
        words=[
            word(" Hello", 0.5, 0.9),
            word(" there.", 0.9, 1.4),
            word(" How", 3.0, 3.3),
            word(" are", 3.3, 3.5),
            word(" you?", 3.5, 4.0),
        ],
    )
    lines = _split(piece, total=10.0)
    assert [(s.start, s.end, s.text) for s in lines] == [
        (0.5, 1.4, "Hello there."),
        (3.0, 4.0, "How are you?"),
    ]
    no_words = SimpleNamespace(start=1.0, end=12.0, text="  tail  ", words=None)
    assert [(s.start, s.end, s.text) for s in _split(no_words, total=10.0)] == [(1.0, 10.0, "tail")]


def test_segments_come_out_increasing_and_inside_the_audio() -> None:
    from v2c_desktop.core.domain.videos import Segment

    messy = [Segment(5.0, 7.0, "b"), Segment(0.0, 5.5, "a"), Segment(6.5, 12.0, "c")]
    out = _increasing(messy, total=10.0)
    assert [s.text for s in out] == ["a", "b", "c"]
    for before, after in itertools.pairwise(out):
        assert before.end <= after.start
    assert all(0 <= s.start <= s.end <= 10.0 for s in out)


def test_progress_says_audio_done_speed_and_time_left() -> None:
    event = _progress_event("talk.mp4", 60.0, 600.0, 6.0)
    assert (event.stage, event.done, event.total) == ("transcribe", 60, 600)
    assert "1:00 of 10:00 audio" in event.message
    assert "10.0x real time" in event.message and "about 0:54 left" in event.message


def test_the_producer_names_engine_model_versions_and_compute_type() -> None:
    text = Producer("faster-whisper", "1.2.1", "tiny.en", "int8", "ctranslate2 4.8.5").describe()
    assert text == "faster-whisper 1.2.1, model tiny.en, int8, ctranslate2 4.8.5"
    assert SAMPLE_RATE == 16000
