"""`digest_videos` through MCP sampling: the official client lends its "model" to a real server.

The client declares sampling; its callback plays the client's model (tests/support/
digest_writer.py). It reads what the server really sent (the fenced transcript lines, the
JSON Schema in the system prompt) and answers each kind of request (one pass, a piece's
claims, organising the claims) with one real quote copied from a line it was shown and one
invented quote. The server must return
the real one verified, at its second with a timestamp link, and list the invented one as
rejected; a user who declines sampling gets the plan instead of an error; cancelling the
call cancels the sampling request in flight; `verify_quotes` checks an agent's own quotes
with the same verifier. Corpus: two Crash Course Psychology videos with their real YouTube
ids (saved before the server starts).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    TextContent,
)

from tests.conftest import corpus_path
from tests.mcp.harness import McpProcess, build_library, error_of, server_env, text_of
from tests.support.digest_writer import CLAIM, INVENTED, LINE, DigestWriter, fenced
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.ids import file_video_id
from v2c_desktop.core.render.tokens import estimate_tokens
from v2c_desktop.core.timecode import clock, parse_time

pytestmark = pytest.mark.corpus

CRASH = "transcripts/crashcourse-psychology"
CONSCIOUSNESS = "consciousness_crash_course_psychology_8_jReX7qKU2yc"
THERAPY = "getting_help_psychotherapy_crash_course_psychology_35_6nEL44QkL9w"
EULER = "transcripts/3blue1brown/2020_ldm-eulers-formula/captions.en.srt"  # 51 min
CONSCIOUSNESS_ID = "youtube:jReX7qKU2yc"
THERAPY_ID = "youtube:6nEL44QkL9w"
MODEL = "scripted-client-model"


@dataclass
class ClientModel:
    """The client's model (`DigestWriter`), and the user in front of it: a request whose
    question says DECLINE is refused, one that says WAIT waits until it is cancelled."""

    writer: DigestWriter = field(default_factory=DigestWriter)
    waiting: asyncio.Event | None = None
    cancelled: bool = False

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        system = params.system_prompt or ""
        user = "".join(
            m.content.text for m in params.messages if isinstance(m.content, TextContent)
        )
        if "DECLINE" in user:  # the user says no in the client's approval dialog
            return ErrorData(code=-1, message="User rejected the sampling request")
        if "WAIT" in user:
            self.waiting = self.waiting or asyncio.Event()
            self.waiting.set()
            try:
                await asyncio.sleep(120)
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        answer = self.writer.answer(system, user)
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=json.dumps(answer)),
            model=MODEL,
            stop_reason="endTurn",
        )

    @property
    def requests(self) -> list[tuple[str, str]]:
        return self.writer.requests

    @property
    def real(self) -> list[tuple[int, str, str]]:
        return self.writer.real


@pytest.fixture(scope="module")
def model() -> ClientModel:
    return ClientModel()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, model: ClientModel) -> Iterator[McpProcess]:
    base = tmp_path_factory.mktemp("digest")
    videos = base / "videos"
    videos.mkdir()
    for name in (CONSCIOUSNESS, THERAPY):
        for suffix in (".en.srt", ".info.json"):
            shutil.copy(corpus_path(f"{CRASH}/{name}{suffix}"), videos / f"{name}{suffix}")
    runtime = short_dir()
    library, home = base / "library.duckdb", base / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(videos), str(corpus_path(EULER))])
    process = McpProcess(library, server_env(home, runtime), sampling=model)
    yield process
    process.close()
    remove_dir(runtime)
    assert not process.junk, f"non-protocol output on stdout: {process.junk}"


def _digest(server: McpProcess, arguments: dict[str, Any]) -> dict[str, Any]:
    result = server.call("digest_videos", arguments, progress=True)
    assert not result.is_error, f"{text_of(result)}\n{server.stderr()[-3000:]}"
    body: dict[str, Any] = json.loads(text_of(result))
    assert body == result.structured_content
    return body


def test_the_tool_is_listed_truthfully(server: McpProcess) -> None:
    """Annotations, described inputs and output schemas: test_server.py checks every tool."""
    tools = {t.name: t for t in server.run(lambda s: s.list_tools()).tools}
    digest = tools["digest_videos"].input_schema["properties"]
    assert set(digest) == {"urls", "collection", "question", "maxTokensPerVideo"}
    assert digest["maxTokensPerVideo"]["default"] == 2000
    assert "sampling" in (tools["digest_videos"].description or "")


def test_a_digest_through_sampling_keeps_the_real_quote_and_rejects_the_invented(
    server: McpProcess, model: ClientModel
) -> None:
    model.requests.clear()
    model.real.clear()
    server.progress.clear()
    body = _digest(
        server,
        {
            "urls": [CONSCIOUSNESS_ID, THERAPY_ID],
            "question": "What is consciousness?",
            "maxTokensPerVideo": 5000,  # each video is one piece: one request for both
        },
    )
    assert body["mode"] == "digest" and body["passKind"] == "single"
    assert body["model"] == MODEL
    assert body["counts"]["requests"] == 1 and body["counts"]["answered"] == 1
    [(system, user)] = model.requests
    fenced(system, user)
    assert "What is consciousness?" in user
    assert '"points"' in system  # the answer's JSON Schema is stated in the prompt
    [(source, time, quote)] = model.real

    [point] = body["points"]
    [cited] = point["support"]
    assert cited["quote"] == quote
    assert cited["videoId"] == (CONSCIOUSNESS_ID if source == 1 else THERAPY_ID)
    assert abs(cited["startSec"] - parse_time(time)) <= 15  # snapped to the real caption
    assert cited["at"] == f"[{clock(cited['startSec'])}]"
    native = cited["videoId"].split(":", 1)[1]
    assert cited["link"].startswith("https://") and native in cited["link"]
    assert f"t={int(cited['startSec'])}" in cited["link"]
    assert point["kind"] == "single-source"

    [rejected] = body["unverified"]
    assert rejected["quote"] == INVENTED and rejected["reason"] == "quote-not-found"
    assert body["counts"]["citations"] == 1 and body["counts"]["unverified"] == 1
    assert quote in body["digest"] and cited["link"] in body["digest"]
    assert INVENTED not in body["digest"].split("## Claims left out")[0]
    assert {c["status"] for c in body["coverage"]} == {"read"}
    values = [p for p, _, _ in server.progress]
    assert values and values == sorted(set(values)), values


def test_pieces_that_do_not_fit_one_request_are_mapped_then_reduced(
    server: McpProcess, model: ClientModel
) -> None:
    model.requests.clear()
    model.real.clear()
    body = _digest(server, {"urls": [CONSCIOUSNESS_ID], "maxTokensPerVideo": 600})
    assert body["mode"] == "digest" and body["passKind"] == "map-reduce"
    assert body["status"] == "complete" and body["notes"] == []
    pieces = body["counts"]["pieces"]
    assert pieces >= 3
    assert body["counts"]["requests"] == pieces + 1 == len(model.requests)
    boundaries = set()
    for system, user in model.requests[:-1]:  # one piece each, fenced, within the budget
        boundaries.add(fenced(system, user))
        block = user.split("<<<", 1)[1]
        assert estimate_tokens(block) <= 600 + 60
        assert sum(1 for line in block.splitlines() if LINE.match(line)) >= 2
    assert len(boundaries) == pieces  # a fresh random boundary per request
    system, user = model.requests[-1]
    assert CLAIM.search(user.split(">>>", 1)[1].strip())  # the reduce sees claims, not text

    assert len(model.real) == pieces
    cited = [c for p in body["points"] for c in p["support"]]
    assert {c["quote"] for c in cited} == {q for _, _, q in model.real}
    assert all(c["link"] and c["at"].startswith("[") for c in cited)
    assert [u["reason"] for u in body["unverified"]] == ["quote-not-found"] * pieces
    assert all(u["quote"] == INVENTED for u in body["unverified"])


def test_a_declined_sampling_request_gives_the_plan_not_an_error(server: McpProcess) -> None:
    body = _digest(server, {"urls": [THERAPY_ID], "question": "DECLINE please"})
    assert body["mode"] == "plan"
    assert "User rejected the sampling request" in body["why"]
    assert body["videos"] and body["videos"][0]["pieces"]
    assert "verify_quotes" in body["instructions"]


def test_cancelling_the_call_cancels_the_sampling_request(
    server: McpProcess, model: ClientModel
) -> None:
    async def work(session: ClientSession) -> bool:
        call = asyncio.create_task(
            session.call_tool("digest_videos", {"urls": [THERAPY_ID], "question": "WAIT"})
        )
        for _ in range(300):
            if model.waiting is not None and model.waiting.is_set():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the sampling request never came")
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        for _ in range(200):  # the server abandons its request: the client hears of it
            if model.cancelled:
                return True
            await asyncio.sleep(0.05)
        return False

    assert server.run(work, timeout=60), "the sampling request was not cancelled"
    assert json.loads(server.text("list_collections")) is not None  # still serving


def test_bad_inputs_are_error_results(server: McpProcess) -> None:
    assert error_of(server.call("digest_videos", {}))["error"] == "bad-request"
    assert error_of(server.call("digest_videos", {"collection": "nothere"}))["error"] == (
        "not-found"
    )
    small = server.call("digest_videos", {"urls": [THERAPY_ID], "maxTokensPerVideo": 5})
    assert error_of(small)["error"] == "bad-request"
    euler = file_video_id(corpus_path(EULER))
    many = server.call("digest_videos", {"urls": [euler], "maxTokensPerVideo": 300})
    assert "sampling requests" in error_of(many)["message"]
    assert error_of(server.call("verify_quotes", {"quotes": []}))["error"] == "bad-request"
    assert "Title:" in server.text("get_transcript", {"url": THERAPY_ID, "maxTokens": 200})


def test_verify_quotes_checks_an_agents_own_quotes(server: McpProcess, model: ClientModel) -> None:
    transcript = server.text("get_transcript", {"url": CONSCIOUSNESS_ID})
    lines = [m for line in transcript.splitlines() if (m := LINE.match(line))]
    time, text = next((m.group(1), m.group(2)) for m in lines if len(m.group(2).split()) >= 8)
    quote = " ".join(text.split()[:8])
    later = clock(parse_time(time) + 300)
    body = json.loads(
        server.text(
            "verify_quotes",
            {
                "quotes": [
                    {"url": CONSCIOUSNESS_ID, "time": time, "quote": quote},
                    {"url": CONSCIOUSNESS_ID, "time": later, "quote": quote},
                    {"url": CONSCIOUSNESS_ID, "time": time, "quote": INVENTED},
                    {"url": "youtube:nothere1234", "time": "0:10", "quote": quote},
                ]
            },
        )
    )
    assert body["verified"] == 1 and body["failed"] == 3
    ok, elsewhere, invented, unknown = body["results"]
    assert ok["ok"] and ok["at"] == f"[{clock(ok['startSec'])}]" and "jReX7qKU2yc" in ok["link"]
    assert elsewhere["reason"] == "quote-at-other-time"
    assert abs(elsewhere["foundAtSec"] - ok["startSec"]) < 15
    assert invented["reason"] == "quote-not-found"
    assert not unknown["ok"] and "not-found" in unknown["reason"]
