"""SponsorBlock's skip segments of a video: sponsor reads, intros, reminders to subscribe, ...

SponsorBlock (sponsor.ajay.app) is a crowd-sourced list of the parts of YouTube videos that
viewers skip, each with its category and the votes it got. v2c keeps what it fetched with
the video (`core/sponsor/`), so the player, briefs and a second call read it without the
network. Each segment says what share of the video's transcript it covers (`SHARE_MEANING`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import bad_request
from ..wire import wire

#: SponsorBlock's categories whose segments are skipped (actionType `skip`), in its order.
CATEGORIES: tuple[str, ...] = (
    "sponsor",
    "selfpromo",
    "interaction",
    "intro",
    "outro",
    "preview",
    "music_offtopic",
    "filler",
)
#: What each category holds, in SponsorBlock's own words (shortened).
CATEGORY_LABELS: dict[str, str] = {
    "sponsor": "paid promotion or sponsor read",
    "selfpromo": "unpaid or self-promotion (merchandise, donations, other channels)",
    "interaction": "reminder to like, subscribe or follow",
    "intro": "intro animation or pause with no content",
    "outro": "end cards and credits",
    "preview": "preview or recap of other parts of the video",
    "music_offtopic": "non-music part of a music video",
    "filler": "tangent or joke not needed to follow the video",
}
#: The category the player skips and briefs may leave out: paid sponsor reads.
SPONSOR = "sponsor"
SHARE_MEANING = (
    "share: the part of the transcript's spoken time (the time its caption lines cover, "
    "overlaps counted once) that falls inside the segment; 0.05 means 5% of what is said in "
    "the video is said during it. The total counts overlapping segments once."
)


def check_categories(categories: Iterable[str] | None) -> tuple[str, ...]:
    """The categories asked for, in SponsorBlock's order; none given means all of them.

    An unknown name is a `bad-request` that lists the known ones."""
    asked = [str(c).strip().lower() for c in (categories or ()) if str(c).strip()]
    unknown = sorted({c for c in asked if c not in CATEGORIES})
    if unknown:
        raise bad_request(
            f"unknown SponsorBlock {'category' if len(unknown) == 1 else 'categories'}: "
            f"{', '.join(repr(c[:40]) for c in unknown[:5])}",
            f"use any of {', '.join(CATEGORIES)}, or leave categories out for all of them",
        )
    return tuple(c for c in CATEGORIES if c in asked) if asked else CATEGORIES


@wire
@dataclass(frozen=True, slots=True)
class SkipSegment:
    """One SponsorBlock segment: seconds from the start, its category and how it was voted.

    `share` is the part of the transcript it covers (see `SHARE_MEANING`); `video_duration`
    is the length of the video the submitter saw (None when SponsorBlock does not know it):
    when it differs from the video's, the times may be off.
    """

    category: str
    start: float
    end: float
    uuid: str = ""
    votes: int = 0
    locked: bool = False
    action_type: str = "skip"
    description: str = ""
    video_duration: float | None = None
    share: float = 0.0


@wire
@dataclass(frozen=True)
class SkipSegments:
    """A video's skip segments of the categories asked for, oldest first.

    `from_library`: read from the library, nothing was asked of SponsorBlock; `fetched_at`
    says when they were fetched. `spoken_seconds` is the transcript's spoken time the shares
    are of, `share` all the segments' share together.
    """

    video_id: str
    youtube_id: str
    categories: tuple[str, ...]
    segments: list[SkipSegment]
    fetched_at: str
    from_library: bool
    spoken_seconds: float
    share: float
