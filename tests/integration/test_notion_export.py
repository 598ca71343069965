"""`v2c export notion` against the Notion API's page endpoints on 127.0.0.1.

Real Crash Course transcripts from the corpus go in through `v2c add`; the exporter makes a
page per video under the user's page, within Notion's limits (a long talk takes several
append requests), with `[m:ss]` links that open YouTube at the second; exporting again
reuses pages that are still there. A refused token and a page not shared with the
integration end with Notion's reason and what to do; the token never shows in any output.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_path
from tests.support.notion_api import PARENT, TOKEN, NotionApi, notion_api
from v2c_desktop.cli.main import main as cli_main

pytestmark = pytest.mark.corpus
CRASH = "transcripts/crashcourse-psychology"
TALKS = (
    "homunculus_crash_course_psychology_6_fxZWtc0mYpQ",
    "consciousness_crash_course_psychology_8_jReX7qKU2yc",
)


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NotionApi]:
    home = tmp_path / "home"
    with notion_api() as served:
        config = home / "config" / "settings.json"
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps({"notion": {"api_url": served.url}}), encoding="utf-8")
        monkeypatch.setenv("V2C_HOME", str(home))
        monkeypatch.setenv("NOTION_TOKEN", TOKEN)
        yield served


def v2c(capsys: pytest.CaptureFixture[str], library: Path, *args: str) -> tuple[int, Any, str]:
    capsys.readouterr()
    code = cli_main(["--library", str(library), *args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.out + out.err


def test_pages_per_video_with_links_that_play_and_no_duplicates_on_export_again(
    api: NotionApi, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = tmp_path / "lib.duckdb"
    folder = tmp_path / "talks"
    folder.mkdir()
    for name in TALKS:
        for suffix in (".en.srt", ".info.json"):
            (folder / f"{name}{suffix}").write_bytes(
                corpus_path(f"{CRASH}/{name}{suffix}").read_bytes()
            )
    code, added, _ = v2c(capsys, library, "add", str(folder), "--collection", "Psych", "--no-index")
    assert (code, added["added"]) == (0, 2)

    page_link = f"https://www.notion.so/My-research-{PARENT}?pvs=4"  # as Notion copies it
    code, report, said = v2c(
        capsys, library, "export", "notion", "--collection", "psych", "--parent", page_link
    )
    assert code == 0, report
    assert [p["status"] for p in report["pages"]] == ["created", "created"]
    pages = api.children_of(PARENT)
    assert {p.title for p in pages} == {
        "Homunculus: Crash Course Psychology #6",
        "Consciousness: Crash Course Psychology #8",
    }
    homunculus = next(p for p in pages if p.title.startswith("Homunculus"))
    body = homunculus.text()
    assert "Chapters" in body and "Transcript" in body
    assert "[1:22] Sensation vs. Perception" in body  # a chapter, with its time
    links = homunculus.links()
    assert "https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=82s" in links
    assert sum("&t=" in link for link in links) > 100  # every transcript line plays
    appends = [r for r in api.requests if r[0] == "PATCH"]
    assert not appends or all(r[1].endswith("/children") for r in appends)
    assert TOKEN not in said  # never printed, never in a message

    # again: the same pages, nothing new in Notion
    before = len(api.pages)
    code, again, _ = v2c(
        capsys, library, "export", "notion", "--collection", "psych", "--parent", PARENT
    )
    assert [p["status"] for p in again["pages"]] == ["unchanged", "unchanged"]
    assert len(api.pages) == before
    # a page the user put in the trash is made again
    homunculus.in_trash = True
    api.busy = 1  # and Notion asks to slow down once: tried again after Retry-After
    code, third, _ = v2c(
        capsys, library, "export", "notion", "--collection", "psych", "--parent", PARENT
    )
    assert sorted(p["status"] for p in third["pages"]) == ["created", "unchanged"]


def test_a_refused_token_and_an_unshared_page_say_what_to_do(
    api: NotionApi,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library = tmp_path / "lib.duckdb"
    source = corpus_path(f"{CRASH}/{TALKS[0]}.en.srt")
    v2c(capsys, library, "add", str(source), "--no-index")
    (video,) = v2c(capsys, library, "list")[1]["videos"]

    code, refused, said = v2c(capsys, library, "export", "notion", video["id"], "--parent", "nope")
    assert code != 0 and refused["error"] == "bad-request"
    assert "not a Notion page URL or id" in refused["message"]

    other = "1" * 32  # a real-looking page the integration was never given
    code, refused, said = v2c(capsys, library, "export", "notion", video["id"], "--parent", other)
    assert code != 0 and refused["error"] == "not-found"
    assert "Connections" in refused["hint"]

    monkeypatch.setenv("NOTION_TOKEN", "ntn_wrong_secret_value")
    code, refused, said = v2c(capsys, library, "export", "notion", video["id"], "--parent", PARENT)
    assert code != 0 and "refused the token" in refused["message"]
    assert "NOTION_TOKEN" in refused["hint"]
    assert "ntn_wrong_secret_value" not in said
    assert api.pages == {}  # nothing was made

    monkeypatch.delenv("NOTION_TOKEN")
    code, refused, _ = v2c(capsys, library, "export", "notion", video["id"], "--parent", PARENT)
    assert code != 0 and "no Notion token" in refused["message"]
