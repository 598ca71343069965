"""What an export to Notion reports: one line per video, and where the pages are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..wire import wire

PageStatus = Literal["created", "updated", "unchanged", "failed"]


@wire
@dataclass(frozen=True, slots=True)
class NotionPage:
    """A video's page: `created` now, `updated` (its transcript changed: a new page, the
    earlier one left in Notion for the user to delete), `unchanged` (the page made last
    time is still there), or `failed` with the reason."""

    video_id: str
    title: str
    status: PageStatus
    url: str = ""
    reason: str = ""


@wire
@dataclass
class NotionReport:
    parent: str
    pages: list[NotionPage] = field(default_factory=list)

    def count(self, status: PageStatus) -> int:
        return sum(1 for p in self.pages if p.status == status)
