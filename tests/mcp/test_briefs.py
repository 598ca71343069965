"""`build_brief` and `extract` through a real `v2c mcp` and the official MCP client.

The shared server has no capable chat model (only the SmolLM2 test model), so a brief is
the extractive one, labelled as such; a JSON Schema needs a model and says so; an
unsupported schema keyword is refused at once. Progress notifications arrive stage by
stage. A second server, whose settings name an OpenAI-compatible test server's model,
writes a brief and an extract with it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tests.integration.test_briefs_end_to_end import assert_every_citation_verifies
from tests.mcp.harness import (
    McpProcess,
    allow_agents,
    build_library,
    error_of,
    server_env,
    text_of,
)
from tests.support.openai_server import CHAT, OpenAITestServer
from tests.unit.briefs.served import MODEL, MODEL_ID, ServedWriter, server_models
from tests.unit.owner.toys import remove_dir, run, short_dir
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import Brief
from v2c_desktop.core.briefs.verify import TranscriptIndex, verify_quote
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings, save_settings
from v2c_desktop.core.wire_codec import decode

pytestmark = pytest.mark.corpus

MAKE = "how_we_make_memories_crash_course_psychology_13"
FORGET = "remembering_and_forgetting_crash_course_psychology_14"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    base = tmp_path_factory.mktemp("briefs")
    folder = base / "memory"
    folder.mkdir()
    for name in (MAKE, FORGET):
        for suffix in (".en.srt", ".info.json"):
            source = corpus_path(f"transcripts/crashcourse-psychology/{name}{suffix}")
            (folder / source.name).write_bytes(source.read_bytes())
    runtime = short_dir()
    library, home = base / "library.duckdb", base / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(folder)])
    allow_agents(home, [folder])  # agents read local files only where allowed (issue 22)
    process = McpProcess(library, server_env(home, runtime))
    process.home = home  # type: ignore[attr-defined]  (the export test sets its vault there)
    yield process
    process.close()
    remove_dir(runtime)


def _ids(server: McpProcess) -> list[str]:
    found = json.loads(
        server.text("list_items", {"url": str(Path(server.stderr_path).parent / "memory")})
    )
    return [item["id"] for item in found["items"]]


def test_build_brief_is_extractive_cited_and_reports_progress(server: McpProcess) -> None:
    server.progress.clear()
    result = server.call(
        "build_brief",
        {"question": "How are memories made and lost?", "urls": _ids(server)},
        progress=True,
    )
    text = text_of(result)
    assert not result.is_error, text
    assert text.startswith("# How are memories made and lost?")
    assert "Extractive brief: no chat model wrote this" in text
    assert "](https://www.youtube.com/watch?v=" in text and "&t=" in text
    assert "## Coverage" in text and "Status: complete; extractive" in text
    values = [p for p, _, _ in server.progress]
    assert values and values == sorted(values)  # stage by stage, never backwards
    assert any("scope" in (m or "") for _, _, m in server.progress)


def test_build_brief_as_json_holds_the_whole_brief(server: McpProcess) -> None:
    result = server.call(
        "build_brief",
        {"question": "What helps us remember?", "urls": _ids(server), "format": "json"},
    )
    body = json.loads(text_of(result))
    assert body["extractive"] is True and body["topics"]
    for topic in body["topics"]:
        for point in topic["points"]:
            assert point["support"] and all(c["quote"] and c["url"] for c in point["support"])
    assert body["markdown"].startswith("# What helps us remember?")


def test_extract_refuses_an_unsupported_schema_and_needs_a_model_for_one(
    server: McpProcess,
) -> None:
    bad = {"type": "object", "properties": {"x": {"$ref": "#/defs/y"}}}
    refused = error_of(server.call("extract", {"urls": _ids(server), "schema": bad}))
    assert refused["error"] == "bad-request" and "'$ref'" in refused["message"]
    fine = {
        "type": "object",
        "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
    }
    needs = error_of(server.call("extract", {"urls": _ids(server), "schema": fine}))
    assert needs["error"] == "bad-request" and "needs a chat model" in needs["message"]
    assert "models pull" in needs["hint"]


def test_build_brief_hints_point_an_agent_at_its_own_tools(server: McpProcess) -> None:
    """A brief's errors are worded for an agent: it is pointed at list_collections and
    at urls, never told to run a `v2c` command or to open the app's Library."""
    created = json.loads(text_of(server.call("create_collection", {"name": "Nothing yet"})))
    empty = error_of(
        server.call(
            "build_brief",
            {"question": "What is said?", "collection": created["collection"]["id"]},
        )
    )
    assert empty["error"] == "bad-request" and empty["message"] == "no videos to brief"
    assert "pass urls" in empty["hint"] and "list_collections" in empty["hint"]
    unknown = error_of(
        server.call("build_brief", {"question": "What is said?", "collection": "no such one"})
    )
    assert unknown["error"] == "not-found"
    assert unknown["hint"] == "call list_collections to see the collections"
    for hint in (empty["hint"], unknown["hint"]):
        assert "v2c " not in hint and "--" not in hint and "Library" not in hint


