"""OpenAI-compatible models against a real HTTP server on loopback.

Everything goes over real sockets (tests/support/openai_server.py) because the behaviours
that matter here - SSE chunks cut by TCP, a client hanging up mid-stream, a stalled server -
do not exist in a mock transport.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import aclosing
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any, Protocol, TypeVar

import httpx
import numpy as np
import pytest

from tests.support.openai_server import (
    CHAT,
    CONTEXT_ERRORS,
    EMBEDDINGS,
    MODELS,
    TAGS,
    OpenAITestServer,
    Reply,
    Stream,
    chat_reply,
    context_too_large,
    embedding_vector,
    error_reply,
    json_schema_unsupported,
    rate_limited,
    server_error,
    unauthorized,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.openai_compat import (
    Cooldowns,
    LocalCandidate,
    OpenAICompatChatModel,
    OpenAICompatEmbeddingModel,
    OpenAICompatServer,
    detect_local_servers,
    is_context_exceeded,
    list_models,
    parse_retry_after,
    resolve_api_key,
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
    Vectors,
)

T = TypeVar("T")
KEY = "sk-test-SECRET-0123456789"
QUESTION = [ChatMessage("system", "Be brief."), ChatMessage("user", "Say hello")]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["answer", "n"],
    "additionalProperties": False,
}


class Run(Protocol):
    def __call__(self, coro: Coroutine[Any, Any, T]) -> T: ...


@pytest.fixture
def run() -> Iterator[Run]:
    """Run coroutines on one event loop for the whole test, as the app does.

    A model's own HTTP client pools connections bound to the loop that opened them, so
    separate `asyncio.run` calls would strand them.
    """
    with asyncio.Runner() as runner:
        yield runner.run


@pytest.fixture
def http(run: Run) -> Iterator[httpx.AsyncClient]:
    """One client for the test's models, closed on the test's loop."""
    client = httpx.AsyncClient()
    yield client
    run(client.aclose())


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def endpoint(server: OpenAITestServer, **options: Any) -> OpenAICompatServer:
    return OpenAICompatServer(base_url=server.base_url, name="test", **options)


async def collect(model: ChatModel, messages: Sequence[ChatMessage] = QUESTION) -> list[ChatEvent]:
    return [event async for event in model.chat(messages)]


def chat_failure(run: Run, model: OpenAICompatChatModel) -> ModelCallFailed:
    with pytest.raises(ModelCallFailed) as caught:
        run(collect(model))
    return caught.value


def text_of(events: Sequence[ChatEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ChatDelta))


# -- streaming ----------------------------------------------------------------------------


def test_stream_yields_deltas_in_order_then_done_with_server_usage(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Stream(["Hel", "lo", ", ", "world"], usage=(11, 4)))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    events = run(collect(model))

    assert [e for e in events if isinstance(e, ChatDelta)] == [
        ChatDelta("Hel"),
        ChatDelta("lo"),
        ChatDelta(", "),
        ChatDelta("world"),
    ]
    done = events[-1]
    assert isinstance(done, ChatDone) and len([e for e in events if isinstance(e, ChatDone)]) == 1
    assert done.model_id == "openai-compat/test/test-chat"
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (11, 4)
    assert done.finish_reason == "stop"
    assert done.usage.first_token_ms is not None and done.usage.ms >= done.usage.first_token_ms
    body = server.requests_to(CHAT)[0].body
    assert body["model"] == "test-chat" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Say hello"},
    ]
    assert body["max_tokens"] == 512 and body["temperature"] == 0.2
    assert server.requests_to(CHAT)[0].authorization is None  # no key, no header


def test_options_are_sent_and_grammar_is_not(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)
    options = ChatOptions(max_tokens=64, temperature=0.7, stop=("\n\n",), seed=7, grammar="x")

    async def go() -> None:
        async for _ in model.chat(QUESTION, options):
            pass

    run(go())
    body = server.requests_to(CHAT)[0].body
    assert (body["max_tokens"], body["temperature"], body["seed"]) == (64, 0.7, 7)
    assert body["stop"] == ["\n\n"] and "grammar" not in body


def test_usage_is_estimated_when_the_server_sends_none(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Stream(["seven characters"], send_usage=False))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    done = run(collect(model))[-1]

    assert isinstance(done, ChatDone)
    assert done.usage.completion_tokens == math.ceil(len("seven characters") / 3.5)
    expected_prompt = sum(model.count_tokens(m.content) + 4 for m in QUESTION)
    assert done.usage.prompt_tokens == expected_prompt


def test_chunks_split_mid_line_with_keepalives_and_crlf_reassemble(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    pieces = ["Grüße ", "aus ", "Köln ✓", " — 東京"]
    server.script(CHAT, Stream(pieces, split=True, keepalive=True, crlf=True))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    events = run(collect(model))

    assert [e.text for e in events if isinstance(e, ChatDelta)] == pieces
    assert isinstance(events[-1], ChatDone)


def test_stream_without_done_marker_still_finishes(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Stream(["a", "b"], done=False, finish_reason="length"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    events = run(collect(model))

    assert text_of(events) == "ab"
    assert isinstance(events[-1], ChatDone) and events[-1].finish_reason == "length"


def test_server_that_ignores_stream_true_still_answers(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, chat_reply("all at once"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    events = run(collect(model))

    assert text_of(events) == "all at once" and isinstance(events[-1], ChatDone)


def test_error_event_mid_stream_fails_after_the_deltas(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Stream(["partial"], error={"message": "CUDA out of memory"}))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)
    seen: list[ChatEvent] = []

    async def go() -> None:
        async for event in model.chat(QUESTION):
            seen.append(event)

    with pytest.raises(ModelCallFailed) as caught:
        run(go())
    assert seen == [ChatDelta("partial")]
    assert caught.value.reason == "server-error" and "CUDA" in caught.value.detail


def test_garbage_in_the_stream_is_a_bad_response(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Reply(200, body=b"data: {not json\n\n", content_type="text/event-stream"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert chat_failure(run, model).reason == "bad-response"


def test_stopping_the_consumer_closes_the_stream(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Stream(["tick"] * 400, delay=0.05))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    async def read_two() -> list[ChatEvent]:
        got: list[ChatEvent] = []
        async with aclosing(model.chat(QUESTION)) as stream:  # type: ignore[type-var]
            async for event in stream:
                got.append(event)
                if len(got) == 2:
                    break
        return got

    assert run(read_two()) == [ChatDelta("tick"), ChatDelta("tick")]
    # the whole answer takes 20 s to send; a stream left open is seen finishing it
    (end,) = server.wait_for_stream_ends(timeout=60)
    assert end.cut and end.sent < end.pieces, end  # hung up on, long before its end


def test_cancelling_the_consumer_task_closes_the_stream(run: Run, server: OpenAITestServer) -> None:
    server.script(CHAT, Stream(["tick"] * 400, delay=0.05))

    async def go() -> int:
        async with httpx.AsyncClient() as http:
            model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)
            received = 0
            three = asyncio.Event()

            async def consume() -> None:
                nonlocal received
                async for _ in model.chat(QUESTION):
                    received += 1
                    if received == 3:
                        three.set()

            task = asyncio.create_task(consume())
            await three.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return received

    assert run(go()) >= 3
    (end,) = server.wait_for_stream_ends(timeout=60)  # longer than the 20 s answer
    assert end.cut and end.sent < end.pieces, end


# -- failures -----------------------------------------------------------------------------


def test_429_is_rate_limited_then_cooldown_without_a_request(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, rate_limited("7"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    first = chat_failure(run, model)
    second = chat_failure(run, model)

    assert (first.reason, first.retry_after) == ("rate-limited", 7.0)
    assert second.reason == "cooldown" and second.retry_after is not None
    assert 0 < second.retry_after <= 7
    assert len(server.requests_to(CHAT)) == 1  # the cooldown sent nothing
    with pytest.raises(ModelCallFailed, match="cooldown"):
        run(model.complete_json(QUESTION, SCHEMA))
    assert len(server.requests_to(CHAT)) == 1


def test_cooldown_without_retry_after_is_30_s_and_shared(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    now = [1000.0]
    cooldowns = Cooldowns(clock=lambda: now[0])
    server.script(CHAT, rate_limited(None))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", cooldowns=cooldowns, http=http)
    twin = OpenAICompatChatModel(endpoint(server), "test-chat", cooldowns=cooldowns, http=http)
    other = OpenAICompatChatModel(endpoint(server), "other", cooldowns=cooldowns, http=http)

    assert chat_failure(run, model).retry_after is None
    assert cooldowns.remaining(model.info.id) == 30
    assert chat_failure(run, twin).reason == "cooldown"
    assert text_of(run(collect(other)))  # another model of the server is not cooling down
    now[0] += 31
    assert text_of(run(collect(model))) == "Hello from the test server."
    assert len(server.requests_to(CHAT)) == 3


def test_retry_after_http_date(run: Run, server: OpenAITestServer, http: httpx.AsyncClient) -> None:
    later = datetime.now(UTC) + timedelta(seconds=120)
    server.script(CHAT, rate_limited(format_datetime(later, usegmt=True)))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    failure = chat_failure(run, model)

    assert failure.reason == "rate-limited"
    assert failure.retry_after is not None and 100 < failure.retry_after <= 120


def test_parse_retry_after_forms() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_401_is_auth_and_never_shows_the_key(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, unauthorized(echo_key=KEY))
    model = OpenAICompatChatModel(endpoint(server, api_key=KEY), "test-chat", http=http)

    failure = chat_failure(run, model)

    assert failure.reason == "auth"
    assert KEY not in str(failure) and KEY not in failure.detail and KEY not in repr(failure)
    assert server.requests_to(CHAT)[0].authorization == f"Bearer {KEY}"


def test_403_is_auth(run: Run, server: OpenAITestServer, http: httpx.AsyncClient) -> None:
    server.script(CHAT, error_reply(403, "not allowed"))
    assert (
        chat_failure(run, OpenAICompatChatModel(endpoint(server), "m", http=http)).reason == "auth"
    )


def test_500_is_server_error(run: Run, server: OpenAITestServer, http: httpx.AsyncClient) -> None:
    server.script(CHAT, server_error())
    failure = chat_failure(run, OpenAICompatChatModel(endpoint(server), "test-chat", http=http))
    assert failure.reason == "server-error" and "500" in failure.detail


def test_404_model_is_not_found(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Reply(404, {"error": 'model "nope" not found, try pulling it first'}))
    failure = chat_failure(run, OpenAICompatChatModel(endpoint(server), "nope", http=http))
    assert failure.reason == "not-found" and "pulling" in failure.detail


def test_stalled_server_is_a_timeout(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    # Past the read timeout the server would answer: without the timeout the call succeeds.
    server.script(CHAT, Stream(["late"], first_delay=3))
    model = OpenAICompatChatModel(endpoint(server, read_timeout=0.3), "test-chat", http=http)

    failure = chat_failure(run, model)

    assert failure.reason == "timeout"


def test_stall_mid_stream_is_a_timeout(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Stream(["a", "b"], delay=3))
    model = OpenAICompatChatModel(endpoint(server, read_timeout=0.3), "test-chat", http=http)
    assert chat_failure(run, model).reason == "timeout"


def test_closed_port_is_unreachable(run: Run, http: httpx.AsyncClient) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    model = OpenAICompatChatModel(OpenAICompatServer(base, "gone"), "m", http=http)
    failure = chat_failure(run, model)
    assert failure.reason == "unreachable" and "gone" in failure.detail


@pytest.mark.parametrize("style", sorted(CONTEXT_ERRORS))
def test_context_length_errors_are_too_large(
    run: Run, server: OpenAITestServer, style: str, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, context_too_large(style))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    failure = chat_failure(run, model)

    assert failure.reason == "too-large"
    assert len(server.requests_to(CHAT)) == 1  # never "adapted" and retried


def test_too_large_phrasings() -> None:
    assert is_context_exceeded("input is too large to process. increase the physical batch size")
    assert is_context_exceeded('{"error":{"code":"context_length_exceeded"}}')
    assert is_context_exceeded("Prompt is too long: 210000 tokens > 200000 maximum")
    assert not is_context_exceeded("Invalid value for 'temperature'")
    assert not is_context_exceeded("response_format json_schema is not supported")


def test_rejected_stream_options_are_dropped_and_remembered(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, error_reply(400, "Unrecognized request argument supplied: stream_options"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert text_of(run(collect(model))) == "Hello from the test server."
    assert text_of(run(collect(model)))

    bodies = [r.body for r in server.requests_to(CHAT)]
    assert len(bodies) == 3
    assert "stream_options" in bodies[0]
    assert "stream_options" not in bodies[1] and "stream_options" not in bodies[2]


def test_reasoning_models_get_max_completion_tokens(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    message = (
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead."
    )
    server.script(CHAT, error_reply(400, message, code="unsupported_parameter"))
    model = OpenAICompatChatModel(endpoint(server), "o-test", http=http)

    run(collect(model))

    retry = server.requests_to(CHAT)[1].body
    assert retry["max_completion_tokens"] == 512 and "max_tokens" not in retry


# -- JSON ---------------------------------------------------------------------------------


def test_complete_json_asks_for_a_strict_json_schema(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, chat_reply('{"answer": "yes", "n": 2}'))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert run(model.complete_json(QUESTION, SCHEMA)) == {"answer": "yes", "n": 2}
    body = server.requests_to(CHAT)[0].body
    assert body["stream"] is False
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "result", "schema": SCHEMA, "strict": True},
    }
    assert "JSON Schema" in body["messages"][0]["content"]  # for servers that ignore it


def test_json_schema_400_falls_back_to_json_object(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, json_schema_unsupported(), chat_reply('{"answer": "ok", "n": 1}'))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert run(model.complete_json(QUESTION, SCHEMA)) == {"answer": "ok", "n": 1}
    server.script(CHAT, chat_reply('{"answer": "again", "n": 3}'))
    assert run(model.complete_json(QUESTION, SCHEMA))["answer"] == "again"

    formats = [r.body["response_format"]["type"] for r in server.requests_to(CHAT)]
    assert formats == ["json_schema", "json_object", "json_object"]  # remembered


def test_invalid_json_gets_one_repair_call(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(
        CHAT, chat_reply("Sure! Here it is: {answer: yes}"), chat_reply('{"answer":"y","n":1}')
    )
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert run(model.complete_json(QUESTION, SCHEMA)) == {"answer": "y", "n": 1}

    requests = server.requests_to(CHAT)
    assert len(requests) == 2
    repair = requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Sure! Here it is: {answer: yes}"}
    assert "not valid" in repair[-1]["content"]


def test_schema_violation_is_repaired(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, chat_reply('{"answer": "y"}'), chat_reply('{"answer":"y","n":5}'))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert run(model.complete_json(QUESTION, SCHEMA)) == {"answer": "y", "n": 5}
    assert (
        "'n' is a required property" in server.requests_to(CHAT)[1].body["messages"][-1]["content"]
    )


def test_failed_repair_is_an_upstream_error(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, chat_reply("nope"), chat_reply('{"answer": 1, "n": "x"}'))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    with pytest.raises(V2CError) as caught:
        run(model.complete_json(QUESTION, SCHEMA))

    assert caught.value.code == "upstream"
    assert len(server.requests_to(CHAT)) == 2


def test_fenced_json_needs_no_repair(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, chat_reply('```json\n{"answer": "f", "n": 0}\n```'))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    assert run(model.complete_json(QUESTION, SCHEMA)) == {"answer": "f", "n": 0}
    assert len(server.requests_to(CHAT)) == 1


def test_non_json_http_body_is_a_bad_response(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, Reply(200, body=b"<html>proxy</html>", content_type="text/html"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    with pytest.raises(ModelCallFailed) as caught:
        run(model.complete_json(QUESTION, SCHEMA))
    assert caught.value.reason == "bad-response"


def test_complete_json_too_large_is_not_mistaken_for_a_format_refusal(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(CHAT, context_too_large("llamacpp"))
    model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)

    with pytest.raises(ModelCallFailed) as caught:
        run(model.complete_json(QUESTION, SCHEMA))
    assert caught.value.reason == "too-large" and len(server.requests_to(CHAT)) == 1


# -- embeddings ---------------------------------------------------------------------------


def expected_rows(texts: Sequence[str], dimensions: int = 8) -> Vectors:
    rows: Vectors = np.array([embedding_vector(t, dimensions) for t in texts], dtype=np.float32)
    normalised: Vectors = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normalised


def test_embeddings_are_batched_ordered_and_normalised(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.reverse_embeddings = True  # the server may send rows in any order
    texts = [f"text number {i}" for i in range(150)]
    model = OpenAICompatEmbeddingModel(endpoint(server), "test-embed", http=http)

    vectors = run(model.embed(texts))

    requests = server.requests_to(EMBEDDINGS)
    assert [len(r.body["input"]) for r in requests] == [64, 64, 22]
    assert requests[0].body["model"] == "test-embed"
    assert vectors.dtype == np.float32 and vectors.shape == (150, 8)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(vectors, expected_rows(texts), rtol=1e-5, atol=1e-6)
    assert model.info.dimensions == 8  # learned from the first response
    assert model.info.id == "openai-compat/test/test-embed" and model.info.kind == "embed"


def test_embeddings_check_given_dimensions(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    model = OpenAICompatEmbeddingModel(endpoint(server), "test-embed", dimensions=16, http=http)

    with pytest.raises(ModelCallFailed) as caught:
        run(model.embed(["a"]))
    assert caught.value.reason == "bad-response" and "16" in caught.value.detail


def test_embeddings_of_nothing_and_of_blank_text(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    model = OpenAICompatEmbeddingModel(endpoint(server), "test-embed", dimensions=8, http=http)

    assert run(model.embed([])).shape == (0, 8)
    assert not server.requests_to(EMBEDDINGS)
    assert run(model.embed(["", "x"])).shape == (2, 8)
    assert server.requests_to(EMBEDDINGS)[0].body["input"] == [" ", "x"]


def test_embeddings_rate_limit_starts_a_cooldown(
    run: Run, server: OpenAITestServer, http: httpx.AsyncClient
) -> None:
    server.script(EMBEDDINGS, rate_limited("5"))
    model = OpenAICompatEmbeddingModel(endpoint(server), "test-embed", http=http)

    with pytest.raises(ModelCallFailed, match="rate-limited"):
        run(model.embed(["a"]))
    with pytest.raises(ModelCallFailed, match="cooldown"):
        run(model.embed(["a"]))
    assert len(server.requests_to(EMBEDDINGS)) == 1


# -- discovery ----------------------------------------------------------------------------


def test_list_models_openai_shape(run: Run, server: OpenAITestServer) -> None:
    async def go() -> list[str]:
        async with httpx.AsyncClient() as http:
            return await list_models(endpoint(server), http)

    assert run(go()) == ["test-chat", "test-embed"]
    assert not server.requests_to(TAGS)


def test_list_models_falls_back_to_ollama_tags(run: Run, server: OpenAITestServer) -> None:
    server.models = ["llama3.2:3b", "nomic-embed-text:latest"]
    server.script(MODELS, error_reply(404, "404 page not found"))

    async def go() -> list[str]:
        async with httpx.AsyncClient() as http:
            return await list_models(endpoint(server), http)

    assert run(go()) == ["llama3.2:3b", "nomic-embed-text:latest"]
    assert len(server.requests_to(TAGS)) == 1


def test_list_models_sends_the_key_from_the_environment(
    run: Run, server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("V2C_TEST_KEY", KEY)
    hosted = endpoint(server, api_key_env="V2C_TEST_KEY")

    async def go() -> list[str]:
        async with httpx.AsyncClient() as http:
            return await list_models(hosted, http)

    run(go())
    assert server.requests_to(MODELS)[0].authorization == f"Bearer {KEY}"


def test_detection_finds_the_server_and_skips_a_closed_port(
    run: Run, server: OpenAITestServer
) -> None:
    candidates = [
        LocalCandidate("ollama", server.base_url),
        LocalCandidate("lmstudio", f"http://127.0.0.1:{closed_port()}/v1"),
    ]

    async def go() -> list[Any]:
        async with httpx.AsyncClient() as http:
            return await detect_local_servers(http, candidates=candidates, timeout=0.5)

    found = run(go())

    assert len(found) == 1
    assert (found[0].name, found[0].base_url) == ("ollama", server.base_url)
    assert found[0].models == ("test-chat", "test-embed")
    assert found[0].server().is_local


def test_detection_gives_up_on_a_server_that_does_not_answer(
    run: Run, server: OpenAITestServer
) -> None:
    # it does answer, 3 s late: a probe that waited would list it
    server.script(MODELS, Reply(200, {"object": "list", "data": []}, delay=3))

    async def go() -> list[Any]:
        async with httpx.AsyncClient() as http:
            candidates = [LocalCandidate("slow", server.base_url)]
            return await detect_local_servers(http, candidates=candidates, timeout=0.2)

    assert run(go()) == []


# -- keys, ids and the protocol -----------------------------------------------------------


def test_key_resolution_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("V2C_TEST_KEY", "from-env")
    base = "http://127.0.0.1:1/v1"
    assert resolve_api_key(OpenAICompatServer(base, "s")) is None
    assert resolve_api_key(OpenAICompatServer(base, "s", api_key_env="V2C_TEST_KEY")) == "from-env"
    both = OpenAICompatServer(base, "s", api_key_env="V2C_TEST_KEY", api_key="from-settings")
    assert resolve_api_key(both) == "from-settings"
    assert resolve_api_key(OpenAICompatServer(base, "s", api_key_env="V2C_UNSET_VAR")) is None


def test_the_key_is_never_in_repr_or_logs(
    run: Run, server: OpenAITestServer, caplog: pytest.LogCaptureFixture, http: httpx.AsyncClient
) -> None:
    caplog.set_level(logging.DEBUG)
    hosted = endpoint(server, api_key=KEY)
    model = OpenAICompatChatModel(hosted, "test-chat", http=http)
    embedder = OpenAICompatEmbeddingModel(hosted, "test-embed", http=http)
    server.script(CHAT, unauthorized(echo_key=KEY), Reply(500, {"error": f"bad key {KEY}"}))
    server.script(CHAT, chat_reply("not json"), chat_reply('{"answer": "a", "n": 1}'))

    chat_failure(run, model)
    chat_failure(run, model)
    run(collect(model))
    run(model.complete_json(QUESTION, SCHEMA))
    run(embedder.embed(["x"]))

    assert KEY not in repr(hosted) and KEY not in str(hosted)
    assert KEY not in repr(model) and KEY not in repr(embedder)
    assert caplog.records, "the calls should have logged something"
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert KEY not in caplog.text


def test_model_info_and_protocols(run: Run, server: OpenAITestServer) -> None:
    model = OpenAICompatChatModel(
        endpoint(server), "test-chat", context_window=32768, capable=False
    )
    embedder = OpenAICompatEmbeddingModel(endpoint(server), "test-embed")
    hosted = OpenAICompatChatModel(OpenAICompatServer("https://api.example.com/v1", "x"), "m")

    assert isinstance(model, ChatModel) and isinstance(embedder, EmbeddingModel)
    assert model.info.id == "openai-compat/test/test-chat"
    assert model.info.runtime == "openai-compat" and model.info.kind == "chat"
    assert (model.info.context_window, model.info.capable, model.info.local) == (
        32768,
        False,
        True,
    )
    assert not hosted.info.local
    assert model.count_tokens("") == 0 and model.count_tokens("x" * 35) == 10
    run(model.aclose())
    run(embedder.aclose())
    run(hosted.aclose())


def test_a_shared_client_is_left_open(run: Run, server: OpenAITestServer) -> None:
    async def go() -> bool:
        async with httpx.AsyncClient() as http:
            model = OpenAICompatChatModel(endpoint(server), "test-chat", http=http)
            await collect(model)
            await model.aclose()
            return http.is_closed

    assert run(go()) is False


def test_cooldowns_expire() -> None:
    now = [0.0]
    cooldowns = Cooldowns(clock=lambda: now[0])
    assert cooldowns.until("m") is None and cooldowns.remaining("m") == 0
    cooldowns.start("m", 10)
    cooldowns.start("m", 2)  # a shorter cooldown never cuts a longer one short
    assert cooldowns.remaining("m") == 10
    now[0] = 10.5
    assert cooldowns.until("m") is None
    cooldowns.start("m")
    cooldowns.clear("m")
    assert cooldowns.remaining("m") == 0
