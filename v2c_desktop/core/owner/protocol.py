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

The owner trusts no client blindly: only a peer running as the same user is served (checked
with SO_PEERCRED where the platform has it), a client must say hello before any call, a
request line may hold at most `REQUEST_LINE_LIMIT` bytes, at most `MAX_CONNECTIONS` clients
are served at once, and text a client sent is echoed back (in errors) and logged clipped
to `ECHO_LIMIT` characters.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import V2CError

PROTOCOL_VERSION = 1
# One message holds a whole result (a long transcript is a few MB); cap it well above that.
LINE_LIMIT = 64 * 1024 * 1024
# What the owner reads from a client: requests carry names, ids and settings, never a whole
# transcript, so a few MB is plenty; a longer line is refused and the connection closed.
REQUEST_LINE_LIMIT = 8 * 1024 * 1024
# How much of a text a client sent comes back in an error (or goes to a log).
ECHO_LIMIT = 200
# Every text of an error the owner sends, whatever made it (a backstop for `ECHO_LIMIT`).
ERROR_TEXT_LIMIT = 1000
# Clients one owner serves at once (the app, a few CLIs and agents use a handful).
MAX_CONNECTIONS = 64
# Seconds a new connection may stay silent before its hello: a client that never introduces
# itself must not hold one of the `MAX_CONNECTIONS` places for ever.
HELLO_TIMEOUT_S = 10.0
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


def clip(value: object, limit: int = ECHO_LIMIT) -> str:
    """`value` as text of at most `limit` characters (and an ellipsis), to echo or log."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit} more characters)"


def clip_error(wire_error: dict[str, Any]) -> dict[str, Any]:
    """A wire error with every text in it clipped to `ERROR_TEXT_LIMIT` characters."""

    def clipped(value: Any) -> Any:
        if isinstance(value, str):
            return clip(value, ERROR_TEXT_LIMIT)
        if isinstance(value, list):
            return [clipped(v) for v in value[:100]]
        if isinstance(value, dict):
            return {clip(k, ECHO_LIMIT): clipped(v) for k, v in list(value.items())[:100]}
        return value

    result: dict[str, Any] = clipped(wire_error)
    return result


def dumps(message: Message) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def loads(line: bytes) -> Message:
    """One message; V2CError("bad-request") for anything that is not a JSON object."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise V2CError("bad-request", f"not a JSON message: {clip(str(exc))}") from None
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
    return {"id": call_id, "error": clip_error(wire_error)}


def item(call_id: int, value: Any) -> Message:
    return {"id": call_id, "item": value}


def end(call_id: int) -> Message:
    return {"id": call_id, "end": True}


def progress(call_id: int, value: Any) -> Message:
    return {"id": call_id, "progress": value}
