"""The wire format between a library's owner and its clients: one JSON object per line.

Client to owner:
  `{"hello": {"pid": 123, "client": "v2c mcp", "version": 1}}` first, then any number of
  `{"id": n, "method": "list_videos", "params": {...}, "args": [...], "progress": true}`
  (`args` and `progress` optional) and `{"id": n, "cancel": true}`. A client may send its
  hello again at any time to change the name it is listed by (`v2c mcp` learns its agent's
  name from MCP `initialize` after it connected); the owner updates the name and answers
  nothing. An owner older than that answers with its hello again, which clients ignore:
  a hello answer after the first one carries nothing new.
Owner to client:
  `{"hello": {"pid": 456, "version": 1, "methods": [...]}}` in answer to the hello, then per
  call either `{"id": n, "result": ...}` or `{"id": n, "error": {code, message, hint,
  details}}`; a streaming call sends `{"id": n, "item": ...}` repeatedly and then
  `{"id": n, "end": true}` (or an error); `{"id": n, "progress": <Progress>}` may come
  before any of those when the caller passed a progress callback.
Lines are UTF-8 and JSON escapes newlines inside strings, so a newline always ends a message.
After a cancel the owner sends nothing more for that id.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import V2CError

PROTOCOL_VERSION = 1
# One message holds a whole result (a long transcript is a few MB); cap it well above that.
LINE_LIMIT = 64 * 1024 * 1024
Message = dict[str, Any]


class OwnerGone(V2CError):
    """The connection to the library's owner dropped: the session re-elects and retries."""

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(
            "upstream",
            message,
            "the library's owner process exited; retrying",
            details or {},
        )


def dumps(message: Message) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def loads(line: bytes) -> Message:
    """One message; V2CError("bad-request") for anything that is not a JSON object."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise V2CError("bad-request", f"not a JSON message: {exc}") from None
    if not isinstance(message, dict):
        raise V2CError("bad-request", "a message must be a JSON object")
    return message


def client_hello(pid: int, client: str) -> Message:
    return {"hello": {"pid": pid, "client": client, "version": PROTOCOL_VERSION}}


def owner_hello(pid: int, methods: frozenset[str]) -> Message:
    return {"hello": {"pid": pid, "version": PROTOCOL_VERSION, "methods": sorted(methods)}}


def request(
    call_id: int, method: str, params: Any, args: Any, *, progress: bool = False
) -> Message:
    message: Message = {"id": call_id, "method": method, "params": params}
    if args:
        message["args"] = args
    if progress:
        message["progress"] = True
    return message


def cancel(call_id: int) -> Message:
    return {"id": call_id, "cancel": True}


def result(call_id: int, value: Any) -> Message:
    return {"id": call_id, "result": value}


def error(call_id: int | None, wire_error: dict[str, Any]) -> Message:
    return {"id": call_id, "error": wire_error}


def item(call_id: int, value: Any) -> Message:
    return {"id": call_id, "item": value}


def end(call_id: int) -> Message:
    return {"id": call_id, "end": True}


def progress(call_id: int, value: Any) -> Message:
    return {"id": call_id, "progress": value}
