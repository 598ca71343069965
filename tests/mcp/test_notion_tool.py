"""`export_notion` through the official MCP client over stdio, with the Notion API's page
endpoints on 127.0.0.1: the user's token comes from the server's environment, never from
the agent, and never appears in what the agent reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.harness import McpProcess, build_library, error_of, server_env, text_of
from tests.support.notion_api import PARENT, TOKEN, notion_api
from tests.unit.owner.toys import remove_dir, short_dir

HOMUNCULUS = "homunculus_crash_course_psychology_6_fxZWtc0mYpQ"
pytestmark = pytest.mark.corpus


def test_an_agent_exports_a_collection_to_the_users_notion_page(tmp_path: Path) -> None:
    from tests.conftest import corpus_path

    folder = tmp_path / "videos"
    folder.mkdir()
    for suffix in (".en.srt", ".info.json"):
        source = corpus_path(f"transcripts/crashcourse-psychology/{HOMUNCULUS}{suffix}")
        (folder / source.name).write_bytes(source.read_bytes())
    runtime, home, library = short_dir(), tmp_path / "home", tmp_path / "library.duckdb"
    with notion_api() as api, pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(folder)])
        settings = home / "config" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"notion": {"api_url": api.url, "parent_page": PARENT}}))
        server = McpProcess(library, {**server_env(home, runtime), "NOTION_TOKEN": TOKEN})
        try:
            refused = error_of(server.call("export_notion", {}))
            assert refused["error"] == "bad-request"
            result = server.call("export_notion", {"urls": ["youtube:fxZWtc0mYpQ"]}, progress=True)
            text = text_of(result)
            assert not result.is_error, text
            body = json.loads(text)
            (page,) = body["pages"]
            assert page["status"] == "created" and page["url"].startswith("https://www.notion.so/")
            assert body["created"] == 1 and body["failed"] == []
            (made,) = api.children_of(PARENT)
            assert made.title == "Homunculus: Crash Course Psychology #6"
            assert "https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=82s" in made.links()
            again = json.loads(
                text_of(server.call("export_notion", {"urls": ["youtube:fxZWtc0mYpQ"]}))
            )
            assert again["pages"][0]["status"] == "unchanged" and len(api.pages) == 1
            assert TOKEN not in text + server.stderr()
        finally:
            server.close()
            remove_dir(runtime)
    assert not server.junk, server.junk
