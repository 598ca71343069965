"""What `CoreAPI.get_key_moments` returns: a video's key moments and who chose them.

Every face shows the same object: the MCP tool as JSON with links, the app as markers on
the player's scrub bar. It crosses the owner socket, so it is a `@wire` dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..wire import wire

Method = Literal["model", "extractive"]
#: How the moments were found: by a model, or (extractive) from the video's chapters, from
#: the largest topic shifts between its search chunks' embeddings, or evenly spaced.
Basis = Literal["model", "chapters", "topic-shifts", "even"]


@wire
@dataclass(frozen=True, slots=True)
class KeyMoment:
    """One moment: `start` is always the start of a real transcript segment."""

    start: float
    title: str
    why: str
    url: str = ""


@wire
@dataclass(slots=True)
class KeyMoments:
    """A video's key moments, in time order, at least ~30 s apart.

    `method` says whether a model chose them (`model` names it) or they are extractive;
    `dropped` counts the model's moments left out (a time that is no segment start, too
    close to another, more than asked for); `note` says why a result is extractive or what
    was dropped, in plain words.
    """

    video_id: str
    title: str
    method: Method
    basis: Basis
    moments: list[KeyMoment] = field(default_factory=list)
    model: str | None = None
    requested: int = 8
    dropped: int = 0
    note: str = ""
    cached: bool = False

    def label(self) -> str:
        """Who chose the moments, for a tooltip or a line under them."""
        if self.method == "model":
            return f"chosen by {self.model}, every time checked against the transcript"
        return {
            "chapters": "extractive: the video's chapters",
            "topic-shifts": "extractive: where the subject changes most",
            "even": "extractive: evenly spaced through the video",
        }.get(self.basis, "extractive")
