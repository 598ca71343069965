"""Models served over the OpenAI-compatible HTTP API: Ollama, LM Studio, llama-server, vLLM
and hosted APIs reached with the user's own key.

This package is the public face; the work is split by concern into its modules:
`server` (where, which key, cooldowns), `http` (one request, failures mapped), `errors`
(status and body to attempt reason), `request` (bodies and per-server quirks), `sse`
(stream parsing), `json_answers` (checked JSON answers), `chat`, `embed` and `discovery`.
"""

from __future__ import annotations

from .chat import OpenAICompatChatModel
from .discovery import (
    DEFAULT_CANDIDATES,
    DetectedServer,
    LocalCandidate,
    detect_local_servers,
    list_models,
)
from .embed import OpenAICompatEmbeddingModel
from .errors import is_context_exceeded, parse_retry_after
from .server import (
    DEFAULT_COOLDOWN_S,
    Cooldowns,
    OpenAICompatServer,
    resolve_api_key,
    server_from_setting,
)

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_COOLDOWN_S",
    "Cooldowns",
    "DetectedServer",
    "LocalCandidate",
    "OpenAICompatChatModel",
    "OpenAICompatEmbeddingModel",
    "OpenAICompatServer",
    "detect_local_servers",
    "is_context_exceeded",
    "list_models",
    "parse_retry_after",
    "resolve_api_key",
    "server_from_setting",
]
