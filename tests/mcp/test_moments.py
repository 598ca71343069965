"""`get_key_moments` through a real `v2c mcp` process and the official MCP client over stdio.

The server has no capable chat model (only the SmolLM2 test model), so a video's key
moments are extractive and say so: for a Crash Course video, its chapters, each with its
[m:ss], a timestamp link, a title and why. Progress arrives in order; a bad url or count is
an `isError` result the agent can read, and the server keeps serving.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.mcp.harness import (
    McpProcess,
    crashcourse_server,
    error_of,
    text_of,
)

pytestmark = pytest.mark.corpus

NAME = "consciousness_crash_course_psychology_8_jReX7qKU2yc"
VIDEO = "youtube:jReX7qKU2yc"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    with crashcourse_server(tmp_path_factory.mktemp("moments"), NAME) as process:
        yield process


def test_the_tool_is_listed_with_its_output_schema_and_hints(server: McpProcess) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    tool = tools["get_key_moments"]
    assert tool.output_schema is not None
    assert {"moments", "method", "label"} <= set(tool.output_schema["properties"])
    inputs = tool.input_schema["properties"]
    assert set(inputs) == {"url", "count", "model"}
    assert inputs["count"]["minimum"] == 1 and inputs["count"]["maximum"] == 20
    notes = tool.annotations
    assert notes is not None and notes.title == "Get key moments"
    assert notes.read_only_hint is False and notes.destructive_hint is False  # imports first
    assert notes.idempotent_hint is True


def test_key_moments_are_extractive_chapters_with_times_links_and_progress(
    server: McpProcess,
) -> None:
    server.progress.clear()
    result = server.call("get_key_moments", {"url": VIDEO, "count": 5}, progress=True)
    assert not result.is_error, text_of(result)
    body = result.structured_content
    assert body is not None and json.loads(text_of(result)) == body
    assert body["videoId"] == VIDEO and body["method"] == "extractive"
    assert body["basis"] == "chapters" and body["model"] is None
    assert body["label"] == "extractive: the video's chapters"
    assert "no chat model chose these" in body["note"] and "small test model" in body["note"]
    moments = body["moments"]
    assert 3 <= len(moments) <= 5
    seconds = [m["startSec"] for m in moments]
    assert seconds == sorted(seconds)
    for moment in moments:
        whole = int(moment["startSec"])
        clock = f"{whole // 60}:{whole % 60:02d}"
        assert moment["time"] == f"[{clock}]"
        assert moment["url"] == f"https://www.youtube.com/watch?v=jReX7qKU2yc&t={whole}s"
        assert moment["link"] == f"[{clock}]({moment['url']})"
        assert moment["title"] and moment["why"].startswith("Chapter ")
    assert any(m["title"] == "Selective Attention" for m in moments)  # a long chapter
    values = [p for p, _, _ in server.progress]
    assert values and values == sorted(values) and values[-1] == 2
    assert any("key moments" in (m or "") for _, _, m in server.progress), server.progress


def test_a_bad_url_or_count_is_an_error_result(server: McpProcess) -> None:
    missing = error_of(server.call("get_key_moments", {"url": "no such video anywhere"}))
    assert missing["error"] in ("not-found", "bad-request", "unsupported-input"), missing
    assert missing["message"] and missing["hint"]
    too_many = error_of(server.call("get_key_moments", {"url": VIDEO, "count": 50}))
    assert too_many["error"] == "bad-request"
    assert not server.call("get_key_moments", {"url": VIDEO, "count": 1}).is_error
