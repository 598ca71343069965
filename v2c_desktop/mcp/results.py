"""Tool results as the spec wants them: text, pretty JSON, structured content, or an error body.

An agent reads a failed call as data and corrects itself, so every failure is a result with
`isError: true` and the JSON body `{error, message, hint, attempts}`, never a protocol error
(which most clients show to the user as a crash instead of handing it to the model).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations

from v2c_desktop.core.errors import V2CError


def dumps(value: Any) -> str:
    """Pretty-printed JSON, UTF-8 kept readable (titles are often not ASCII)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def text_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


def json_result(data: Any) -> CallToolResult:
    return text_result(dumps(data))


def structured_result(data: dict[str, Any]) -> CallToolResult:
    """The same object as `structuredContent` and as JSON text, for clients without either."""
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(data))], structured_content=data
    )


def error_body(error: V2CError, attempts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "error": error.code,
        "message": error.message,
        "hint": error.hint_for("agent"),
        "attempts": list(attempts or error.details.get("attempts") or []),
    }
    extra = {k: v for k, v in error.details.items() if k != "attempts"}
    if extra:
        body["details"] = extra
    return body


def error_result(error: V2CError, attempts: list[dict[str, Any]] | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(error_body(error, attempts)))],
        is_error=True,
    )


def internal_error(exc: BaseException) -> V2CError:
    """A bug, told without a traceback: the details stay in the server's log on stderr."""
    return V2CError(
        "internal",
        f"the tool failed unexpectedly ({type(exc).__name__})",
        "this is a bug in v2c; the server's log (stderr) has the details. Try again or "
        "use another tool meanwhile",
    )


def reads(title: str, *, open_world: bool = True) -> ToolAnnotations:
    """A tool that only reads: it never imports or writes anything. `open_world`: it reads
    the web (a playlist's listing)."""
    return ToolAnnotations(
        title=title, read_only_hint=True, idempotent_hint=True, open_world_hint=open_world
    )


def imports(title: str) -> ToolAnnotations:
    """A tool that reads the library but imports a URL or file it is given first, so it is
    not read-only: the video stays in the library. Nothing is overwritten (a video already
    there is read as it is), and calling it again imports nothing more."""
    return writes(title, idempotent=True)


def writes(title: str, *, idempotent: bool, open_world: bool = True) -> ToolAnnotations:
    """A tool that adds to the library; none of ours deletes or overwrites anything."""
    return ToolAnnotations(
        title=title,
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


def replaces(title: str) -> ToolAnnotations:
    """A tool that replaces what the library holds (a video's transcript, with the caption
    track chosen): destructive in MCP's sense, since the old version is gone; choosing the
    same again changes nothing more."""
    return ToolAnnotations(
        title=title,
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=True,
        open_world_hint=True,
    )
