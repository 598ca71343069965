"""Progress reports that long work sends to whoever is watching (CLI stderr, Qt signals, MCP)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .wire import wire


@wire
@dataclass(frozen=True, slots=True)
class Progress:
    stage: str
    done: int
    total: int | None = None
    message: str = ""


ProgressCallback = Callable[[Progress], None]


def ignore_progress(_: Progress) -> None:
    """The default listener: nobody is watching."""
