"""`CoreAPI.caption_tracks` and `CoreAPI.choose_caption_track` over a real library, with
YouTube replayed: recorded player responses read as yt-dlp reads them, and an httpx
transport serving the caption tracks (tests/support/youtube_replay.py).

A chosen track goes through the library's one save path: the outcome says what it
replaced, the change feed publishes the update, search finds the new words, and the
transcript records its track. A transcript of the user's own is replaced only with their
confirmation; an unknown language is a clear error that changes nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.conftest import corpus_path
from tests.support.youtube_replay import (
    PLAYERS,
    CaptionSite,
    ReplayInfoSource,
    caption_lines,
    replay_web,
    watch_url,
)
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.captions import CaptionChoice
from v2c_desktop.core.domain.changes import Change
from v2c_desktop.core.domain.imports import REPLACE_LOCAL
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.search.request import SearchRequest
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import AgentSettings, Settings

pytestmark = pytest.mark.corpus

T = TypeVar("T")
SURFACE = "GJLlxj_dtq8"
SURFACE_ID = f"youtube:{SURFACE}"
URL = watch_url(SURFACE)


class Replayed:
    def __init__(self, api: CoreAPI, source: ReplayInfoSource, site: CaptionSite) -> None:
        self.api, self.source, self.site = api, source, site


@asynccontextmanager
async def replayed(library: Path) -> AsyncIterator[Replayed]:
    web, source, site = replay_web(corpus_path(PLAYERS))
    services = await asyncio.to_thread(
        Services.open, library, settings=Settings(), web=web, index_on_import=False
    )
    api = CoreAPI(services)
    try:
        yield Replayed(api, source, site)
    finally:
        await api.aclose()


def run(library: Path, work: Callable[[Replayed], Awaitable[T]]) -> T:
    async def go() -> T:
        async with replayed(library) as env:
            return await work(env)

    return asyncio.run(go())


def texts(record: Any) -> list[str]:
    return [s.text for s in record.transcript.segments]


def test_listing_reads_the_tracks_and_imports_nothing(tmp_path: Path) -> None:
    async def work(env: Replayed) -> Any:
        listing = await env.api.caption_tracks(URL)
        return listing, await env.api.list_videos()

    listing, videos = run(tmp_path / "lib.duckdb", work)
    assert videos == []
    assert (listing.video_id, listing.url, listing.in_library) == (SURFACE_ID, URL, False)
    assert listing.title == "Surface Go Review - It’s Awesome"
    assert listing.current is None and listing.current_words == ""
    assert len(listing.tracks) == 9 and len(listing.translations) == 18
    assert [t.key for t in listing.tracks if t.kind == "auto"] == ["auto:en"]


def test_choosing_tracks_replaces_the_transcript_through_the_import_path(tmp_path: Path) -> None:
    async def work(env: Replayed) -> dict[str, Any]:
        api, got = env.api, {}
        added = await api.choose_caption_track(URL, CaptionChoice("de", "creator"))
        got["added"] = added
        got["first"] = await api.get_video(SURFACE_ID)
        got["listed"] = await api.caption_tracks(SURFACE_ID)  # by its library id
        got["before"] = await api.search(SearchRequest("fr", mode="keyword"))
        seen: list[Change] = []

        async def listen() -> None:
            async for change in api.changes():
                seen.append(change)

        listener = asyncio.create_task(listen())
        async with asyncio.timeout(10):
            while api._s.store.changes.listeners < 1:
                await asyncio.sleep(0)
        got["updated"] = await api.choose_caption_track(
            SURFACE_ID, CaptionChoice("en", "auto", "fr")
        )
        async with asyncio.timeout(10):
            while not any(c.subject == "video" for c in seen):
                await asyncio.sleep(0.01)
        listener.cancel()
        got["changes"] = seen
        got["second"] = await api.get_video(SURFACE_ID)
        got["after"] = await api.search(SearchRequest("fr", mode="keyword"))
        got["relisted"] = await api.caption_tracks(URL)
        return got

    got = run(tmp_path / "lib.duckdb", work)
    added = got["added"]
    assert (added.status, added.video_id) == ("added", SURFACE_ID)
    assert added.reason == "imported with the creator captions (de)"
    first = got["first"]
    assert texts(first) == caption_lines("creator de")
    transcript = first.transcript
    assert (transcript.origin, transcript.language, transcript.track) == (
        "creator-captions",
        "de",
        "creator:de",
    )
    assert (transcript.track_name, transcript.track_count, transcript.producer) == (
        "German",
        9,
        "youtube",
    )
    listed = got["listed"]
    assert listed.in_library and listed.current == CaptionChoice("de", "creator")
    assert listed.current_words == "creator captions (de)" and not listed.users_own
    assert got["before"].hits == []

    updated = got["updated"]
    assert updated.status == "updated"
    assert updated.reason == (
        "replaced its transcript (creator captions (de)) with the auto captions (en), "
        "translated into fr"
    )
    assert Change("video", "updated", (SURFACE_ID,)) in got["changes"]
    second = got["second"].transcript
    assert texts(got["second"]) == caption_lines("auto en>fr")
    assert (second.origin, second.language, second.translated_from, second.track) == (
        "auto-captions",
        "fr",
        "en",
        "auto:en>fr",
    )
    assert [h.video_id for h in got["after"].hits] == [SURFACE_ID]  # the index followed
    assert got["relisted"].current == CaptionChoice("en", "auto", "fr")


def test_a_creator_track_translated_and_an_unknown_language(tmp_path: Path) -> None:
    async def work(env: Replayed) -> dict[str, Any]:
        api, got = env.api, {}
        await api.choose_caption_track(URL, CaptionChoice("en", "creator", "ja"))
        got["ja"] = await api.get_video(SURFACE_ID)
        downloads = len(env.site.requests)
        for name, choice in {
            "unknown": CaptionChoice("xx", "creator"),
            "no_auto": CaptionChoice("de", "auto"),
            "no_target": CaptionChoice("en", "creator", "tlh"),
        }.items():
            with pytest.raises(V2CError) as caught:
                await api.choose_caption_track(URL, choice)
            got[name] = caught.value
        got["downloads_after_errors"] = len(env.site.requests) - downloads
        got["still"] = await api.get_video(SURFACE_ID)
        with pytest.raises(V2CError) as gone:
            await api.caption_tracks(watch_url("aaaaaaaaaaa"))
        got["gone"] = gone.value
        with pytest.raises(V2CError) as nothing:
            await api.caption_tracks("no such video")
        got["nothing"] = nothing.value
        return got

    got = run(tmp_path / "lib.duckdb", work)
    ja = got["ja"].transcript
    assert texts(got["ja"]) == caption_lines("creator en>ja")
    assert (ja.origin, ja.language, ja.translated_from, ja.track, ja.track_name) == (
        "auto-captions",
        "ja",
        "en",
        "creator:en>ja",
        "Japanese from English",
    )
    unknown = got["unknown"]
    assert unknown.code == "not-found"
    assert (
        unknown.message == "Surface Go Review - It’s Awesome has no creator caption track in 'xx'"
    )
    assert "creator zh, cs, en, de, hi, ja, ko, es; auto en" in unknown.hint
    assert "no auto caption track in 'de'" in got["no_auto"].message
    assert "into 'tlh'" in got["no_target"].message
    assert got["downloads_after_errors"] == 0
    assert got["still"].transcript == got["ja"].transcript  # nothing changed
    assert got["gone"].code == "not-found" and "unavailable" in got["gone"].message.lower()
    assert got["nothing"].code == "not-found"


def _archive(folder: Path) -> Path:
    """A yt-dlp archive of the video: its info.json and the user's own subtitle file."""
    folder.mkdir()
    info = {
        "id": SURFACE,
        "title": "Surface Go Review",
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "webpage_url": URL,
    }
    (folder / "surface.info.json").write_text(json.dumps(info), encoding="utf-8")
    (folder / "surface.en.srt").write_text(
        "1\n00:00:01,000 --> 00:00:03,000\nWords the user corrected by hand.\n",
        encoding="utf-8",
    )
    return folder


