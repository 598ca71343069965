"""Expanding playlists, channels and URL files into video URLs (flat extraction, scripted)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.importer import expand_web_input, read_url_list

from .scripted import ScriptedInfoSource, ytdlp_error

PLAYLIST_URL = "https://www.youtube.com/playlist?list=PL8dPuuaLjXtOPRKzVLY0jJY-uHOH9KVU6"
CHANNEL_URL = "https://www.youtube.com/@crashcourse"


def flat_video(video_id: str, title: str, duration: float) -> dict[str, Any]:
    """One entry of a flat YouTube playlist, in the shape yt-dlp returns it."""
    return {
        "_type": "url",
        "ie_key": "Youtube",
        "id": video_id,
        "url": f"https://www.youtube.com/watch?v={video_id}",
        "title": title,
        "description": None,
        "duration": duration,
        "channel_id": "UCX6b17PVsYBQ0ip5gyeme-Q",
        "channel": "CrashCourse",
        "channel_url": "https://www.youtube.com/channel/UCX6b17PVsYBQ0ip5gyeme-Q",
        "uploader": "CrashCourse",
        "thumbnails": [],
        "view_count": 1000,
        "live_status": None,
        "__x_forwarded_for_ip": None,
    }


FLAT_PLAYLIST: dict[str, Any] = {
    "_type": "playlist",
    "id": "PL8dPuuaLjXtOPRKzVLY0jJY-uHOH9KVU6",
    "title": "Psychology",
    "availability": "public",
    "channel": "CrashCourse",
    "channel_id": "UCX6b17PVsYBQ0ip5gyeme-Q",
    "webpage_url": PLAYLIST_URL,
    "original_url": PLAYLIST_URL,
    "extractor": "youtube:tab",
    "extractor_key": "YoutubeTab",
    "playlist_count": 3,
    "entries": [
        flat_video("vo4pMVb0R6M", "Intro to Psychology: Crash Course Psychology #1", 654),
        flat_video("unWnZvXJH2o", "Sensation and Perception: Crash Course Psychology #5", 645),
        flat_video("fxZWtc0mYpQ", "Homunculus: Crash Course Psychology #6", 623),
    ],
}


def tab(name: str) -> dict[str, Any]:
    return {
        "_type": "url",
        "ie_key": "YoutubeTab",
        "url": f"{CHANNEL_URL}/{name}",
        "title": f"CrashCourse - {name.title()}",
        "__x_forwarded_for_ip": None,
    }


def tab_playlist(name: str, *videos: dict[str, Any]) -> dict[str, Any]:
    return {
        "_type": "playlist",
        "id": "UCX6b17PVsYBQ0ip5gyeme-Q",
        "title": f"CrashCourse - {name.title()}",
        "webpage_url": f"{CHANNEL_URL}/{name}",
        "extractor_key": "YoutubeTab",
        "entries": list(videos),
    }


def expand(source: ScriptedInfoSource, url: str) -> list[str]:
    return asyncio.run(expand_web_input(url, info_source=source))


def test_playlist_gives_its_video_urls_in_order() -> None:
    source = ScriptedInfoSource({PLAYLIST_URL: FLAT_PLAYLIST})
    assert expand(source, PLAYLIST_URL) == [
        "https://www.youtube.com/watch?v=vo4pMVb0R6M",
        "https://www.youtube.com/watch?v=unWnZvXJH2o",
        "https://www.youtube.com/watch?v=fxZWtc0mYpQ",
    ]
    assert source.calls == [(PLAYLIST_URL, True)]


def test_channel_tabs_are_flattened() -> None:
    one = flat_video("vo4pMVb0R6M", "one", 1)
    two = flat_video("n46umYA_4dM", "two", 2)
    short = flat_video("shortAAAAAA", "short", 3)
    source = ScriptedInfoSource(
        {
            CHANNEL_URL: tab_playlist("home", tab("videos"), tab("shorts")),
            f"{CHANNEL_URL}/videos": tab_playlist("videos", one, two),
            f"{CHANNEL_URL}/shorts": tab_playlist("shorts", short, one),
        }
    )
    assert expand(source, CHANNEL_URL) == [
        "https://www.youtube.com/watch?v=vo4pMVb0R6M",
        "https://www.youtube.com/watch?v=n46umYA_4dM",
        "https://www.youtube.com/watch?v=shortAAAAAA",
    ]
    assert all(flat for _, flat in source.calls)
    assert len(source.calls) == 3


def test_inline_nested_playlists_and_loops() -> None:
    inner = {"_type": "playlist", "entries": [flat_video("aaaaaaaaaaa", "a", 1)]}
    looping = tab("videos") | {"url": CHANNEL_URL}
    source = ScriptedInfoSource({CHANNEL_URL: {"_type": "playlist", "entries": [inner, looping]}})
    assert expand(source, CHANNEL_URL) == ["https://www.youtube.com/watch?v=aaaaaaaaaaa"]
    assert len(source.calls) == 1


def test_entries_with_bare_ids_become_watch_urls() -> None:
    entry = {"_type": "url", "ie_key": "Youtube", "id": "bbbbbbbbbbb", "url": "bbbbbbbbbbb"}
    source = ScriptedInfoSource({PLAYLIST_URL: {"_type": "playlist", "entries": [entry]}})
    assert expand(source, PLAYLIST_URL) == ["https://www.youtube.com/watch?v=bbbbbbbbbbb"]


def test_a_youtube_video_gives_itself_without_asking() -> None:
    source = ScriptedInfoSource({})
    url = "https://youtu.be/fxZWtc0mYpQ"
    assert expand(source, f"  {url} ") == [url]
    assert source.calls == []


def test_a_video_on_another_site_gives_itself() -> None:
    url = "https://vimeo.com/76979871"
    source = ScriptedInfoSource({url: {"id": "76979871", "extractor_key": "Vimeo"}})
    assert expand(source, url) == [url]
    assert source.calls == [(url, True)]


def test_watch_url_with_a_list_is_a_playlist() -> None:
    url = f"https://www.youtube.com/watch?v=fxZWtc0mYpQ&list={FLAT_PLAYLIST['id']}"
    source = ScriptedInfoSource({url: FLAT_PLAYLIST})
    assert len(expand(source, url)) == 3


def test_expansion_errors_are_typed() -> None:
    source = ScriptedInfoSource({PLAYLIST_URL: ytdlp_error("The playlist does not exist", "PL")})
    with pytest.raises(V2CError) as caught:
        expand(source, PLAYLIST_URL)
    assert caught.value.code == "not-found"


def test_read_url_list(tmp_path: Path) -> None:
    path = tmp_path / "urls.txt"
    path.write_text(
        "\ufeff# Crash Course\nhttps://youtu.be/fxZWtc0mYpQ\n\n   \n"
        "  https://vimeo.com/76979871#t=30  \n#https://skipped.example\n",
        encoding="utf-8",
    )
    assert read_url_list(path) == [
        "https://youtu.be/fxZWtc0mYpQ",
        "https://vimeo.com/76979871#t=30",
    ]


def test_read_url_list_missing_file(tmp_path: Path) -> None:
    with pytest.raises(V2CError) as caught:
        read_url_list(tmp_path / "nope.txt")
    assert caught.value.code == "not-found"
