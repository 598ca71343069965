"""`get_skip_segments` through the official MCP client and a real `v2c mcp` process.

The server's SponsorBlock is a local HTTP server replaying the recorded answer
(`tests/support/sponsorblock.py`), named by the user's setting `sponsorblock.server`, so
nothing leaves the machine. The happy path: each segment as `[m:ss-m:ss]` with its link,
category, votes and share, and a second call answered from the library; bad inputs (not
YouTube, an unknown category, SponsorBlock refusing) are `isError` results, and the server
serves on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.types import CallToolResult

from tests.conftest import REPO
from tests.mcp.harness import McpProcess, build_library, error_of, server_env
from tests.support.sponsorblock import SAMPLE_ID, SponsorBlockServer
from tests.unit.owner.toys import remove_dir, short_dir

SAMPLES = REPO / "resources" / "samples"


@pytest.fixture(scope="module")
def sponsorblock() -> Iterator[SponsorBlockServer]:
    served = SponsorBlockServer()
    yield served
    served.close()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, sponsorblock: SponsorBlockServer
) -> Iterator[McpProcess]:
    base = tmp_path_factory.mktemp("mcp-skips")
    home, library = base / "home", base / "library.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(SAMPLES)])
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"sponsorblock": {"server": sponsorblock.url}}))
    runtime = short_dir()
    process = McpProcess(library, server_env(home, runtime))
    yield process
    process.close()
    remove_dir(runtime)
    assert not process.junk, f"non-protocol output on stdout: {process.junk}"


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def test_segments_come_with_times_links_votes_and_shares_then_from_the_library(
    server: McpProcess, sponsorblock: SponsorBlockServer
) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    tool = tools["get_skip_segments"]
    assert tool.output_schema is not None and "segments" in tool.output_schema["properties"]
    notes = tool.annotations
    assert notes is not None and notes.open_world_hint is True
    assert notes.read_only_hint is False and notes.destructive_hint is False  # it saves

    asked = len(sponsorblock.script.requests)
    # refresh: asked whatever the module's other test left in the library
    data = structured(server.call("get_skip_segments", {"url": SAMPLE_ID, "refresh": True}))
    assert len(sponsorblock.script.requests) == asked + 1
    assert sponsorblock.script.requests[-1].startswith("/api/skipSegments/5a23?")
    assert data["video"]["id"] == f"youtube:{SAMPLE_ID}" and data["youtubeId"] == SAMPLE_ID
    assert [(s["at"], s["category"], s["votes"]) for s in data["segments"]] == [
        ("[0:58-1:10]", "sponsor", 12),
        ("[29:50-29:55]", "interaction", 5),
        ("[30:03-30:11]", "selfpromo", 2),
    ]
    sponsor = data["segments"][0]
    assert sponsor["link"] == f"https://www.youtube.com/watch?v={SAMPLE_ID}&t=58s"
    assert 0.006 < sponsor["share"] < 0.007  # 12 s of about 1794 s of speech
    assert 0.014 < data["share"] < 0.015 and "spoken time" in data["shareMeaning"]
    assert data["fromLibrary"] is False and data["categories"][0] == "sponsor"

    again = structured(
        server.call("get_skip_segments", {"url": f"youtube:{SAMPLE_ID}", "categories": ["sponsor"]})
    )
    assert len(sponsorblock.script.requests) == asked + 1  # kept in the library
    assert again["fromLibrary"] is True and [s["category"] for s in again["segments"]] == [
        "sponsor"
    ]


def test_bad_inputs_are_errors_and_the_server_serves_on(
    server: McpProcess, sponsorblock: SponsorBlockServer
) -> None:
    before = len(sponsorblock.script.requests)
    vimeo = error_of(server.call("get_skip_segments", {"url": "https://vimeo.com/76979871"}))
    assert vimeo["error"] == "unsupported-input" and "YouTube" in vimeo["hint"]
    unknown = error_of(
        server.call("get_skip_segments", {"url": SAMPLE_ID, "categories": ["sponsor", "ads"]})
    )
    assert unknown["error"] == "bad-request" and "music_offtopic" in unknown["hint"]
    missing = error_of(server.call("get_skip_segments", {"url": "youtube:doesnotexist"}))
    assert missing["error"] == "not-found"
    assert len(sponsorblock.script.requests) == before  # none of them asked SponsorBlock

    sponsorblock.script.fail["5a23"] = 429
    try:
        limited = error_of(server.call("get_skip_segments", {"url": SAMPLE_ID, "refresh": True}))
    finally:
        sponsorblock.script.fail.clear()
    assert limited["error"] == "rate-limited" and "wait 30 s" in limited["message"]
    assert "try again in a few minutes" in limited["hint"]

    served = structured(server.call("get_skip_segments", {"url": SAMPLE_ID}))
    assert len(served["segments"]) == 3  # still serving, and what was kept is still there
    assert json.loads(server.text("list_collections"))["collections"] == []
