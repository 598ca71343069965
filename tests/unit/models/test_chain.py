"""Choosing models and falling back: policies, too-large, cooldown, no switch after a delta."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.scripted_model import ScriptedChatModel
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.chain import (
    ChainRun,
    ModelChoice,
    chat_stream,
    complete_json,
    order_chain,
)
from v2c_desktop.core.models.types import ChatDelta, ChatDone, ChatMessage, ChatOptions

QUESTION = [ChatMessage("user", "What is said about gradient descent?")]


def collect(chain, messages=QUESTION, options=ChatOptions(max_tokens=64)):  # type: ignore[no-untyped-def]
    run = ChainRun()

    async def go() -> list[object]:
        return [e async for e in chat_stream(chain, messages, options, run)]

    return asyncio.run(go()), run


def test_local_only_excludes_remote_and_prefers_capable_models() -> None:
    tiny = ScriptedChatModel("llamacpp/tiny", capable=False)
    good = ScriptedChatModel("llamacpp/good", quality=60)
    remote = ScriptedChatModel("openai-compat/host/big", local=False, quality=90)
    chain = order_chain([tiny, remote, good], ModelChoice())
    assert [m.info.id for m in chain] == ["llamacpp/good", "llamacpp/tiny"]
    quality = order_chain([tiny, remote, good], ModelChoice(policy="quality"))
    assert [m.info.id for m in quality] == [
        "openai-compat/host/big",
        "llamacpp/good",
        "llamacpp/tiny",
    ]


def test_named_model_strict_and_with_fallback() -> None:
    a, b = ScriptedChatModel("llamacpp/a", quality=10), ScriptedChatModel("llamacpp/b", quality=20)
    assert [m.info.id for m in order_chain([a, b], ModelChoice(model="llamacpp/a"))] == [
        "llamacpp/a",
        "llamacpp/b",
    ]
    assert [
        m.info.id for m in order_chain([a, b], ModelChoice(model="llamacpp/a", strict=True))
    ] == ["llamacpp/a"]
    with pytest.raises(V2CError) as err:
        order_chain([a, b], ModelChoice(model="llamacpp/zzz"))
    assert err.value.code == "not-found" and "llamacpp/a" in err.value.hint


def test_too_large_and_failures_fall_back_before_the_first_delta() -> None:
    small = ScriptedChatModel("llamacpp/small-window", context_window=40)
    broken = ScriptedChatModel("openai-compat/h/down", fail_with="unreachable", local=False)
    limited = ScriptedChatModel("openai-compat/h/busy", fail_with="cooldown", local=False)
    good = ScriptedChatModel("llamacpp/good", replies=["Gradient descent follows the slope [1]."])
    events, run = collect([small, broken, limited, good])
    assert "".join(e.text for e in events if isinstance(e, ChatDelta)) == (
        "Gradient descent follows the slope [1]."
    )
    assert isinstance(events[-1], ChatDone) and events[-1].model_id == "llamacpp/good"
    assert [(a.id, a.outcome, a.reason) for a in run.attempts] == [
        ("llamacpp/small-window", "skipped", "too-large"),
        ("openai-compat/h/down", "error", "unreachable"),
        ("openai-compat/h/busy", "skipped", "cooldown"),
        ("llamacpp/good", "ok", ""),
    ]
    assert run.served_by == "llamacpp/good"
    assert broken.calls and not small.calls  # too-large is decided without calling the model


def test_no_switch_after_words_were_shown() -> None:
    flaky = ScriptedChatModel(
        "llamacpp/flaky", replies=["one two three"], fail_after_first_delta=True
    )
    spare = ScriptedChatModel("llamacpp/spare")
    with pytest.raises(V2CError) as err:
        collect([flaky, spare])
    assert err.value.code == "upstream"
    assert not spare.calls
    assert err.value.details["attempts"][0]["reason"] == "server-error"


def test_everything_failing_is_an_upstream_error_with_attempts_and_a_hint() -> None:
    with pytest.raises(V2CError) as err:
        collect([ScriptedChatModel("llamacpp/x", fail_with="timeout")])
    assert "v2c models pull" in err.value.hint_for("cli")
    assert "Settings → Models" in err.value.hint_for("app")  # each face words it its way
    assert "v2c models" not in err.value.hint_for("app")
    assert [a["id"] for a in err.value.details["attempts"]] == ["llamacpp/x"]
    with pytest.raises(V2CError):
        collect([])


def test_complete_json_falls_back_and_records_attempts() -> None:
    bad = ScriptedChatModel("llamacpp/bad", fail_with="bad-response")
    good = ScriptedChatModel("llamacpp/good", replies=['{"score": 7}'])
    run = ChainRun(stage="rerank")
    result = asyncio.run(
        complete_json([bad, good], QUESTION, {"type": "object"}, ChatOptions(max_tokens=32), run)
    )
    assert result == {"score": 7}
    assert [(a.stage, a.outcome) for a in run.attempts] == [("rerank", "error"), ("rerank", "ok")]