def test_a_transcript_of_the_users_own_is_replaced_only_when_they_confirm(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "archive")

    async def work(env: Replayed) -> dict[str, Any]:
        api, got = env.api, {}
        imported = await api.add([str(archive)])
        assert imported.count("added") == 1, imported.to_dict()
        got["listed"] = await api.caption_tracks(SURFACE_ID)
        got["kept"] = await api.choose_caption_track(SURFACE_ID, CaptionChoice("en", "creator"))
        got["downloads"] = list(env.site.requests)
        got["own"] = await api.get_video(SURFACE_ID)
        got["replaced"] = await api.choose_caption_track(
            SURFACE_ID, CaptionChoice("en", "creator"), replace_local=True
        )
        got["now"] = await api.get_video(SURFACE_ID)
        return got

    got = run(tmp_path / "lib.duckdb", work)
    listed = got["listed"]
    assert listed.users_own and listed.current is None
    assert listed.current_words == "subtitle-file (en), from yt-dlp archive (Youtube)"
    kept = got["kept"]
    assert (kept.status, kept.confirm) == ("skipped", REPLACE_LOCAL)
    assert "transcript of the user's own" in kept.reason
    assert got["downloads"] == []  # nothing was downloaded for a choice that was refused
    assert texts(got["own"]) == ["Words the user corrected by hand."]
    replaced = got["replaced"]
    assert replaced.status == "updated" and replaced.reason.startswith("replaced its transcript")
    assert texts(got["now"]) == caption_lines("creator en")
    assert got["now"].transcript.track == "creator:en"


def test_a_local_file_has_no_tracks_and_an_agent_stays_on_public_hosts(tmp_path: Path) -> None:
    subtitles = tmp_path / "talk.en.srt"
    subtitles.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")

    async def work(env: Replayed) -> dict[str, Any]:
        api, got = env.api, {}
        local = (await api.add([str(subtitles)])).outcomes[0].video_id
        assert local
        with pytest.raises(V2CError) as no_site:
            await api.caption_tracks(local)
        got["no_site"] = no_site.value
        with pytest.raises(V2CError) as private:
            await api.caption_tracks("http://127.0.0.1:9/watch?v=x", agent=AgentSettings())
        got["private"] = private.value
        got["asked"] = list(env.source.calls)
        return got

    got = run(tmp_path / "lib.duckdb", work)
    assert got["no_site"].code == "bad-request"
    assert "imported from a file on this computer" in got["no_site"].message
    assert got["private"].code == "bad-request"
    assert got["asked"] == []  # refused before yt-dlp read anything


def test_the_choice_crosses_the_owner_socket() -> None:
    from v2c_desktop.core.domain.captions import CaptionTracks
    from v2c_desktop.core.wire_codec import decode, encode

    choice = CaptionChoice("en", "auto", "de")
    assert decode(json.loads(json.dumps(encode(choice)))) == choice
    listing = CaptionTracks("youtube:x", "T", URL, current=choice, users_own=True)
    assert decode(json.loads(json.dumps(encode(listing)))) == listing