def test_export_obsidian_writes_only_into_the_users_vault_and_keeps_their_edits(
    server: McpProcess, tmp_path: Path
) -> None:
    refused = error_of(server.call("export_obsidian", {}))
    assert refused["error"] == "bad-request" and "no Obsidian vault" in refused["message"]
    assert "v2c mcp --vault" in refused["hint"]  # what the agent can tell the user

    vault = tmp_path / "Notes"
    vault.mkdir()
    settings = Path(server.home) / "config" / "settings.json"  # type: ignore[attr-defined]
    settings.parent.mkdir(parents=True, exist_ok=True)
    kept = settings.read_text(encoding="utf-8")  # the agents' allowed folders stay
    settings.write_text(json.dumps({**json.loads(kept), "export": {"vault": str(vault)}}))
    try:
        brief = json.loads(
            text_of(
                server.call(
                    "build_brief",
                    {"question": "How are memories made?", "urls": _ids(server), "format": "json"},
                )
            )
        )
        server.progress.clear()
        result = server.call("export_obsidian", {"brief_ids": [brief["id"]]}, progress=True)
        body = json.loads(text_of(result))
        assert not result.is_error, body
        assert body["created"] == 5 and body["conflicts"] == []  # 2 videos, brief, index, base
        assert body["open"].startswith("obsidian://open?vault=Notes&file=v2c%2FBriefs%2F")
        assert [p for p, _, _ in server.progress] == sorted(p for p, _, _ in server.progress)
        note = next((vault / "v2c" / "Briefs").glob("*.md"))
        text = note.read_text(encoding="utf-8")
        assert f'v2c_brief_id: "{brief["id"]}"' in text
        assert "#^t-" in text  # citations link to the video notes' lines
        note.write_text(text.replace("## Bottom line", "## My bottom line"), encoding="utf-8")
        again = json.loads(text_of(server.call("export_obsidian", {"brief_ids": [brief["id"]]})))
        assert [c["path"] for c in again["conflicts"]] == [note.relative_to(vault).as_posix()]
        assert "## My bottom line" in note.read_text(encoding="utf-8")  # the edit is kept
    finally:
        settings.write_text(kept, encoding="utf-8")


def test_build_brief_and_extract_written_by_a_model_cite_only_verified_quotes(
    tmp_path: Path,
) -> None:
    """The model an OpenAI-compatible server (on loopback) named in the user's settings:
    build_brief and extract through map, verify and reduce, every citation they show
    checked again from the library's transcripts."""
    folder = tmp_path / "memory"
    folder.mkdir()
    for name in (MAKE, FORGET):
        for suffix in (".en.srt", ".info.json"):
            source = corpus_path(f"transcripts/crashcourse-psychology/{name}{suffix}")
            (folder / source.name).write_bytes(source.read_bytes())
    library, home, runtime = tmp_path / "library.duckdb", tmp_path / "home", short_dir()
    served = ServedWriter()
    try:
        with OpenAITestServer(models=(MODEL,)) as openai:
            openai.script(CHAT, *[served] * 80)
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("V2C_HOME", str(home))
                build_library(library, [str(folder)])
                save_settings(Settings(models=server_models(openai.base_url)))
            allow_agents(home, [folder])  # the settings above are kept
            process = McpProcess(library, server_env(home, runtime))
            try:
                ids = [
                    i["id"]
                    for i in json.loads(process.text("list_items", {"url": str(folder)}))["items"]
                ]
                arguments = {
                    "question": "How are memories made and lost?",
                    "urls": ids,
                    "model": MODEL_ID,
                }
                process.progress.clear()
                result = process.call("build_brief", {**arguments, "format": "json"}, progress=True)
                assert not result.is_error, text_of(result)
                stages = [m or "" for _, _, m in process.progress]
                shown = process.text("build_brief", arguments)  # the Markdown form
                extracted = json.loads(
                    process.text("extract", {**arguments, "template": "summary"})
                )
            finally:
                process.close()
    finally:
        remove_dir(runtime)

    body = json.loads(text_of(result))
    brief = decode(body, Brief)
    assert isinstance(brief, Brief)
    assert brief.model == MODEL_ID and brief.pass_kind == "map-reduce"
    assert any(s.startswith("map") for s in stages) and any(s.startswith("reduce") for s in stages)

    async def transcripts() -> dict[str, TranscriptIndex]:
        api = CoreAPI(await asyncio.to_thread(Services.open, library))
        try:
            return {
                v.id: TranscriptIndex((await api.get_video(v.id)).transcript.segments)
                for v in await api.list_videos()
            }
        finally:
            await api.aclose()

    indexes = run(transcripts(), timeout=60)
    assert brief.points
    assert_every_citation_verifies(brief, indexes)
    assert "*(consensus)*" in shown and "Status: complete; model " + MODEL_ID in shown
    # extract: {data, citations by JSON pointer}, every citation verified
    assert extracted["status"] in {"complete", "partial"} and extracted["data"]["key_points"]
    assert extracted["citations"]
    for pointer, citations in extracted["citations"].items():
        assert pointer.startswith("/key_points/") or pointer == "", pointer
        for c in citations:
            verdict = verify_quote(indexes[c["video_id"]], c["quote"], c["start"])
            assert verdict.ok, c
