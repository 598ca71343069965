"""The models a library's owner can answer and search with, as every face lists them.

Models are the owner's: the chat model an answer uses is the one the owner process loads,
so the CLI, the MCP tools and the app's settings all list (and pull, add, remove, test)
through `CoreAPI`, and see what answers will really use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..wire import wire

ModelSource = Literal["catalog", "local-file", "server", "detected"]


@wire
@dataclass(frozen=True)
class ModelRow:
    """One model: a catalog entry (installed or how to install), a local file, or a model
    of a configured or detected OpenAI-compatible server. `api_key_env` names the
    environment variable of a server's key, never its value.

    `path` is the installed file; `removable` says whether `remove_model` may delete or
    forget it (not a model that comes with the app or a package); `partial_bytes` is how
    much of an interrupted download is kept for a resume. `tokens_per_s` is how fast it
    writes on this computer, `speed` whether that was "measured" (`test_model`) or
    "estimated" from a measured local model of another size ("" when unknown)."""

    id: str
    kind: Literal["chat", "embed"]
    runtime: str
    label: str
    source: ModelSource
    installed: bool
    local: bool = True
    capable: bool = True
    context_window: int | None = None
    dimensions: int | None = None
    size_bytes: int | None = None
    licence: str | None = None
    recommended: bool = False
    note: str = ""
    install: str = ""
    api_key_env: str | None = None
    path: str = ""
    removable: bool = False
    partial_bytes: int = 0
    tokens_per_s: float | None = None
    speed: Literal["measured", "estimated", ""] = ""


@wire
@dataclass(frozen=True)
class ModelList:
    """Every model, the chat chain in the order `ask` tries it, and what search embeds with."""

    models: list[ModelRow] = field(default_factory=list)
    chat_chain: list[str] = field(default_factory=list)
    policy: str = "local-only"
    embedding_model: str = ""

    def of_kind(self, kind: str) -> list[ModelRow]:
        return [m for m in self.models if m.kind == kind]


@wire
@dataclass(frozen=True)
class InstalledModelInfo:
    """A model file now on this machine: where, how big, and how it got there."""

    id: str
    path: str
    kind: str
    runtime: str
    source: str
    size: int
    sha256: str | None = None
    added_at: str = ""


@wire
@dataclass(frozen=True)
class ModelTest:
    """What `test_model` measured: loading, prompt and generation speed, or embedding rate."""

    model: str
    kind: Literal["chat", "embed"]
    load_s: float
    first_token_s: float | None = None
    total_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_per_s: float | None = None
    generation_tokens_per_s: float | None = None
    answer: str = ""
    dimensions: int | None = None
    texts: int | None = None
    texts_per_s: float | None = None


@wire
@dataclass(frozen=True)
class DetectedServerInfo:
    """Ollama or LM Studio answering on this machine, with the models it serves."""

    name: str
    base_url: str
    models: tuple[str, ...] = ()
