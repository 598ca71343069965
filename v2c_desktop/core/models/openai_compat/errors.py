"""Turn what an OpenAI-compatible server did wrong into one `ModelCallFailed` reason.

The chain decides what to do next from the reason alone (wait, skip, try a smaller prompt),
so every server's way of saying the same thing must land on the same reason: llama-server,
vLLM, OpenAI and Ollama each word "the prompt does not fit" differently. Details are short,
name the server, and never contain the API key (auth failures do not even echo the body,
since some APIs quote part of the key back).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from ..types import ModelCallFailed
from .server import OpenAICompatServer, scrub

_DETAIL_CHARS = 300
_TOO_LARGE = re.compile(
    r"context[_ ]length[_ ]exceeded"  # OpenAI's error code
    r"|maximum context length"  # OpenAI, vLLM, Mistral
    r"|exceeds? (?:the )?(?:available |maximum )?context"  # llama-server, Ollama
    r"|exceed_context_size"  # llama-server's error type
    r"|context (?:length|size|window) (?:has been |was |is )?(?:exceeded|overflow)"  # LM Studio
    r"|context (?:the )?overflows|context length of only"  # LM Studio
    r"|(?:longer|larger|greater) than the (?:maximum|max) model length"  # vLLM
    r"|longer than the model'?s? (?:context|maximum)"
    r"|prompt (?:is )?too long"  # Ollama, Anthropic-style gateways
    r"|input (?:is )?too (?:large|long)"  # llama-server (batch), TGI
    r"|too many (?:input )?tokens"
    r"|reduce the length of the messages",  # OpenAI, Groq
    re.IGNORECASE,
)


def is_context_exceeded(text: str) -> bool:
    """Whether an error body says the prompt does not fit the model's window."""
    return bool(_TOO_LARGE.search(text))


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After value: delta-seconds or an HTTP date."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def retry_after_of(headers: httpx.Headers) -> float | None:
    """Retry-After, or Azure/OpenAI's `retry-after-ms`, in seconds."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def error_message(body: str) -> str:
    """The human part of an error body: `{"error":{"message"}}`, `{"error":"..."}`, etc."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return " ".join(body.split())[:_DETAIL_CHARS]
    for candidate in (
        data.get("error") if isinstance(data, dict) else None,
        data,
    ):
        if isinstance(candidate, str):
            return candidate[:_DETAIL_CHARS]
        if isinstance(candidate, dict):
            for key in ("message", "detail", "error"):
                value = candidate.get(key)
                if isinstance(value, str) and value:
                    return value[:_DETAIL_CHARS]
    return " ".join(body.split())[:_DETAIL_CHARS]


def failure_for_status(
    server: OpenAICompatServer,
    model_id: str,
    status: int,
    headers: httpx.Headers,
    body: str,
) -> ModelCallFailed:
    """The failure an HTTP error status means, with a short, key-free detail."""
    prefix = f"{server.name} answered HTTP {status}"
    message = scrub(error_message(body), server)
    detail = f"{prefix}: {message}" if message else prefix
    if status == 429:
        return ModelCallFailed(model_id, "rate-limited", detail, retry_after_of(headers))
    if status in (401, 403):
        hint = "the API key was refused" if status == 401 else "the API key may not use this"
        return ModelCallFailed(model_id, "auth", f"{prefix}: {hint}")
    if status == 413 or (400 <= status < 500 and is_context_exceeded(body)):
        return ModelCallFailed(model_id, "too-large", detail)
    if status >= 500:
        return ModelCallFailed(model_id, "server-error", detail)
    if status == 404:
        return ModelCallFailed(model_id, "not-found", detail)
    return ModelCallFailed(model_id, "bad-request", detail)


def failure_for_payload(server: OpenAICompatServer, model_id: str, error: Any) -> ModelCallFailed:
    """The failure an `{"error": ...}` object sent inside a 200 stream or body means."""
    text = json.dumps({"error": error})
    message = scrub(error_message(text), server)
    detail = f"{server.name} reported an error: {message}"
    if is_context_exceeded(text):
        return ModelCallFailed(model_id, "too-large", detail)
    return ModelCallFailed(model_id, "server-error", detail)


def failure_for_transport(
    server: OpenAICompatServer, model_id: str, exc: httpx.HTTPError, what: str
) -> ModelCallFailed:
    """The failure a network-level error means; `what` names the call ("chat stream")."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError):
        detail = f"{server.name} is not reachable at {server.shown_url} ({type(exc).__name__})"
        return ModelCallFailed(model_id, "unreachable", detail)
    if isinstance(exc, httpx.TimeoutException):
        return ModelCallFailed(model_id, "timeout", f"{server.name} {what} timed out")
    if isinstance(exc, httpx.RemoteProtocolError | httpx.DecodingError):
        detail = f"{server.name} {what} broke the HTTP protocol ({type(exc).__name__})"
        return ModelCallFailed(model_id, "bad-response", detail)
    detail = f"{server.name} {what} lost its connection ({type(exc).__name__})"
    return ModelCallFailed(model_id, "unreachable", detail)


def bad_response(server: OpenAICompatServer, model_id: str, why: str) -> ModelCallFailed:
    return ModelCallFailed(model_id, "bad-response", scrub(f"{server.name} {why}", server))
