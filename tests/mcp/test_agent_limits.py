"""Agents are not the user (issue 22), through the official MCP client and a real server.

Tools say truthfully whether they may import; an agent's local paths are read only inside
the folders the user allows (`agents.allowed_folders`) and the roots its client shares; an
agent's URLs never reach this machine or the private network unless the user allows it
(`agents.allow_private_hosts`). Each refusal is an `isError` result that tells the agent how
the user widens the limit, and nothing is imported.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientRequestContext
from mcp.types import ListRootsResult, Root

from tests.conftest import REPO
from tests.mcp.harness import McpProcess, allow_agents, build_library, error_of, server_env
from tests.unit.owner.toys import remove_dir, short_dir

SAMPLES = REPO / "resources" / "samples"
SAMPLE = "testing-spacecraft-with-pytest.en.srt"
MAY_IMPORT = {
    "get_transcript",
    "get_section",
    "get_metadata",
    "get_outline",
    "export_context_pack",
    "search_transcript",
    "add_to_collection",
    "ask",
    "build_brief",
    "extract",
    "find_duplicates",
    "research_videos",
    "get_skip_segments",
    "get_comments",
    "get_key_moments",
    "open_transcript_viewer",
}


class TokenServer:
    """A page on 127.0.0.1 with a token in its URL; it records every request it gets."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                body = b"<html><body>internal admin page</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/api/token?key=s3cret"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A library of the samples; a folder the user allows, one they do not, one shared as
    a root, each holding a copy of a sample subtitle file the library does not hold yet."""
    base = tmp_path_factory.mktemp("agents")
    places = {"base": base, "home": base / "home", "library": base / "library.duckdb"}
    for name in ("allowed", "private", "shared"):
        folder = base / name
        folder.mkdir()
        for n in range(3):  # three videos: a folder given as one input imports them all
            extra = f"\n9{n}\n00:59:0{n},000 --> 00:59:0{n},500\n{name} {n}\n"
            text = (SAMPLES / SAMPLE).read_text(encoding="utf-8") + extra
            (folder / f"talk-{n}.en.srt").write_text(text, encoding="utf-8")
        places[name] = folder
    (places["allowed"] / "escape").symlink_to(places["private"])  # a link out of it
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(places["home"]))
        build_library(places["library"], [str(SAMPLES)])
    allow_agents(places["home"], [places["allowed"]])
    places["runtime"] = short_dir()
    yield places
    remove_dir(places["runtime"])


@pytest.fixture(scope="module")
def server(place: dict[str, Path]) -> Iterator[McpProcess]:
    process = McpProcess(place["library"], server_env(place["home"], place["runtime"]))
    yield process
    process.close()


def _video_count(server: McpProcess) -> int:
    listed = server.run(lambda s: s.list_resources()).resources
    return sum(1 for r in listed if str(r.uri).startswith("v2c://video/"))


def test_every_tool_that_may_import_says_it_is_not_read_only(server: McpProcess) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    assert set(tools) >= MAY_IMPORT
    for name in MAY_IMPORT:
        notes = tools[name].annotations
        assert notes is not None and notes.read_only_hint is False, name
        assert notes.destructive_hint is False and notes.open_world_hint is True, name
    assert tools["list_items"].annotations.read_only_hint is True  # type: ignore[union-attr]


def test_a_folder_outside_the_allowed_ones_is_refused_and_nothing_is_imported(
    server: McpProcess, place: dict[str, Path]
) -> None:
    before = _video_count(server)
    for tool, args in (
        ("get_metadata", {"url": str(place["private"])}),
        ("get_transcript", {"url": str(place["private"] / "talk-0.en.srt")}),
        ("list_items", {"url": str(place["private"])}),
        ("get_outline", {"url": (place["private"] / "talk-1.en.srt").as_uri()}),
        ("get_key_moments", {"url": str(place["private"] / "talk-1.en.srt")}),
        ("get_metadata", {"url": str(place["allowed"] / "escape" / "talk-2.en.srt")}),
    ):
        body = error_of(server.call(tool, args))
        assert body["error"] == "bad-request", (tool, body)
        assert "is outside the folders the user lets agents read" in body["message"], body
        assert str(place["private"]) in body["message"]  # a link is judged by its target
        assert "agents.allowed_folders" in body["hint"], body
        assert str(place["home"] / "config" / "settings.json") in body["hint"], body
        assert "root" in body["hint"]
    pack = server.text("export_context_pack", {"urls": [str(place["private"])]})
    assert "outside the folders the user lets agents read" in pack  # listed, not included
    assert _video_count(server) == before  # nothing was imported


def test_a_file_in_an_allowed_folder_is_imported(
    server: McpProcess, place: dict[str, Path]
) -> None:
    data = json.loads(server.text("get_metadata", {"url": str(place["allowed"] / "talk-0.en.srt")}))
    assert data["title"] and data["id"].startswith("file:")


def test_the_roots_the_client_shares_are_allowed_too(place: dict[str, Path]) -> None:
    async def roots(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=place["shared"].as_uri(), name="shared")])  # type: ignore[arg-type]

    process = McpProcess(
        place["library"],
        server_env(place["home"], place["runtime"]),
        name="rooted",
        list_roots=roots,
    )
    try:
        shared = str(place["shared"] / "talk-1.en.srt")
        assert not process.call("get_metadata", {"url": shared}).is_error
        outside = error_of(process.call("get_metadata", {"url": str(place["private"])}))
        assert str(place["shared"]) in outside["details"]["allowed_folders"], outside
    finally:
        process.close()


def test_an_agents_url_on_this_machine_is_never_requested(
    server: McpProcess, place: dict[str, Path]
) -> None:
    token = TokenServer()
    settings = place["home"] / "config" / "settings.json"
    kept = settings.read_text(encoding="utf-8")
    try:
        body = error_of(server.call("get_metadata", {"url": token.url}))
        assert body["error"] == "bad-request", body
        assert "127.0.0.1 is a loopback address, which an agent may not reach" in body["message"]
        assert "agents.allow_private_hosts" in body["hint"], body
        listed = error_of(server.call("list_items", {"url": token.url}))
        assert "loopback" in listed["message"]
        assert token.hits == []
        # the user allows loopback hosts for agents (the settings file, read on each call):
        # only now may the server reach this test's loopback page
        allow_agents(place["home"], [place["allowed"]], private_hosts=True)
        server.call("get_metadata", {"url": token.url})  # yt-dlp finds no video there
        assert token.hits, "with the setting, the agent's URL is read"
    finally:
        settings.write_text(kept, encoding="utf-8")
        token.close()
