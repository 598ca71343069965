"""fetch_web_video end to end: the real info.json, a scripted source, a replaying transport."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import httpx
import pytest
import srt

from tests.conftest import corpus_path
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.importer import fetch_web_video
from v2c_desktop.core.importers.web.info_source import YtDlpInfoSource
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web.tracks import choose_track
from v2c_desktop.core.progress import Progress

from . import local_site
from .scripted import CRASHCOURSE_SRT, ScriptedInfoSource, crashcourse_info

URL = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"


def json3_from_srt(text: str) -> str:
    """The creator SRT's cues as a YouTube json3 body (what the json3 URL would serve)."""
    events: list[dict[str, Any]] = [{"tStartMs": 0, "dDurationMs": 623000, "id": 1}]
    for cue in srt.parse(text):
        start = int(cue.start.total_seconds() * 1000)
        end = int(cue.end.total_seconds() * 1000)
        events.append(
            {"tStartMs": start, "dDurationMs": end - start, "segs": [{"utf8": cue.content}]}
        )
    return json.dumps({"wireMagic": "pb3", "events": events})


def serving(expected_url: str, body: str) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == expected_url, f"asked for {request.url}"
        return httpx.Response(200, text=body, headers={"content-type": "application/json"})

    return httpx.MockTransport(handler)


def run_import(
    info: dict[str, Any], transport: httpx.MockTransport, settings: WebSettings | None = None
) -> tuple[VideoRecord, list[Progress], ScriptedInfoSource]:
    source = ScriptedInfoSource({URL: info})
    reports: list[Progress] = []

    async def run() -> VideoRecord:
        async with httpx.AsyncClient(transport=transport) as http:
            return await fetch_web_video(
                URL,
                info_source=source,
                http=http,
                settings=settings or WebSettings(),
                progress=reports.append,
            )

    return asyncio.run(run()), reports, source


@pytest.mark.corpus
def test_fetch_web_video_end_to_end() -> None:
    info = crashcourse_info()
    chosen = choose_track(info)
    assert chosen.format == "json3"
    body = json3_from_srt(corpus_path(CRASHCOURSE_SRT).read_text(encoding="utf-8"))

    record, reports, source = run_import(info, serving(chosen.url, body))

    assert source.calls == [(URL, False)]
    assert record.video.id == "youtube:fxZWtc0mYpQ"
    assert record.video.title == "Homunculus: Crash Course Psychology #6"
    assert record.video.duration == 623
    assert record.video.published == "2014-03-10"
    assert len(record.chapters) == 11
    assert record.chapters[-1].end == 623
    transcript = record.transcript
    assert transcript.origin == "creator-captions"
    assert transcript.language == "en"
    assert transcript.producer == "youtube"
    assert transcript.track_name == "English"
    assert transcript.translated_from is None
    assert transcript.segments[0].text == "Homunculus!"
    assert transcript.segments[0].start == 0
    assert len(transcript.segments) > 150
    assert [r.done for r in reports] == [0, 1, 2, 3]
    assert all(r.total == 3 for r in reports)


@pytest.mark.corpus
def test_preferred_language_imports_a_machine_translation() -> None:
    info = crashcourse_info()
    settings = replace(WebSettings(), languages=("de",))
    chosen = choose_track(info, settings.languages)
    body = json.dumps(
        {"events": [{"tStartMs": 0, "dDurationMs": 1500, "segs": [{"utf8": "Homunkulus!"}]}]}
    )
    record, _, _ = run_import(info, serving(chosen.url, body), settings)
    assert "tlang=de" in chosen.url
    assert record.transcript.origin == "auto-captions"
    assert record.transcript.language == "de"
    assert record.transcript.translated_from == "en"
    assert record.transcript.segments[0].text == "Homunkulus!"


@pytest.mark.corpus
def test_captions_replaced_by_a_refusal_page_stop_the_import() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, text="<html><body>captcha</body></html>")

    with pytest.raises(V2CError) as caught:
        run_import(crashcourse_info(), httpx.MockTransport(refuse))
    assert caught.value.code == "rate-limited"


def test_a_playlist_is_not_one_video() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing to download")

    with pytest.raises(V2CError) as caught:
        run_import({"_type": "playlist", "entries": []}, httpx.MockTransport(refuse))
    assert caught.value.code == "bad-request"


def test_a_video_without_captions_downloads_nothing() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing to download")

    info = {"id": "x", "title": "Quiet", "extractor_key": "Youtube", "extractor": "youtube"}
    with pytest.raises(V2CError) as caught:
        run_import(info, httpx.MockTransport(refuse))
    assert caught.value.code == "no-transcript"


def test_real_ytdlp_and_httpx_against_a_local_page() -> None:
    """No scripting at all: yt-dlp reads an HTML5 page, httpx downloads its WebVTT track."""

    async def run(base: str) -> VideoRecord:
        settings = WebSettings(timeout=10)
        async with httpx.AsyncClient(trust_env=False) as http:
            return await fetch_web_video(
                f"{base}/talk.html",
                info_source=YtDlpInfoSource(settings),
                http=http,
                settings=settings,
            )

    with local_site.serving() as base:
        record = asyncio.run(run(base))
    assert record.video.platform == "html5mediaembed"
    assert record.video.url == f"{base}/talk.html"
    assert record.transcript.origin == "creator-captions"
    assert record.transcript.language == "en"
    assert record.transcript.producer == "html5"
    assert [s.text for s in record.transcript.segments] == [
        "Hello from a page on this machine.",
        "The second caption.",
    ]
