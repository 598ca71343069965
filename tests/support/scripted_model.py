"""A scripted chat model for fast, deterministic pipeline tests.

It lives under tests/ so it can never be selected outside tests; every feature that uses it
also has an end-to-end test through the real llama.cpp runtime.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from v2c_desktop.core.models.types import (
    ChatDelta,
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatOptions,
    ModelCallFailed,
    ModelInfo,
    Usage,
)


@dataclass
class ScriptedChatModel:
    """Answers with the next scripted reply, split into word deltas.

    `fail_with` makes every call fail before the first delta with that attempt reason;
    `fail_after_first_delta` fails mid-stream, to test that the chain never switches then.
    """

    model_id: str
    replies: list[str] = field(default_factory=lambda: ["scripted answer"])
    context_window: int = 4096
    local: bool = True
    capable: bool = True
    quality: int = 0
    fail_with: str | None = None
    fail_after_first_delta: bool = False
    delay: float = 0.0
    calls: list[list[ChatMessage]] = field(default_factory=list)

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(
            id=self.model_id,
            kind="chat",
            runtime="scripted",
            context_window=self.context_window,
            capable=self.capable,
            local=self.local,
            quality=self.quality,
        )

    def _next_reply(self) -> str:
        return self.replies[min(len(self.calls) - 1, len(self.replies) - 1)]

    async def chat(
        self, messages: Sequence[ChatMessage], options: ChatOptions = ChatOptions()
    ) -> AsyncIterator[ChatEvent]:
        self.calls.append(list(messages))
        if self.fail_with:
            raise ModelCallFailed(self.model_id, self.fail_with, "scripted failure")
        words = self._next_reply().split(" ")
        for i, word in enumerate(words):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield ChatDelta(word if i == 0 else " " + word)
            if self.fail_after_first_delta:
                raise ModelCallFailed(self.model_id, "server-error", "died mid-answer")
        yield ChatDone(self.model_id, Usage(self.count_tokens(str(messages)), len(words)))

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = ChatOptions(),
    ) -> dict[str, Any]:
        self.calls.append(list(messages))
        if self.fail_with:
            raise ModelCallFailed(self.model_id, self.fail_with, "scripted failure")
        result = json.loads(self._next_reply())
        assert isinstance(result, dict)
        return result

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    async def aclose(self) -> None:
        return None
