"""`v2c mcp` end to end: the official MCP client drives a real server process over stdio.

The library is built from real corpus transcripts first (Crash Course Psychology with its
chapters and real YouTube ids, a few 3Blue1Brown captions, the CC BY sample); then every
tool, resource and prompt is called through the protocol, including the failures an agent
will make, which must come back as `isError` results while the server keeps serving.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import REPO, corpus_path
from tests.mcp.harness import (
    McpProcess,
    allow_agents,
    build_library,
    error_of,
    server_env,
    text_of,
)
from v2c_desktop.core.render import FORMATS, estimate_tokens

pytestmark = [pytest.mark.corpus]

CRASH = "transcripts/crashcourse-psychology"
EULER = "transcripts/3blue1brown/2020_ldm-eulers-formula/captions.en.srt"
BITCOIN = "transcripts/3blue1brown/2017_bitcoin/captions.en.srt"
BAYES = "transcripts/3blue1brown/2019_bayes-theorem/captions.en.srt"
GRADIENT = "transcripts/3blue1brown/2017_gradient-descent/captions.en.srt"
SAMPLES = REPO / "resources" / "samples"
CONSCIOUSNESS = "youtube:jReX7qKU2yc"
ATTENTION = "attention"  # the collection the `attention` fixture makes

TOOLS = {
    "get_transcript",
    "get_metadata",
    "list_formats",
    "get_outline",
    "get_section",
    "list_items",
    "export_context_pack",
    "list_models",
    "search_transcript",
    "ask",
    "list_collections",
    "create_collection",
    "add_to_collection",
    "get_collection",
    "refresh_collection",
    "watch_collection",
    "build_brief",
    "extract",
    "export_obsidian",
    "export_notion",
    "find_duplicates",
    "research_videos",
    "get_skip_segments",
    "get_comments",
    "list_caption_languages",
    "choose_caption_track",
    "digest_videos",
    "verify_quotes",
    "get_key_moments",
    "open_transcript_viewer",
    "watch_live",
}
STRUCTURED = {
    "list_formats",
    "get_outline",
    "list_items",
    "list_models",
    "find_duplicates",
    "research_videos",
    "get_skip_segments",
    "get_comments",
    "list_caption_languages",
    "choose_caption_track",
    "digest_videos",
    "verify_quotes",
    "get_key_moments",
    "open_transcript_viewer",
    "watch_live",
}
WRITES = {
    "create_collection",
    "add_to_collection",
    "refresh_collection",
    "watch_collection",
    "ask",
    "build_brief",
    "extract",
    "export_obsidian",
    "export_notion",
    "watch_live",
    # these read, but import a URL or file they are given first (issue 22: truthful hints)
    "get_transcript",
    "get_section",
    "get_metadata",
    "get_outline",
    "export_context_pack",
    "search_transcript",
    "find_duplicates",
    "research_videos",
    "get_skip_segments",
    "get_comments",
    "choose_caption_track",
    "digest_videos",
    "verify_quotes",
    "get_key_moments",
    "open_transcript_viewer",
}
#: writes that replace what the library holds (a video's transcript): destructive
REPLACES = {"choose_caption_track"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    base = tmp_path_factory.mktemp("mcp")
    runtime = Path("/tmp") / f"v2c-mcp-{base.name}"
    runtime.mkdir(mode=0o700, exist_ok=True)
    home = base / "home"
    library = base / "library.duckdb"
    sources = [str(corpus_path(CRASH)), str(corpus_path(EULER)), str(corpus_path(BITCOIN))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [*sources, str(SAMPLES)])
    # the agent reads local files only where the user allows it (issue 22): the corpus and
    # the samples (the relative path test names one from the server's cwd)
    allow_agents(home, [corpus_path(CRASH).parent.parent, SAMPLES])
    process = McpProcess(library, server_env(home, runtime))
    yield process
    process.close()
    assert not process.junk, f"non-protocol output on stdout: {process.junk}"


@pytest.fixture
def attention(server: McpProcess) -> str:
    """A collection holding the Consciousness video, made if this server has none yet.

    The server is shared by the module's tests, so a test that reads a collection makes the
    one it reads (idempotently) instead of counting on another test having made one first:
    every test passes alone and in any order.
    """
    listed = json.loads(server.text("list_collections"))["collections"]
    if ATTENTION not in {c["id"] for c in listed}:
        created = json.loads(server.text("create_collection", {"name": "Attention"}))
        assert created["collection"]["id"] == ATTENTION
    server.text("add_to_collection", {"collection": ATTENTION, "urls": [CONSCIOUSNESS]})
    return ATTENTION


def _video_id(server: McpProcess, source: str) -> str:
    return str(json.loads(server.text("get_metadata", {"url": source}))["id"])


# -- listing ------------------------------------------------------------------------------------
def test_lists_tools_with_described_inputs_and_annotations(server: McpProcess) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", name)
        assert tool.description and len(tool.description) > 60, name
        for prop, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{name}.{prop} has no description"
        notes = tool.annotations
        assert notes is not None and notes.title, name
        assert notes.read_only_hint is (name not in WRITES), name
        assert notes.idempotent_hint is not None and notes.open_world_hint is not None
        if name in WRITES:
            assert notes.destructive_hint is (name in REPLACES), name
        assert (tool.output_schema is not None) is (name in STRUCTURED), name
    section = tools["get_section"].input_schema["properties"]
    assert {"url", "from", "to", "chapter", "format", "timestamps"} <= set(section)


def test_lists_prompts_and_resources(server: McpProcess) -> None:
    prompts = {p.name: p for p in server.run(lambda s: s.list_prompts()).prompts}
    assert set(prompts) == {"brief", "buyer_guide", "digest"}
    for prompt in prompts.values():
        assert prompt.arguments and all(a.description for a in prompt.arguments)
    assert [a.name for a in prompts["buyer_guide"].arguments or [] if a.required] == ["product"]
    templates = server.run(lambda s: s.list_resource_templates()).resource_templates
    assert {t.uri_template for t in templates} == {
        "v2c://video/{id}",
        "v2c://video/{id}/transcript",
        "v2c://collection/{id}",
        "v2c://collection/{id}/latest",
    }
    listed = {str(r.uri) for r in server.run(lambda s: s.list_resources()).resources}
    assert "v2c://video/youtube%3AjReX7qKU2yc" in listed
    assert "v2c://video/youtube%3AjReX7qKU2yc/transcript" in listed


# -- reading ------------------------------------------------------------------------------------
def test_get_transcript_whole_text_starts_with_the_header(server: McpProcess) -> None:
    text = server.text("get_transcript", {"url": CONSCIOUSNESS})
    assert text.startswith("Title: Consciousness: Crash Course Psychology #8\n")
    assert "URL: https://www.youtube.com/watch?v=jReX7qKU2yc" in text
    assert "[6:13] Inattentional Blindness" in text  # chapters, citable
    assert re.search(r"^\[\d+:\d\d\] \S", text, re.M)
    flowing = server.text("get_transcript", {"url": CONSCIOUSNESS, "timestamps": False})
    assert estimate_tokens(flowing) < estimate_tokens(text)
    srt = server.text("get_transcript", {"url": CONSCIOUSNESS, "format": "srt"})
    assert srt.startswith("1\n00:00:")


def test_get_transcript_pages_a_long_transcript_to_the_end(server: McpProcess) -> None:
    euler = str(corpus_path(EULER))
    whole = server.text("get_transcript", {"url": euler})
    lines = [line for line in whole.splitlines() if re.match(r"^\[\d+:\d\d(:\d\d)?\] ", line)]
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        args: dict[str, Any] = {"url": euler, "maxTokens": 1500}
        if cursor:
            args["cursor"] = cursor
        page = server.text("get_transcript", args)
        pages += 1
        assert page.startswith("Title: "), "every page carries the source header"
        assert estimate_tokens(page) <= 1500
        seen += [line for line in page.splitlines() if re.match(r"^\[\d+:\d\d(:\d\d)?\] ", line)]
        last = page.rstrip().splitlines()[-1]
        found = re.search(r"next_cursor: (seg:\d+)\]$", last)
        if found is None:
            assert last.startswith("[End of transcript: ")
            break
        assert last.startswith("[Partial transcript: segments ")
        cursor = found.group(1)
    assert pages > 5
    assert seen == lines, "the pages together are the whole transcript, each line once"
    first = server.text("get_transcript", {"url": euler, "format": "json", "maxTokens": 1500})
    assert json.loads(first)["page"]["next_cursor"] == "seg:" + str(
        json.loads(first)["page"]["last_segment"] + 1
    )


def test_get_section_by_chapter_title_and_by_time(server: McpProcess) -> None:
    text = server.text("get_section", {"url": CONSCIOUSNESS, "chapter": "selective"})
    assert 'Section "Selective Attention": 4:23 to 6:13, about ' in text
    assert text.startswith("Title: Consciousness")
    ranged = server.text("get_section", {"url": CONSCIOUSNESS, "from": "1:00", "to": 90})
    assert 'Section "1:00-1:30": 1:00 to 1:30' in ranged
    sample = server.text("get_section", {"url": str(corpus_path(BITCOIN)), "chapter": 2})
    assert re.search(r'Section "\d+:\d\d-\d+:\d\d": ', sample), "time sections are numbered"


def test_get_metadata_and_relative_paths(server: McpProcess) -> None:
    data = json.loads(server.text("get_metadata", {"url": "jReX7qKU2yc"}))
    assert data["id"] == CONSCIOUSNESS and data["channel"] == "CrashCourse"
    assert data["transcript"]["tokens"] > 1000 and len(data["chapters"]) == 8
    assert data["chapters"][5]["url"].endswith("&t=373s")
    relative = "resources/samples/testing-spacecraft-with-pytest.en.srt"  # the server's cwd
    sample = json.loads(server.text("get_metadata", {"url": relative}))
    assert sample["title"] == "Testing Spacecraft with Pytest"


def test_structured_formats_outline_and_models(server: McpProcess) -> None:
    formats = server.call("list_formats")
    assert formats.structured_content is not None
    assert json.loads(text_of(formats)) == formats.structured_content
    assert [f["id"] for f in formats.structured_content["formats"]] == list(FORMATS)
    outline = server.call("get_outline", {"url": CONSCIOUSNESS}).structured_content
    assert outline is not None and outline["sections"] == "chapters"
    assert [c["index"] for c in outline["chapters"]] == list(range(1, 9))
    assert sum(c["tokens"] for c in outline["chapters"]) == outline["totalTokens"]
    assert "get_section" in outline["next"]
    models = server.call("list_models").structured_content
    assert models is not None and models["embeddingModel"] and "chatChain" in models
    assert all(m["kind"] in ("chat", "embed") for m in models["models"])
    embed_only = server.call("list_models", {"kind": "embed"}).structured_content
    assert embed_only is not None and all(m["kind"] == "embed" for m in embed_only["models"])


def test_list_items_expands_without_importing(server: McpProcess) -> None:
    folder = server.call("list_items", {"url": str(corpus_path(CRASH)), "limit": 4})
    data = folder.structured_content
    assert data is not None and data["total"] == 10 and data["count"] == 4 and data["truncated"]
    assert all(i["id"].startswith("youtube:") and i["kind"] == "local" for i in data["items"])
    video = server.call("list_items", {"url": "https://youtu.be/aircAruvnKk"}).structured_content
    assert video is not None and video["items"][0]["id"] == "youtube:aircAruvnKk"
    error = error_of(server.call("get_metadata", {"url": "youtube:aircAruvnKk"}))
    assert error["error"] == "not-found", "listing must not import"


# -- search, collections, packs ---------------------------------------------------------------
def test_search_transcript_finds_the_right_video(server: McpProcess) -> None:
    text = server.text("search_transcript", {"query": "invisible gorilla", "limit": 3})
    first = text.split("\n\n")[1]
    assert first.startswith("1. Consciousness: Crash Course Psychology #8 [")
    assert f"video: {CONSCIOUSNESS}" in first and "watch?v=jReX7qKU2yc&t=" in first
    assert "**" in first
    assert re.search(r"^-- hybrid search; sides: .+; embedding model: .+; vector: \w+", text, re.M)
    scoped = server.text(
        "search_transcript", {"query": "proof of work", "urls": [str(corpus_path(BITCOIN))]}
    )
    assert "Bitcoin" in scoped or "bitcoin" in scoped.lower()
    assert "Crash Course" not in scoped


def test_collections_create_fill_and_read(server: McpProcess) -> None:
    created = json.loads(server.text("create_collection", {"name": "Mind and attention"}))
    cid = created["collection"]["id"]
    assert cid == "mind-and-attention"
    new_file = str(corpus_path(BAYES))
    filled = json.loads(
        server.text(
            "add_to_collection",
            {"collection": cid, "urls": [CONSCIOUSNESS, new_file, "/no/such/file.srt"]},
        )
    )
    summary = filled["summary"]
    assert summary["added"][0]["id"] == CONSCIOUSNESS
    assert len(summary["added"]) == 2 and summary["added"][1]["title"]
    assert [f["input"] for f in summary["failed"]] == ["/no/such/file.srt"]
    again = json.loads(
        server.text("add_to_collection", {"collection": cid, "urls": ["jReX7qKU2yc"]})
    )
    assert again["summary"]["skipped"][0]["id"] == CONSCIOUSNESS
    listed = json.loads(server.text("list_collections"))["collections"]
    assert {"id": cid, "videos": 2} == {
        k: c[k] for c in listed if c["id"] == cid for k in ("id", "videos")
    }
    view = json.loads(server.text("get_collection", {"collection": "Mind and attention"}))
    assert view["videos"][0]["id"] == CONSCIOUSNESS
    assert view["totalTokens"] == sum(v["tokens"] for v in view["videos"]) > 1000
    duplicate = error_of(server.call("create_collection", {"name": "Mind and attention"}))
    assert duplicate["error"] == "bad-request"
    single = error_of(
        server.call(
            "create_collection",
            {"name": "x", "sources": ["https://www.youtube.com/watch?v=aircAruvnKk"]},
        )
    )
    assert single["error"] == "bad-request" and "single video" in single["message"]


def test_export_context_pack_lists_what_it_could_not_include(
    server: McpProcess, attention: str
) -> None:
    server.progress.clear()
    result = server.call(
        "export_context_pack",
        {
            "urls": [CONSCIOUSNESS, "unWnZvXJH2o", "/no/such/talk.srt", str(corpus_path(EULER))],
            "maxTokens": 6000,
        },
        progress=True,
    )
    text = text_of(result)
    assert not result.is_error, text
    assert text.startswith("# Context pack: 3 videos")
    assert estimate_tokens(text) <= 6000 * 1.05
    assert "## 1. " in text and "Title: Consciousness: Crash Course Psychology #8" in text
    not_included = text.split("## Not included", 1)[1]
    assert "/no/such/talk.srt: not-found" in not_included
    assert "cursor" in text, "a cut transcript says how to read on"
    values = [v for v, _, _ in server.progress]
    assert values and values == sorted(set(values)), "progress per video, increasing"
    whole = server.text("export_context_pack", {"collection": attention})
    assert whole.startswith("# Context pack: Attention") and "whole)" in whole


# -- ask, resources, prompts ------------------------------------------------------------------
def test_ask_returns_the_answer_and_cited_sources(server: McpProcess) -> None:
    text = server.text(
        "ask",
        {
            "question": "What is inattentional blindness?",
            "urls": [CONSCIOUSNESS],
            "extractive": True,
        },
    )
    assert re.search(
        r"^\[1\] Consciousness: Crash Course Psychology #8 @ \d+:\d\d "
        r"<https://www\.youtube\.com/watch\?v=jReX7qKU2yc&t=\d+s>$",
        text,
        re.M,
    ), text
    assert '    "' in text  # the quote under the source line
    # every tool's error shape, `ask` included: flat code, message, hint, attempts
    error = error_of(server.call("ask", {"question": "x", "urls": ["/nope.srt"]}))
    assert set(error) == {"error", "message", "hint", "attempts"}, error
    assert error["error"] == "bad-request" and error["message"] and error["hint"]
    assert error["attempts"] == []


def test_resources_read_and_unknown_ids_are_errors(server: McpProcess, attention: str) -> None:
    meta = server.run(lambda s: s.read_resource("v2c://video/youtube%3AjReX7qKU2yc"))
    assert json.loads(meta.contents[0].text)["title"].startswith("Consciousness")  # type: ignore[union-attr]
    transcript = server.run(lambda s: s.read_resource("v2c://video/jReX7qKU2yc/transcript"))
    body = transcript.contents[0].text  # type: ignore[union-attr]
    assert body.startswith("Title: Consciousness") and "[0:00] " in body
    collection = server.run(lambda s: s.read_resource(f"v2c://collection/{attention}"))
    data = json.loads(collection.contents[0].text)  # type: ignore[union-attr]
    assert data["collection"]["id"] == attention and data["missing"] == []
    with pytest.raises(MCPError) as caught:
        server.run(lambda s: s.read_resource("v2c://video/youtube%3Anothere"))
    assert "no video" in caught.value.message and caught.value.data["error"] == "not-found"


def test_prompts_carry_the_citation_rule(server: McpProcess) -> None:
    brief = server.run(
        lambda s: s.get_prompt(
            "brief", {"urls": "jReX7qKU2yc, unWnZvXJH2o\nyoutube:x", "question": "Why?"}
        )
    )
    text = brief.messages[0].content.text  # type: ignore[union-attr]
    assert "[Video title @ m:ss](timestamp link)" in text and "answering: Why?" in text
    assert "- jReX7qKU2yc\n- unWnZvXJH2o\n- youtube:x" in text
    assert "get_outline" in text and "token" in text
    guide = server.run(
        lambda s: s.get_prompt("buyer_guide", {"product": "Prius", "collection": "cars"})
    )
    guide_text = guide.messages[0].content.text  # type: ignore[union-attr]
    assert "buyer's guide for Prius" in guide_text and "v2c://collection/cars" in guide_text
    assert "Inspection checklist" in guide_text


# -- failures -----------------------------------------------------------------------------------
def test_bad_inputs_are_error_results_and_the_server_keeps_serving(server: McpProcess) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("get_transcript", {"url": "youtube:doesnotexist"}, "not-found"),
        (
            "get_transcript",
            {"url": CONSCIOUSNESS, "maxTokens": 500, "cursor": "seg:99999"},
            "bad-request",
        ),
        (
            "get_transcript",
            {"url": CONSCIOUSNESS, "maxTokens": 500, "cursor": "page 2"},
            "bad-request",
        ),
        ("get_transcript", {"url": CONSCIOUSNESS, "format": "docx"}, "bad-request"),
        ("get_transcript", {"url": CONSCIOUSNESS, "maxTokens": 0}, "bad-request"),
        ("get_section", {"url": CONSCIOUSNESS, "chapter": "no such chapter"}, "not-found"),
        ("get_section", {"url": CONSCIOUSNESS, "from": "9:00", "to": "1:00"}, "bad-request"),
        ("get_collection", {"collection": "nope"}, "not-found"),
        ("no_such_tool", {}, "not-found"),
        ("search_transcript", {}, "bad-request"),
    ]
    for name, args, code in cases:
        body = error_of(server.call(name, args))
        assert body["error"] == code, (name, args, body)
        assert set(body) >= {"error", "message", "hint", "attempts"}, body
        assert body["message"] and isinstance(body["attempts"], list)
    assert server.text("list_collections")  # still serving


def test_stdout_carries_only_the_protocol(server: McpProcess) -> None:
    assert server.junk == []
    assert "Traceback" not in server.stderr()


def test_a_network_failure_is_plain_words_with_a_hint_for_an_agent(server: McpProcess) -> None:
    """The server's proxy (a closed local port here) refuses: said plainly, and the hint
    tells the agent what the user can change, not a command-line flag."""
    body = error_of(server.call("get_metadata", {"url": "https://example.invalid/x"}))
    assert body["error"] == "upstream", body
    assert body["message"] in (
        "Could not connect to the proxy",
        "Could not reach example.invalid: the name does not resolve",
    ), body
    assert "HTTPSConnection" not in json.dumps(body["message"])
    assert "the user sets one in v2c: Settings → Imports → Proxy" in body["hint"], body
    assert "`--proxy" not in body["hint"] and "{proxy}" not in body["hint"]
