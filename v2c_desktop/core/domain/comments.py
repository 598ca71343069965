"""A video's comments, as every face shows them: who wrote what, when, and in reply to whom.

Comments come from the video's site through yt-dlp (`core/comments/`) and are kept with
the video, so asking again for no more than the library holds needs no network. Their
text is written by strangers: it is kept and shown as plain text (never as HTML, never
with links it did not have), stripped of terminal escapes and control characters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import bad_request
from ..wire import wire

#: How many comments a call returns when it does not say.
DEFAULT_LIMIT = 20
#: The most one call may ask for: YouTube hands comments out 20 at a time, each page a
#: request, and an agent reading 500 comments reads about 25k tokens already.
MAX_LIMIT = 500


def check_limit(limit: int | None) -> int:
    """`limit` as asked (None: the default); outside 1..MAX_LIMIT is a `bad-request`."""
    if limit is None:
        return DEFAULT_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise bad_request(
            f"limit must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}",
            f"ask for at most {MAX_LIMIT} comments at a time (the default is {DEFAULT_LIMIT})",
        )
    return limit


@wire
@dataclass(frozen=True, slots=True)
class Comment:
    """One comment, as the site gave it.

    `parent_id` is the comment it answers (None for a top-level comment); `published` is
    an ISO date (`YYYY-MM-DD`, UTC), approximate on YouTube, which says "2 years ago";
    `likes` is None when the site does not say. `by_uploader`: written by the video's own
    channel; `pinned`: pinned by it; `favorited`: hearted by it.
    """

    id: str
    author: str
    text: str
    published: str | None = None
    likes: int | None = None
    parent_id: str | None = None
    author_id: str = ""
    by_uploader: bool = False
    pinned: bool = False
    favorited: bool = False
    verified: bool = False

    @property
    def is_reply(self) -> bool:
        return self.parent_id is not None

    @property
    def facts(self) -> str:
        """The line every face shows above the text: "author · 2018-08-01 · 4,210 likes ·
        pinned · by the channel" (only what the site said)."""
        facts = [self.author or "(no name)"]
        if self.published:
            facts.append(self.published)
        if self.likes is not None:
            facts.append(f"{self.likes:,} like" + ("" if self.likes == 1 else "s"))
        if self.pinned:
            facts.append("pinned")
        if self.by_uploader:
            facts.append("by the channel")
        if self.favorited:
            facts.append("hearted by the channel")
        return " · ".join(facts)


@wire
@dataclass(slots=True)
class Comments:
    """A video's comments, each reply right after the comment it answers (or, when that
    one is not among them, at the end), in the order the site gave them otherwise.

    `video_id` is the library's id of the video (`youtube:<id>`), also when the library
    does not hold the video (`in_library` False: it has no transcript, and `note` says so).
    `from_library`: read from what the library kept, the site was not asked; `complete`:
    these are all the comments the site gave (fewer than were asked for); `disabled`: the
    site says comments are turned off for this video. `fetched_at` is when they were read
    from the site (ISO, local time).
    """

    video_id: str
    title: str
    url: str
    comments: list[Comment] = field(default_factory=list)
    fetched_at: str = ""
    from_library: bool = False
    complete: bool = False
    disabled: bool = False
    in_library: bool = True
    note: str = ""

    @property
    def count(self) -> int:
        return len(self.comments)

    def replies_to(self, comment_id: str) -> list[Comment]:
        return [c for c in self.comments if c.parent_id == comment_id]
