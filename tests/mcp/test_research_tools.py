"""`find_duplicates` and `research_videos` through a real `v2c mcp` and the official client.

Real corpus captions: the Bitcoin video is saved before the server starts; a re-upload of it
(the same cues, its last one trimmed, written anew so it is another file) and a clip (cues
from its middle, re-timed to start at 0:00) are imported by the tools themselves. The
detector must group both under the original, say which is which, and place the clip within a
few seconds of where its cues really were. `research_videos` reads a video that is not
saved yet (and saves it) next to a saved one, and the agent's mistakes come back as
`isError` results while the server keeps serving.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import corpus_path
from tests.mcp.harness import (
    McpProcess,
    allow_agents,
    build_library,
    error_of,
    server_env,
    text_of,
)
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Segment
from v2c_desktop.core.timecode import subtitle_clock

pytestmark = pytest.mark.corpus

BITCOIN = "transcripts/3blue1brown/2017_bitcoin/captions.en.srt"
GRADIENT = "transcripts/3blue1brown/2017_gradient-descent/captions.en.srt"
EULER = "transcripts/3blue1brown/2020_ldm-eulers-formula/captions.en.srt"
CLIP_CUES = slice(150, 230)
LABEL = re.compile(r"\[\d+:\d\d-\d+:\d\d\]")


def _srt(segments: list[Segment]) -> str:
    return "\n".join(
        f"{n}\n{subtitle_clock(s.start)} --> {subtitle_clock(s.end)}\n{s.text}\n"
        for n, s in enumerate(segments, start=1)
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("dupes")
    original = folder / "bitcoin-original.en.srt"
    original.write_bytes(corpus_path(BITCOIN).read_bytes())
    segments = parse_captions(original.read_bytes(), source_name=original.name)
    mirror = folder / "bitcoin-reupload.en.srt"
    mirror.write_text(_srt(segments[:-1]), encoding="utf-8")
    cut = segments[CLIP_CUES]
    shift = cut[0].start
    clip = folder / "bitcoin-clip.en.srt"
    clip.write_text(
        _srt([Segment(s.start - shift, s.end - shift, s.text) for s in cut]), encoding="utf-8"
    )
    return {
        "folder": folder,
        "original": str(original),
        "mirror": str(mirror),
        "clip": str(clip),
        "offset": shift,
        "clip_end": shift + cut[-1].end - shift,
    }


@pytest.fixture(scope="module")
def server(files: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    base = tmp_path_factory.mktemp("research")
    runtime = short_dir()
    library, home = base / "library.duckdb", base / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [files["original"], str(corpus_path(EULER))])
    allow_agents(home, [files["folder"], corpus_path(BITCOIN).parent.parent])
    process = McpProcess(library, server_env(home, runtime))
    yield process
    process.close()
    remove_dir(runtime)
    assert not process.junk, f"non-protocol output on stdout: {process.junk}"


def _structured(server: McpProcess, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = server.call(name, arguments, progress=True)
    assert not result.is_error, f"{name} failed: {text_of(result)}\n{server.stderr()[-3000:]}"
    body: dict[str, Any] = json.loads(text_of(result))
    assert body == result.structured_content
    return body


def _id(server: McpProcess, source: str) -> str:
    return str(json.loads(server.text("get_metadata", {"url": source}))["id"])


def test_both_tools_are_listed_truthfully(server: McpProcess) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    for name in ("find_duplicates", "research_videos"):
        tool = tools[name]
        assert tool.output_schema is not None, name
        notes = tool.annotations
        assert notes is not None and notes.title
        # they import (and save) the videos they are given: not read-only, never destructive
        assert notes.read_only_hint is False and notes.destructive_hint is False
        assert notes.open_world_hint is True
        for prop, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{name}.{prop}"
    research = tools["research_videos"].input_schema
    assert set(research["required"]) == {"urls", "query"}
    assert research["properties"]["urls"]["maxItems"] == 10
    assert set(tools["find_duplicates"].input_schema["properties"]) == {"urls", "collection"}


def test_find_duplicates_groups_a_reupload_and_a_clip_with_evidence(
    server: McpProcess, files: dict[str, Any]
) -> None:
    original = _id(server, files["original"])
    euler = _id(server, str(corpus_path(EULER)))
    server.progress.clear()
    found = _structured(
        server,
        "find_duplicates",
        {"urls": [files["clip"], original, files["mirror"], euler]},
    )
    assert [p for p, _, _ in server.progress] == sorted({p for p, _, _ in server.progress})
    assert found["videos"] == 4 and found["independentSources"] == 2
    assert found["failed"] == []
    [group] = found["groups"]
    assert group["original"]["id"] == original  # the longest video
    copies = {c["title"]: c for c in group["copies"]}
    assert len(copies) == 2
    mirror = next(c for c in group["copies"] if c["kind"] == "reupload")
    clip = next(c for c in group["copies"] if c["kind"] == "clip")
    assert mirror["overlap"] >= 0.95 and mirror["originalShare"] >= 0.95
    assert abs(mirror["offsetSec"]) < 1.0
    assert clip["overlap"] >= 0.95 and clip["copyShare"] >= 0.95
    assert 0.1 < clip["originalShare"] < 0.5
    assert abs(clip["offsetSec"] - files["offset"]) < 3.0
    assert abs(clip["startSec"] - files["offset"]) < 3.0
    assert abs(clip["endSec"] - files["clip_end"]) < 3.0
    assert LABEL.fullmatch(clip["at"])
    assert clip["link"] and clip["link"].startswith("file://")

    # the tool imported the copies: a collection of the three finds the same group
    ids = [original, clip["id"], mirror["id"]]
    server.text("create_collection", {"name": "Bitcoin copies"})
    server.text("add_to_collection", {"collection": "bitcoin-copies", "urls": ids})
    again = _structured(server, "find_duplicates", {"collection": "bitcoin-copies"})
    assert again["videos"] == 3 and again["independentSources"] == 1
    assert again["groups"] == found["groups"]


def test_research_videos_reads_an_unsaved_video_with_context(
    server: McpProcess, files: dict[str, Any]
) -> None:
    gradient = str(corpus_path(GRADIENT))  # not in the library yet
    server.progress.clear()
    found = _structured(
        server,
        "research_videos",
        {
            "urls": [gradient, files["original"]],
            "query": "cost function",
            "contextSec": 20,
            "maxExcerpts": 2,
        },
    )
    assert server.progress, "no progress notifications"
    assert found["query"] == "cost function" and found["failed"] == []
    assert "sides:" in found["search"]
    assert len(found["videos"]) == 2
    first = found["videos"][0]  # in the order given
    assert len(first["excerpts"]) == 2
    for video in found["videos"]:
        assert len(video["excerpts"]) <= 2
    for rank, excerpt in enumerate(first["excerpts"], start=1):
        assert excerpt["rank"] == rank and excerpt["videoId"] == first["id"]
        assert LABEL.fullmatch(excerpt["at"])
        assert f"t={int(excerpt['startSec'])}" in excerpt["link"]  # opens at the hit
        assert "cost" in excerpt["text"].lower() and "**" in excerpt["snippet"]
        assert excerpt["contextStartSec"] <= excerpt["startSec"]
        assert excerpt["contextEndSec"] >= excerpt["endSec"]
        assert excerpt["startSec"] - excerpt["contextStartSec"] <= 20 + 10  # one cue's slack
        lines = excerpt["context"].splitlines()
        assert len(lines) >= 3 and all(re.match(r"\[\d+:\d\d\] ", line) for line in lines)
    hits = [(e["startSec"], e["endSec"]) for e in first["excerpts"]]
    assert hits[0][1] <= hits[1][0] or hits[1][1] <= hits[0][0]  # distinct passages
    # the unsaved video was saved: its id now reads from the library
    outline = json.loads(server.text("get_outline", {"url": first["id"]}))
    assert outline["totalTokens"] > 0


def test_mistakes_are_error_results_and_the_server_keeps_serving(
    server: McpProcess, files: dict[str, Any]
) -> None:
    nothing = error_of(server.call("find_duplicates", {}))
    assert nothing["error"] == "bad-request" and nothing["hint"]
    assert set(nothing) >= {"error", "message", "hint", "attempts"}
    unknown = error_of(server.call("find_duplicates", {"collection": "no-such-collection"}))
    assert unknown["error"] == "not-found"
    eleven = error_of(
        server.call("research_videos", {"urls": [files["original"]] * 11, "query": "bitcoin"})
    )
    assert eleven["error"] == "bad-request"
    none = error_of(server.call("research_videos", {"urls": [], "query": "bitcoin"}))
    assert none["error"] == "bad-request"
    outside = error_of(
        server.call("research_videos", {"urls": ["/etc/passwd"], "query": "bitcoin"})
    )
    assert outside["error"] == "bad-request"
    found = _structured(
        server, "research_videos", {"urls": [files["original"]], "query": "proof of work"}
    )
    assert found["videos"][0]["excerpts"]
