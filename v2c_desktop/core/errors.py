"""Typed errors that every surface (CLI, MCP, GUI) can show as message + hint.

A failure the user can act on is never a traceback: it carries a stable code that
scripts and agents branch on, a message that says what happened, and a hint that
says what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ErrorCode = Literal[
    "bad-request",
    "not-found",
    "unsupported-input",
    "no-transcript",
    "upstream",
    "rate-limited",
    "library-in-use",
    "internal",
]


@dataclass
class V2CError(Exception):
    """A failure with a code, a message and a hint for the user."""

    code: ErrorCode
    message: str
    hint: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.code, "message": self.message, "hint": self.hint}
        if self.details:
            out["details"] = self.details
        return out


def bad_request(message: str, hint: str = "") -> V2CError:
    return V2CError("bad-request", message, hint)


def not_found(message: str, hint: str = "") -> V2CError:
    return V2CError("not-found", message, hint)


def unsupported_input(message: str, hint: str = "") -> V2CError:
    return V2CError("unsupported-input", message, hint)


def no_transcript(message: str, hint: str = "") -> V2CError:
    return V2CError("no-transcript", message, hint)


def upstream(message: str, hint: str = "") -> V2CError:
    return V2CError("upstream", message, hint)


def rate_limited(message: str, hint: str = "") -> V2CError:
    return V2CError("rate-limited", message, hint)
