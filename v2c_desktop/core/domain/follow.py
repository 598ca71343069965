"""Collections that follow their sources: what a collection follows and what a check found.

A collection filled from a playlist, a channel or a feed remembers that source; a refresh
reads the source again and imports only the uploads the library does not hold yet. Times are
UTC, ISO 8601 to the second (`2026-12-02T01:30:00Z`), '' when there was none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..wire import wire
from .imports import BatchResult


@wire
@dataclass(frozen=True, slots=True)
class PendingInput:
    """An upload (or a whole source) the last check found but could not import, and why."""

    input: str
    reason: str
    seen_at: str


@wire
@dataclass(frozen=True, slots=True)
class FollowState:
    """What a collection follows, its schedule and its last check.

    `every_hours` is None when the collection is refreshed only when asked; `next_check` is
    '' then. `last_new` counts the videos the last check imported.
    """

    collection_id: str
    sources: list[str] = field(default_factory=list)
    every_hours: float | None = None
    last_check: str = ""
    next_check: str = ""
    last_new: int = 0
    pending: list[PendingInput] = field(default_factory=list)

    @property
    def follows(self) -> bool:
        return bool(self.sources)


@wire
@dataclass
class RefreshResult:
    """One check of a collection's sources: every item's outcome and the state after it."""

    state: FollowState
    result: BatchResult = field(default_factory=BatchResult)

    @property
    def new(self) -> int:
        return self.result.count("added")
