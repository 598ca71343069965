"""A chat model served by an OpenAI-compatible server: streamed answers and checked JSON.

The answer streams over SSE so the user sees words as they are generated, and so stopping
the consumer closes the HTTP response at once: the server notices the disconnect and stops
generating, instead of burning a local GPU on an answer nobody reads.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import httpx

from ...errors import V2CError
from ..types import (
    ChatDelta,
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatOptions,
    ChatReasoning,
    ModelInfo,
    Usage,
)
from .errors import bad_response, failure_for_payload
from .http import Adapter, Endpoint
from .json_answers import checked_object, repair_messages, with_schema
from .request import Quirk, chat_body, quirk_for_rejection
from .server import RUNTIME, Cooldowns, OpenAICompatServer, model_id
from .sse import BadEvent, sse_chunks

log = logging.getLogger("v2c_desktop.core.models.openai_compat")

_DEFAULT_OPTIONS = ChatOptions()
_Chunks = AsyncGenerator[dict[str, Any], None]
CHARS_PER_TOKEN = 3.5  # a safe-side average for English prose across common tokenizers
TOKENS_PER_MESSAGE = 4  # role markers of the chat template


@dataclass
class _Progress:
    """What a stream has delivered so far."""

    started: float
    parts: list[str] = field(default_factory=list)
    chunks: int = 0
    first_token_ms: float | None = None
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None


class OpenAICompatChatModel:
    """`ChatModel` over `/chat/completions`; id `openai-compat/<server.name>/<model>`.

    `http` is shared with the caller (who closes it); without one the model owns a client
    and `aclose` closes it. `cooldowns` is shared by whoever builds models so that a 429
    seen by one request spares the server for every request.
    """

    def __init__(
        self,
        server: OpenAICompatServer,
        model: str,
        *,
        http: httpx.AsyncClient | None = None,
        context_window: int = 8192,
        capable: bool = True,
        quality: int = 0,
        cooldowns: Cooldowns | None = None,
        label: str | None = None,
    ) -> None:
        self.server = server
        self.model = model
        self.cooldowns = cooldowns if cooldowns is not None else Cooldowns()
        self.info = ModelInfo(
            id=model_id(server, model),
            kind="chat",
            runtime=RUNTIME,
            label=label or f"{model} ({server.name})",
            context_window=context_window,
            capable=capable,
            local=server.is_local,
            quality=quality,
        )
        self._owns_http = http is None
        self._http = http if http is not None else httpx.AsyncClient()
        self._endpoint = Endpoint(server, self._http, self.info.id, self.cooldowns)
        self._quirks: set[Quirk] = set()

    def __repr__(self) -> str:
        return f"OpenAICompatChatModel({self.info.id!r}, base_url={self.server.shown_url!r})"

    async def chat(
        self, messages: Sequence[ChatMessage], options: ChatOptions = _DEFAULT_OPTIONS
    ) -> AsyncIterator[ChatEvent]:
        """Stream deltas, then one `ChatDone`; failures raise `ModelCallFailed`.

        A model in cooldown fails on the first iteration, before any request is sent.
        """
        self._endpoint.check_cooldown()
        messages = list(messages)
        progress = _Progress(started=time.perf_counter())
        response = await self._endpoint.send(
            "POST",
            "/chat/completions",
            lambda: chat_body(self.model, messages, options, self._quirks, stream=True),
            stream=True,
            adapt=self._adapter(wants_json_schema=False),
            what="chat stream",
        )
        try:
            if "application/json" in response.headers.get("content-type", ""):
                # a server that ignored `stream: true` and answered in one piece
                chunks = self._single_chunk(response)
            else:
                chunks = self._stream_chunks(response)
            async with aclosing(chunks):
                async for chunk in chunks:
                    thinking = _reasoning_of(chunk)
                    if thinking:
                        yield ChatReasoning(thinking)
                    text = self._take(chunk, progress)
                    if text:
                        yield ChatDelta(text)
        finally:
            await response.aclose()  # also when the consumer stops: the server stops too
        if progress.chunks == 0:
            raise bad_response(self.server, self.info.id, "chat stream ended without a chunk")
        usage = self._usage(progress, messages)
        yield ChatDone(self.info.id, usage, progress.finish_reason or "stop")

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = _DEFAULT_OPTIONS,
    ) -> dict[str, Any]:
        """An object valid against `json_schema`; one repair call, then `V2CError` upstream."""
        self._endpoint.check_cooldown()
        conversation = with_schema(messages, json_schema)
        answer = await self._complete(conversation, options, json_schema)
        value, problem = checked_object(answer, json_schema)
        if value is not None:
            return value
        log.info("%s sent invalid JSON (%s); asking once for a repair", self.info.id, problem)
        repaired = await self._complete(
            repair_messages(conversation, answer, problem), options, json_schema
        )
        value, problem = checked_object(repaired, json_schema)
        if value is not None:
            return value
        raise V2CError(
            "upstream",
            f"{self.info.id} did not return valid JSON, even after one repair: {problem}",
            "try a larger model, or one whose server supports JSON schema output",
            {"model_id": self.info.id, "problem": problem},
        )

    def count_tokens(self, text: str) -> int:
        """An estimate (characters / 3.5): servers have no cheap common tokenize endpoint."""
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # -- internals ---------------------------------------------------------------------

    def _adapter(self, *, wants_json_schema: bool) -> Adapter:
        def adapt(status: int, text: str) -> bool:
            quirk = quirk_for_rejection(
                status, text, self._quirks, wants_json_schema=wants_json_schema
            )
            if quirk is None:
                return False
            self._quirks.add(quirk)
            return True

        return adapt

    async def _stream_chunks(self, response: httpx.Response) -> _Chunks:
        try:
            async for chunk in sse_chunks(response.aiter_lines()):
                yield chunk
        except BadEvent as exc:
            raise bad_response(self.server, self.info.id, str(exc)) from exc
        except httpx.HTTPError as exc:
            raise self._endpoint.transport_failure(exc, "chat stream") from exc

    async def _single_chunk(self, response: httpx.Response) -> _Chunks:
        try:
            await response.aread()
            data = response.json()
        except httpx.HTTPError as exc:
            raise self._endpoint.transport_failure(exc, "chat") from exc
        except ValueError as exc:
            raise bad_response(self.server, self.info.id, "chat sent non-JSON") from exc
        if not isinstance(data, dict):
            raise bad_response(self.server, self.info.id, "chat sent a non-object")
        yield data

    def _take(self, chunk: dict[str, Any], progress: _Progress) -> str:
        """Record one chunk (stream or whole completion) and return its answer text."""
        if chunk.get("error"):
            raise failure_for_payload(self.server, self.info.id, chunk["error"])
        progress.chunks += 1
        if isinstance(chunk.get("usage"), dict):
            progress.usage = chunk["usage"]
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return ""  # the usage-only last chunk
        choice: dict[str, Any] = choices[0]
        if isinstance(choice.get("finish_reason"), str):
            progress.finish_reason = choice["finish_reason"]
        part = choice.get("delta") or choice.get("message") or {}
        # `reasoning_content` (thinking models) is not the answer: see `_reasoning_of`
        text = part.get("content") if isinstance(part, dict) else None
        if not isinstance(text, str) or not text:
            return ""
        if progress.first_token_ms is None:
            progress.first_token_ms = (time.perf_counter() - progress.started) * 1000
        progress.parts.append(text)
        return text

    def _usage(self, progress: _Progress, messages: Sequence[ChatMessage]) -> Usage:
        ms = (time.perf_counter() - progress.started) * 1000
        reported = progress.usage or {}
        prompt = reported.get("prompt_tokens")
        completion = reported.get("completion_tokens")
        if not isinstance(prompt, int):
            prompt = sum(self.count_tokens(m.content) + TOKENS_PER_MESSAGE for m in messages)
        if not isinstance(completion, int):
            completion = self.count_tokens("".join(progress.parts))
        return Usage(prompt, completion, ms, progress.first_token_ms)

    async def _complete(
        self,
        messages: Sequence[ChatMessage],
        options: ChatOptions,
        json_schema: dict[str, Any],
    ) -> str:
        """The text of one non-streamed completion in JSON mode."""
        data = await self._endpoint.json(
            "POST",
            "/chat/completions",
            lambda: chat_body(
                self.model, messages, options, self._quirks, stream=False, json_schema=json_schema
            ),
            adapt=self._adapter(wants_json_schema=True),
            what="JSON completion",
        )
        if not isinstance(data, dict):
            raise bad_response(self.server, self.info.id, "JSON completion sent a non-object")
        progress = _Progress(started=0.0)
        text = self._take(data, progress)
        if not text and progress.finish_reason is None:
            raise bad_response(self.server, self.info.id, "JSON completion had no message")
        return text


def _reasoning_of(chunk: dict[str, Any]) -> str:
    """The thinking text of a chunk (`reasoning_content` in DeepSeek/vLLM/llama-server,
    `reasoning` in Ollama and OpenRouter), shown apart from the answer."""
    choices = chunk.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ""
    part = choices[0].get("delta") or choices[0].get("message") or {}
    if not isinstance(part, dict):
        return ""
    for key in ("reasoning_content", "reasoning"):
        value = part.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
