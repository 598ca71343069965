"""Server-sent events as OpenAI-compatible servers send them: `data:` JSON chunks, then `[DONE]`.

Lines arrive already split (httpx joins chunks cut mid-line and mid-character), but servers
differ in the rest: comment keep-alives (`: ping`), `event:` lines, CRLF endings, missing blank
lines between events, or no `[DONE]` at all. This module hides those differences and yields
one decoded JSON object per chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

DONE = "[DONE]"


class BadEvent(ValueError):
    """A `data:` payload that is not JSON."""


async def sse_payloads(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """The `data` of each event (multi-line data joined with newlines), comments skipped."""
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue  # comment: keep-alive
        name, _, value = line.partition(":")
        if name != "data":
            continue  # event:, id:, retry: carry nothing we use
        if value.startswith(" "):
            value = value[1:]
        if data and _complete_json(data):
            # a server that leaves out the blank line between events
            yield "\n".join(data)
            data = []
        data.append(value)
    if data:
        yield "\n".join(data)


def _complete_json(data: list[str]) -> bool:
    text = "\n".join(data)
    if text.strip() == DONE:
        return True
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


async def sse_chunks(lines: AsyncIterable[str]) -> AsyncIterator[dict[str, Any]]:
    """Decoded JSON chunks up to `[DONE]` (or the end of the stream); raises `BadEvent`."""
    async for payload in sse_payloads(lines):
        if payload.strip() == DONE:
            return
        try:
            chunk = json.loads(payload)
        except ValueError as exc:
            raise BadEvent(f"stream sent a chunk that is not JSON: {payload[:80]!r}") from exc
        if not isinstance(chunk, dict):
            raise BadEvent(f"stream sent a chunk that is not an object: {payload[:80]!r}")
        yield chunk
