"""A web video without any caption track (issue 19), without a network or a speech model: the
consent setting, the hint that names it on each face, the importer handing such a video to the
injected speech-to-text (and only then), and an agent's host check of the audio's formats.

The real download and transcription run in tests/integration/test_web_stt_real_ytdlp.py.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from v2c_desktop.core.domain.videos import Segment, Transcript
from v2c_desktop.core.errors import V2CError, render_hint
from v2c_desktop.core.importers.web.hosts import HostGuard
from v2c_desktop.core.importers.web.importer import fetch_web_video
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web.tracks import NO_CAPTIONS_HINT
from v2c_desktop.core.progress import Progress, ProgressCallback
from v2c_desktop.core.settings import load_settings, save_settings, settings_from_dict
from v2c_desktop.core.stt.web_audio import audio_options, check_audio_hosts

from .scripted import ScriptedInfoSource

URL = "https://video.example.org/talks/quiet"
INFO: dict[str, Any] = {
    "id": "quiet",
    "title": "A quiet talk",
    "extractor": "generic",
    "extractor_key": "Generic",
    "webpage_url": URL,
    "formats": [{"format_id": "mp3", "url": "https://media.example.org/quiet.mp3"}],
}


def test_the_consent_is_off_by_default_and_read_from_the_settings_file(tmp_path: Path) -> None:
    assert settings_from_dict({}).imports.transcribe_without_captions is False
    given = settings_from_dict({"imports": {"transcribe_without_captions": True}})
    assert given.imports.transcribe_without_captions is True
    path = save_settings(given, tmp_path / "settings.json")
    assert load_settings(path).imports.transcribe_without_captions is True
    path.write_text(json.dumps({"imports": {"transcribe_without_captions": "yes"}}))
    with pytest.raises(V2CError) as bad:
        load_settings(path)
    assert bad.value.code == "bad-request" and "true or false" in bad.value.message


def test_the_no_captions_hint_names_the_consent_the_way_each_face_gives_it() -> None:
    assert "not available yet" not in NO_CAPTIONS_HINT
    cli = render_hint(NO_CAPTIONS_HINT, "cli")
    assert "--transcribe-web" in cli and '"transcribe_without_captions": true' in cli
    for face in ("app", "agent", None):
        worded = render_hint(NO_CAPTIONS_HINT, face)
        assert "transcribe_without_captions" in worded and "--" not in worded, face
    assert "user" in render_hint(NO_CAPTIONS_HINT, "agent")
    assert "{" not in cli


class FakeSpeech:
    def __init__(self) -> None:
        self.calls: list[tuple[str, HostGuard | None]] = []

    async def __call__(
        self, info: dict[str, Any], *, progress: ProgressCallback, guard: HostGuard | None
    ) -> tuple[Transcript, float]:
        self.calls.append((str(info["id"]), guard))
        progress(Progress("transcribe", 1, 1, "heard it"))
        transcript = Transcript(
            origin="stt",
            language="en",
            segments=[Segment(0.5, 2.0, "hello there")],
            producer="faster-whisper 1.2.1, model tiny.en, int8",
            track_name="speech-to-text (tiny.en)",
        )
        return transcript, 42.0


def no_http() -> httpx.AsyncClient:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"no caption track to download, yet {request.url} was asked for")

    return httpx.AsyncClient(transport=httpx.MockTransport(refuse))


def fetch(info: dict[str, Any], speech: FakeSpeech | None, guard: HostGuard | None = None) -> Any:
    events: list[Progress] = []

    async def run() -> Any:
        async with no_http() as http:
            return await fetch_web_video(
                URL,
                info_source=ScriptedInfoSource({URL: info}),
                http=http,
                settings=WebSettings(),
                progress=events.append,
                guard=guard,
                speech=speech,
            )

    return asyncio.run(run()), events


def test_without_speech_a_captionless_video_is_no_transcript_with_the_hint() -> None:
    with pytest.raises(V2CError) as caught:
        fetch(INFO, None)
    assert caught.value.code == "no-transcript"
    assert caught.value.hint == NO_CAPTIONS_HINT


def test_with_speech_a_captionless_video_is_transcribed_and_keeps_its_metadata() -> None:
    speech = FakeSpeech()
    record, events = fetch(INFO, speech)
    assert speech.calls == [("quiet", None)]
    assert record.transcript.origin == "stt" and record.transcript.segments[0].text == "hello there"
    assert record.video.id == "generic:quiet" and record.video.url == URL
    assert record.video.duration == 42.0  # the audio's, as the site gave none
    assert not record.video.source_path
    assert [e.stage for e in events][-2:] == ["transcribe", "web-import"]


def test_a_video_with_captions_never_reaches_speech() -> None:
    speech = FakeSpeech()
    info = {**INFO, "subtitles": {"en": [{"ext": "vtt", "url": "https://media.example.org/q.vtt"}]}}

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n")

    async def run() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(serve)) as http:
            return await fetch_web_video(
                URL,
                info_source=ScriptedInfoSource({URL: info}),
                http=http,
                settings=WebSettings(),
                speech=speech,
            )

    record = asyncio.run(run())
    assert record.transcript.origin == "creator-captions" and speech.calls == []


def test_an_agents_guard_checks_each_host_the_audio_would_come_from() -> None:
    looked_up: list[str] = []
    addresses = {"cdn.example.org": "93.184.216.34", "intranet.example.org": "10.0.0.7"}

    async def resolve(host: str, port: int) -> list[Any]:
        looked_up.append(host)
        return [ipaddress.ip_address(addresses[host])]

    guard = HostGuard(resolve=resolve)
    public = {
        "formats": [
            {"url": "https://cdn.example.org/a.m4a"},
            {"url": "https://cdn.example.org/b.webm", "manifest_url": "https://cdn.example.org/m"},
            {"url": "rtmp://ignored.example.org/live"},
        ]
    }
    asyncio.run(check_audio_hosts(public, guard))
    assert looked_up == ["cdn.example.org"]  # once per host
    private = {"formats": [*public["formats"], {"url": "https://intranet.example.org/x.mp3"}]}
    with pytest.raises(V2CError) as refused:
        asyncio.run(check_audio_hosts(private, guard))
    assert refused.value.code == "bad-request"
    assert "refused the video's audio: intranet.example.org" in refused.value.message


def test_the_audio_download_honours_the_web_settings_and_the_cap(tmp_path: Path) -> None:
    settings = WebSettings(cookies_from_browser="firefox:work", proxy="socks5://p:1080", timeout=7)

    def hook(status: dict[str, Any]) -> None:
        pass

    options = audio_options(settings, tmp_path, max_bytes=1234, hook=hook, logger=None)
    assert options["format"] == "bestaudio/best"
    assert options["paths"] == {"home": str(tmp_path), "temp": str(tmp_path)}
    assert (options["max_filesize"], options["progress_hooks"]) == (1234, [hook])
    assert (options["proxy"], options["socket_timeout"]) == ("socks5://p:1080", 7)
    assert options["cookiesfrombrowser"] == ("firefox", "work", None, None)
    assert options["postprocessors"] == [] and not options["writesubtitles"]
    plain = audio_options(WebSettings(), tmp_path, max_bytes=1, hook=hook, logger=None)
    assert "proxy" not in plain and "cookiesfrombrowser" not in plain
