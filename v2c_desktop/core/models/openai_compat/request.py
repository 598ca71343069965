"""Chat request bodies, and what to change when a server rejects one of their parameters.

"OpenAI-compatible" covers servers that reject parts of OpenAI's own API: older gateways
refuse `stream_options`, OpenAI's reasoning models refuse `max_tokens` and `temperature`,
and many local servers cannot do `json_schema` response formats. Each rejection becomes a
remembered quirk of that model, so the next request is sent in the shape the server accepts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from ..types import ChatMessage, ChatOptions
from .errors import is_context_exceeded

Quirk = Literal[
    "no-stream-options",
    "max-completion-tokens",
    "no-temperature",
    "no-top-p",
    "no-seed",
    "json-object",
]

_REJECTIONS: tuple[tuple[re.Pattern[str], Quirk], ...] = (
    (re.compile(r"stream_options", re.I), "no-stream-options"),
    (re.compile(r"max_completion_tokens", re.I), "max-completion-tokens"),
    (re.compile(r"temperature.*support|support.*temperature", re.I | re.S), "no-temperature"),
    (re.compile(r"top_p.*support|support.*top_p", re.I | re.S), "no-top-p"),
    (re.compile(r"\bseed\b.*support|support.*\bseed\b", re.I | re.S), "no-seed"),
)


def chat_body(
    model: str,
    messages: Sequence[ChatMessage],
    options: ChatOptions,
    quirks: set[Quirk],
    *,
    stream: bool,
    json_schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The /chat/completions body; `options.grammar` is llama.cpp-only and never sent."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "stream": stream,
    }
    if stream and "no-stream-options" not in quirks:
        body["stream_options"] = {"include_usage": True}
    tokens_key = "max_completion_tokens" if "max-completion-tokens" in quirks else "max_tokens"
    body[tokens_key] = options.max_tokens
    if "no-temperature" not in quirks:
        body["temperature"] = options.temperature
    if "no-top-p" not in quirks:
        body["top_p"] = options.top_p
    if options.stop:
        body["stop"] = list(options.stop)
    if options.seed is not None and "no-seed" not in quirks:
        body["seed"] = options.seed
    if json_schema is not None:
        body["response_format"] = response_format(json_schema, quirks)
    return body


def response_format(json_schema: dict[str, Any], quirks: set[Quirk]) -> dict[str, Any]:
    """Strict `json_schema` where the server has it, else plain `json_object` mode."""
    if "json-object" in quirks:
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {"name": "result", "schema": json_schema, "strict": True},
    }


def quirk_for_rejection(
    status: int, text: str, quirks: set[Quirk], *, wants_json_schema: bool = False
) -> Quirk | None:
    """The quirk that explains a 400/422 for a request we could send differently, if any.

    A prompt that is too long is never "adapted": it must reach the caller as `too-large`.
    With `wants_json_schema`, any other rejection is blamed on the `json_schema` format
    (servers word that refusal in too many ways to match), falling back to `json_object`.
    """
    if status not in (400, 422) or is_context_exceeded(text):
        return None
    for pattern, quirk in _REJECTIONS:
        if quirk not in quirks and pattern.search(text):
            return quirk
    if wants_json_schema and "json-object" not in quirks:
        return "json-object"
    return None
