"""What a batch import reports: one outcome per input, and the batch as a whole.

Every face shows these the same way (a line per input as it settles, then the totals), and
they cross the owner socket, so they are plain dataclasses registered with `core.wire`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import Face, V2CError
from ..wire import wire
from .videos import Collection

Status = Literal["added", "updated", "skipped", "failed"]


#: `ImportOutcome.confirm`: a local archive may replace a video imported from the web.
REPLACE_WEB = "replace-web"
#: `ImportOutcome.confirm`: a web caption track the user chose may replace a transcript
#: read from their own files (a subtitle file, an archive) or transcribed on this computer.
REPLACE_LOCAL = "replace-local"


@wire
@dataclass
class ImportOutcome:
    """What happened to one input (or one video of a playlist, folder or URL list).

    `warnings` are things the user should know about an import that went through: damaged
    cues left out of the transcript (with their lines), a metadata file that was ignored.
    `confirm` names what the user may confirm to let a skipped item through, each face in
    its own way: "replace-web" (a local archive claims a video imported from the web; the
    CLI names `--replace-web`, the app asks in a dialog); "replace-local" (a caption track
    would replace a transcript from the user's own files or speech-to-text: only the user,
    choosing the track themselves, confirms it).
    """

    source: str
    status: Status
    video_id: str | None = None
    title: str = ""
    reason: str = ""
    error: V2CError | None = None
    warnings: list[str] = field(default_factory=list)
    confirm: str = ""

    def to_dict(self, face: Face | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "status": self.status}
        if self.video_id:
            out["video_id"] = self.video_id
        if self.title:
            out["title"] = self.title
        if self.reason:
            out["reason"] = self.reason
        if self.error is not None:
            out["error"] = self.error.to_dict(face)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.confirm:
            out["confirm"] = self.confirm
        return out


def outcome_line(outcome: ImportOutcome) -> str:
    """One line a person reads as an item settles: status, id, title or source, and why a
    skipped item was skipped or how many warnings an import has."""
    line = f"{outcome.status:8} {outcome.video_id or '-':28} {outcome.title or outcome.source}"
    if outcome.status == "skipped" and outcome.reason:
        line += f"  ({outcome.reason})"
    if outcome.warnings:
        count = len(outcome.warnings)
        line += f"  ({count} warning{'s' if count > 1 else ''})"
    return line


@wire
@dataclass
class BatchResult:
    outcomes: list[ImportOutcome] = field(default_factory=list)
    collection: Collection | None = None

    def count(self, status: Status) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def changed_ids(self) -> list[str]:
        return [
            o.video_id for o in self.outcomes if o.status in ("added", "updated") and o.video_id
        ]

    def to_dict(self, face: Face | None = None) -> dict[str, Any]:
        """Plain JSON; error hints worded for `face` (see `core.errors.render_hint`)."""
        return {
            "added": self.count("added"),
            "updated": self.count("updated"),
            "skipped": self.count("skipped"),
            "failed": self.count("failed"),
            "items": [o.to_dict(face) for o in self.outcomes],
            "collection": self.collection.id if self.collection else None,
        }


@wire
@dataclass(frozen=True)
class ListedItem:
    """One video an input holds, listed without importing it, with the id an import would
    give it (None where only the import can tell, e.g. a page yt-dlp must read first)."""

    kind: Literal["video", "local"]
    id: str | None
    platform: str
    native_id: str | None = None
    url: str | None = None
    path: str | None = None
    title: str | None = None


@wire
@dataclass(frozen=True)
class ItemListing:
    """What one input (playlist, channel, folder, URL list) holds: the first `limit`."""

    input: str
    items: list[ListedItem] = field(default_factory=list)
    total: int = 0

    @property
    def truncated(self) -> bool:
        return self.total > len(self.items)
