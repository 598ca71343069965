"""Re-uploads and clips: which videos repeat another one, and the evidence (`core.duplicates`).

Two uploads of one talk must count as one source (briefs), and an agent comparing videos
should know that a "second opinion" is a clip of the first. A group names its original (the
longest video, the earliest of equals) and each copy with how much text they share and where
the copy's words sit in the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..wire import wire

CopyKind = Literal["reupload", "clip"]


@wire
@dataclass(frozen=True, slots=True)
class DuplicateCopy:
    """One video whose transcript is (mostly) inside the original's.

    `overlap` is the detector's measure: the shared six-word runs over the shorter
    transcript's runs (a copy at or above the threshold is grouped). `copy_share` is the
    share of the copy's runs found in the original, `original_share` the share of the
    original's runs the copy holds (about 1.0 for a re-upload, the clip's part for a clip).
    A time `t` in the copy is `t + offset` in the original; `start` and `end` are where the
    copy's text begins and ends in the original (seconds).
    """

    video_id: str
    kind: CopyKind
    overlap: float
    copy_share: float
    original_share: float
    offset: float
    start: float
    end: float


@wire
@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    """An original and the videos that repeat it (at least one)."""

    original: str
    copies: list[DuplicateCopy] = field(default_factory=list)

    @property
    def video_ids(self) -> list[str]:
        return [self.original, *(c.video_id for c in self.copies)]
