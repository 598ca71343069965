"""A collection follows the feed it was filled from: a refresh imports the new uploads only.

The real yt-dlp reads an RSS feed served on 127.0.0.1 (tests/support/feed_site.py) through
the CLI, as a user would: `v2c add FEED --collection`, then the site publishes a talk, then
`v2c collections refresh`. The talks already saved are not fetched again; an upload that
cannot be imported is kept as pending with its reason until a later check brings it in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.feed_site import Site
from v2c_desktop.cli.main import main as cli_main


def v2c(capsys: pytest.CaptureFixture[str], library: Path, *args: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = cli_main(["--library", str(library), *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_refresh_imports_only_the_new_upload_and_keeps_what_failed_pending(
    feed_site: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("V2C_HOME", str(tmp_path / "home"))
    library = tmp_path / "lib.duckdb"
    feed = f"{feed_site.base}/feed.xml"
    code, added = v2c(capsys, library, "add", feed, "--collection", "Island talks", "--no-index")
    assert (code, added["added"]) == (0, 2)
    code, shown = v2c(capsys, library, "collections", "show", "island-talks")
    assert shown["watch"]["sources"] == [feed]  # filled from a feed: it follows the feed
    assert shown["watch"]["last_check"] is None and shown["watch"]["every_hours"] is None

    feed_site.publish("market", "The fish market", "The market opens at six in the morning.")
    feed_site.requests.clear()
    code, refreshed = v2c(capsys, library, "collections", "refresh", "island-talks")
    assert code == 0, refreshed
    assert refreshed["new"] == 1
    statuses = {i["source"].split("#", 1)[0]: i["status"] for i in refreshed["items"]}
    assert statuses == {
        f"{feed_site.base}/harbour.html": "skipped",
        f"{feed_site.base}/lighthouse.html": "skipped",
        f"{feed_site.base}/market.html": "added",
    }
    fetched = feed_site.paths()
    assert "/market.en.vtt" in fetched  # the new upload was read...
    assert not {"/harbour.html", "/harbour.en.vtt", "/lighthouse.html"} & fetched  # ...only it
    watch = refreshed["watch"]
    assert watch["last_new"] == 1 and watch["last_check"] and watch["pending"] == []
    code, shown = v2c(capsys, library, "collections", "show", "island-talks")
    assert len(shown["videos"]) == 3
    assert "The market opens at six in the morning." in json.dumps(
        v2c(capsys, library, "transcript", shown["videos"][-1]["id"])[1]
    )

    # an upload whose subtitles are gone: pending with the reason, the others untouched
    feed_site.publish("storm", "The storm", "The storm closed the harbour for two days.")
    (feed_site.root / "storm.en.vtt").unlink()
    code, refreshed = v2c(capsys, library, "collections", "refresh", "island-talks")
    assert code == 1 and refreshed["new"] == 0
    (pending,) = refreshed["watch"]["pending"]
    assert pending["input"].startswith(f"{feed_site.base}/storm.html") and pending["reason"]
    code, shown = v2c(capsys, library, "collections", "show", "island-talks")
    assert len(shown["videos"]) == 3 and shown["watch"]["pending"] == [pending]

    # the subtitles are back: the next check brings it in and clears the pending list
    (feed_site.root / "storm.en.vtt").write_text(
        "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nThe storm closed the harbour for two days.\n",
        encoding="utf-8",
    )
    code, refreshed = v2c(capsys, library, "collections", "refresh", "island-talks")
    assert (code, refreshed["new"], refreshed["watch"]["pending"]) == (0, 1, [])


def test_a_schedule_needs_a_followed_source_and_says_when_it_checks_next(
    feed_site: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("V2C_HOME", str(tmp_path / "home"))
    library = tmp_path / "lib.duckdb"
    code, _ = v2c(capsys, library, "collections", "create", "Hand picked")
    code, refused = v2c(capsys, library, "collections", "refresh", "hand-picked")
    assert code != 0 and refused["error"] == "bad-request"
    assert "follows no playlist" in refused["message"]
    code, refused = v2c(capsys, library, "collections", "watch", "hand-picked", "--every", "6")
    assert code != 0 and refused["error"] == "bad-request"

    v2c(
        capsys, library, "add", f"{feed_site.base}/feed.xml", "--collection", "Island", "--no-index"
    )
    code, watched = v2c(capsys, library, "collections", "watch", "island", "--every", "6")
    assert code == 0 and watched["watch"]["every_hours"] == 6.0
    assert watched["watch"]["next_check"]  # six hours from now: nothing checked yet
    code, refreshed = v2c(capsys, library, "collections", "refresh", "island")
    watch = refreshed["watch"]
    assert (watch["last_check"] < watch["next_check"]) and refreshed["new"] == 0
    code, watched = v2c(capsys, library, "collections", "watch", "island", "--off")
    assert watched["watch"]["every_hours"] is None and watched["watch"]["next_check"] is None
    code, refused = v2c(capsys, library, "collections", "watch", "island", "--every", "0.01")
    assert code != 0 and "0.25" in refused["hint"]
