"""Saved chats as every face shows them: a title, a scope and the turns with citations.

Citations are kept as plain dicts, exactly as they were shown when the answer was given,
so a reopened chat shows the same links and quotes even after a video is re-imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..wire import wire


@wire
@dataclass
class ChatMessageRecord:
    idx: int
    role: str
    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    unverified: list[int] = field(default_factory=list)
    model: str | None = None
    extractive: bool = False
    created_at: str = ""


@wire
@dataclass
class ChatRecord:
    """A saved chat; `scope` is what it asks about: video ids and/or a collection."""

    id: str
    title: str
    scope: dict[str, Any]
    created_at: str = ""
    updated_at: str = ""
    messages: list[ChatMessageRecord] = field(default_factory=list)
