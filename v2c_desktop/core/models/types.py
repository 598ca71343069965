"""The model interface every runtime implements and every feature calls.

Features (search, ask, briefs, MCP) never talk to llama.cpp, ONNX or an HTTP server
directly: they hold a `ChatModel` or an `EmbeddingModel`, so the chain can swap one model
for another and tests can run the same code against the real local runtimes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Role = Literal["system", "user", "assistant"]
ModelKind = Literal["chat", "embed"]
Runtime = Literal["llamacpp", "onnx", "openai-compat", "scripted", "mcp-sampling"]
AttemptOutcome = Literal["ok", "error", "skipped"]

Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class ChatOptions:
    """Generation settings; `grammar` (GBNF) is honoured by llama.cpp and ignored elsewhere."""

    max_tokens: int = 512
    temperature: float = 0.2
    top_p: float = 0.95
    stop: tuple[str, ...] = ()
    seed: int | None = None
    grammar: str | None = None
    # llama.cpp only: a repeat penalty against a small model's loops, and the text whose first
    # occurrence in the prompt ends its reusable prefix (a source block), saved for later turns;
    # `keep_first` ends a shorter one inside it that every answer shares (the system rules),
    # saved once so a new chat's first question evaluates only its sources and question
    repeat_penalty: float = 1.0
    keep_through: str | None = None
    keep_first: str | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    ms: float = 0.0
    first_token_ms: float | None = None
    # prompt tokens not evaluated: reused from the live context or (`restored_tokens`) from disk
    cached_tokens: int = 0
    restored_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ChatDelta:
    """A piece of streamed answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ChatReasoning:
    """Thinking text a model exposes separately from its answer (never part of the answer)."""

    text: str


@dataclass(frozen=True, slots=True)
class ChatDone:
    """The end of a stream: who answered, what it cost, why it stopped."""

    model_id: str
    usage: Usage
    finish_reason: str = "stop"


ChatEvent = ChatDelta | ChatReasoning | ChatDone


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What a model is and what it can do, for choosing and for telling the user.

    `capable` is False for plumbing-only models (SmolLM2-135M): they work, but their
    answers are too poor to present as the product's answers. `quality` is a rough rank
    (higher is stronger) that the `quality` policy sorts by; the catalog and the user's
    server settings set it.
    """

    id: str
    kind: ModelKind
    runtime: Runtime
    label: str = ""
    context_window: int = 4096
    dimensions: int | None = None
    capable: bool = True
    local: bool = True
    quality: int = 0


@dataclass(slots=True)
class Attempt:
    """One try of one model for one request, kept so the user can see why a model was used."""

    id: str
    stage: str
    outcome: AttemptOutcome
    reason: str = ""
    detail: str = ""
    ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "stage": self.stage, "outcome": self.outcome}
        if self.reason:
            out["reason"] = self.reason
        if self.detail:
            out["detail"] = self.detail
        out["ms"] = round(self.ms, 1)
        return out


@runtime_checkable
class ChatModel(Protocol):
    info: ModelInfo

    def chat(
        self, messages: Sequence[ChatMessage], options: ChatOptions = ...
    ) -> AsyncIterator[ChatEvent]:
        """Stream deltas, then one `ChatDone`. Cancelling the consumer stops generation."""
        ...

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = ...,
    ) -> dict[str, Any]:
        """A JSON object valid against `json_schema` (one repair call on failure)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens `text` costs in this model's prompt (an estimate where exact is costly)."""
        ...

    async def aclose(self) -> None: ...


@runtime_checkable
class EmbeddingModel(Protocol):
    info: ModelInfo

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row per text, shape (len(texts), dimensions)."""
        ...

    async def aclose(self) -> None: ...


@dataclass
class ModelCallFailed(Exception):
    """A model could not serve a request; `reason` is the attempt reason (timeout, ...)."""

    model_id: str
    reason: str
    detail: str = ""
    retry_after: float | None = None
    attempts: list[Attempt] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(f"{self.model_id}: {self.reason} {self.detail}".strip())
