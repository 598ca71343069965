"""`open_transcript_viewer` and its MCP Apps view through a real `v2c mcp` process over stdio.

The tool names its view (`_meta.ui.resourceUri`); the result is structured (metadata,
chapters and segments with times and timestamp links) with a text fallback of `[m:ss]`
lines; the view is one self-contained HTML page that writes untrusted text only through
`textContent`. A bad url is an `isError` result and the server keeps serving.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from mcp.types import TextResourceContents

from tests.mcp.harness import (
    McpProcess,
    crashcourse_server,
    error_of,
    text_of,
)
from v2c_desktop.core.domain.videos import Segment, Transcript, Video, VideoRecord
from v2c_desktop.mcp.tools.viewer import MAX_SEGMENTS, fallback_text, transcript_view

pytestmark = pytest.mark.corpus

NAME = "consciousness_crash_course_psychology_8_jReX7qKU2yc"
VIDEO = "youtube:jReX7qKU2yc"
VIEWER = "ui://v2c/transcript-viewer.html"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    with crashcourse_server(tmp_path_factory.mktemp("viewer"), NAME) as process:
        yield process


def test_the_tool_is_listed_with_its_view_schema_and_hints(server: McpProcess) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    tool = tools["open_transcript_viewer"]
    assert tool.meta == {"ui": {"resourceUri": VIEWER}}
    assert tool.output_schema is not None
    assert {"videoId", "chapters", "segments", "viewer"} <= set(tool.output_schema["properties"])
    assert set(tool.input_schema["properties"]) == {"url"}
    notes = tool.annotations
    assert notes is not None and notes.title == "Open transcript viewer"
    assert notes.read_only_hint is False and notes.destructive_hint is False  # imports first
    assert notes.idempotent_hint is True
    assert "2,000" in (tool.description or "")


def test_a_saved_video_gives_structured_lines_with_links_and_a_text_fallback(
    server: McpProcess,
) -> None:
    result = server.call("open_transcript_viewer", {"url": VIDEO})
    assert not result.is_error, text_of(result)
    body = result.structured_content
    assert body is not None
    assert body["videoId"] == VIDEO and body["viewer"] == VIEWER
    assert "Crash Course" in body["title"] and body["channel"] == "CrashCourse"
    assert body["url"] and "jReX7qKU2yc" in body["url"]
    assert not body["truncated"] and body["totalSegments"] == len(body["segments"]) > 50
    starts = [s["start"] for s in body["segments"]]
    assert starts == sorted(starts) and starts[-1] > 300
    for segment in body["segments"]:
        whole = int(segment["start"])
        assert segment["time"] == f"[{whole // 60}:{whole % 60:02d}]"
        assert segment["url"] == f"https://www.youtube.com/watch?v=jReX7qKU2yc&t={whole}s"
        assert segment["end"] >= segment["start"]
    assert len(body["chapters"]) >= 3
    assert any(c["title"] == "Selective Attention" for c in body["chapters"])
    assert all(c["url"].endswith(f"&t={int(c['start'])}s") for c in body["chapters"])
    text = text_of(result).splitlines()
    assert text[0].startswith(body["title"]) and body["duration"] in text[0]
    first = body["segments"][0]
    assert f"{first['time']} {first['text']}" in text
    assert sum(1 for line in text if re.match(r"\[\d+:\d\d\] ", line)) == len(body["segments"])


def test_the_view_is_one_self_contained_html_page_using_text_content(
    server: McpProcess,
) -> None:
    listed = {str(r.uri): r for r in server.run(lambda s: s.list_resources()).resources}
    assert listed[VIEWER].mime_type == "text/html;profile=mcp-app"
    read = server.run(lambda s: s.read_resource(VIEWER))
    (page,) = read.contents
    assert isinstance(page, TextResourceContents)
    assert page.mime_type == "text/html;profile=mcp-app"
    html = page.text
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    assert "innerHTML" not in html and "outerHTML" not in html
    assert "textContent" in html and "Content-Security-Policy" in html
    assert "ui/initialize" in html and "ui/notifications/tool-result" in html
    assert "structuredContent" in html and "ui/open-link" in html
    assert '"_blank"' in html and "noopener" in html


def test_a_bad_url_is_an_error_result_and_the_server_still_serves(server: McpProcess) -> None:
    missing = error_of(server.call("open_transcript_viewer", {"url": "no such video anywhere"}))
    assert missing["error"] in ("not-found", "bad-request", "unsupported-input"), missing
    assert missing["message"] and missing["hint"]
    assert not server.call("open_transcript_viewer", {"url": VIDEO}).is_error


def test_a_long_transcript_is_cut_at_the_cap_and_says_so() -> None:
    segments = [Segment(i * 5.0, i * 5.0 + 4.5, f"line {i}") for i in range(MAX_SEGMENTS + 150)]
    record = VideoRecord(
        Video("youtube:abcdefghijk", "Long talk", "youtube", "abcdefghijk", "Someone"),
        Transcript("creator", "en", segments),
    )
    view = transcript_view(record)
    assert view["truncated"] is True and view["totalSegments"] == MAX_SEGMENTS + 150
    assert len(view["segments"]) == MAX_SEGMENTS
    assert view["segments"][-1]["time"] == "[2:46:35]"  # h:mm:ss past an hour
    text = fallback_text(view)
    assert text.splitlines()[0].startswith("Long talk - Someone (")
    assert f"the first {MAX_SEGMENTS} of {MAX_SEGMENTS + 150} lines" in text
