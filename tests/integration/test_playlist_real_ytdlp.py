"""`v2c add PLAYLIST --collection NAME` through the real yt-dlp, against a site on 127.0.0.1.

The unit tests of expansion script yt-dlp's answers (tests/unit/importers/web/test_expand.py);
this one lets yt-dlp itself read a playlist: an RSS feed served from this machine, whose
items are pages with an HTML5 `<video>` and a `<track>` of English subtitles. yt-dlp's
generic extractor reads the feed flat as a playlist of two entries, then each page as a video
whose subtitles are the track; v2c downloads each track, imports both videos and files them
in the collection. Nothing leaves the machine (the network guard fails any test that tries).

YouTube channels (a playlist of tabs, each a playlist) cannot be served this way: yt-dlp's
YouTube extractors only answer https://www.youtube.com, so they stay scripted in the unit
tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.feed_site import TALKS, Site
from v2c_desktop.cli.main import main as cli_main
from v2c_desktop.core.store import open_library


def v2c_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = cli_main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_add_a_playlist_imports_every_video_into_the_collection_with_the_real_ytdlp(
    feed_site: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("V2C_HOME", str(tmp_path / "home"))
    library = tmp_path / "lib.duckdb"
    feed = f"{feed_site.base}/feed.xml"
    code, added = v2c_json(
        capsys, "--library", str(library), "add", feed, "--collection", "Island talks", "--no-index"
    )
    assert code == 0, added
    assert (added["added"], added["failed"], added["collection"]) == (2, 0, "island-talks")
    items = added["items"]
    assert [i["status"] for i in items] == ["added", "added"]
    # the playlist's entries, in feed order: each a page of this site, not the feed itself
    pages = [i["source"].split("#", 1)[0] for i in items]
    assert pages == [f"{feed_site.base}/{name}.html" for name in TALKS]
    assert {"/feed.xml", "/harbour.en.vtt", "/lighthouse.en.vtt"} <= feed_site.paths()

    with open_library(library) as store:
        videos = {v.id: v for v in store.list_videos()}
        assert set(videos) == {i["video_id"] for i in items}
        lines = {
            seg.text for video_id in videos for seg in store.get_video(video_id).transcript.segments
        }
    assert {line for _, line in TALKS.values()} <= lines  # each page's own subtitles

    code, shown = v2c_json(capsys, "--library", str(library), "collections", "show", "island-talks")
    assert code == 0, shown
    assert {v["id"] for v in shown["videos"]} == set(videos)

    # the same playlist again: nothing new, the collection unchanged
    code, again = v2c_json(
        capsys, "--library", str(library), "add", feed, "--collection", "Island talks", "--no-index"
    )
    assert code == 0, again
    assert again["added"] == 0 and again["failed"] == 0
    assert {i["video_id"] for i in again["items"]} == set(videos)


def test_a_playlist_entry_is_stored_under_its_own_address(
    feed_site: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("V2C_HOME", str(tmp_path / "home"))
    library = tmp_path / "lib.duckdb"
    code, added = v2c_json(
        capsys, "--library", str(library), "add", f"{feed_site.base}/feed.xml", "--no-index"
    )
    assert code == 0, added
    assert [i["source"] for i in added["items"]] == [f"{feed_site.base}/{n}.html" for n in TALKS]
