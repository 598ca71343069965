"""yt-dlp's `comments` into `Comment`s: plain text, bounded, replies after their comment.

yt-dlp documents each comment as a dict with any of `id`, `parent` (`root` for a top-level
comment), `text` or `html`, `timestamp`, `like_count`, `is_favorited`, `author`,
`author_id`, `author_is_uploader`, `author_is_verified` and `is_pinned`. Everything in it
was written by strangers or is the site's say-so: every field is checked for its type, text
is stripped of terminal escapes and control characters and cut to a bounded length, an
`html` body (a few extractors give no `text`) is reduced to its text, never kept as markup.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

from ..domain.comments import Comment
from ..plain_text import strip_controls

#: YouTube's own limit on a comment's length; longer text is cut there.
MAX_TEXT = 10_000
MAX_AUTHOR = 200
MAX_ID = 200
ROOT = "root"


def comments_from_info(raw: Iterable[Any], limit: int) -> list[Comment]:
    """The first `limit` usable comments of yt-dlp's list, in thread order (`threaded`).

    Entries that are not dicts or have no text are left out; a repeated id is kept once.
    """
    picked: list[Comment] = []
    seen: set[str] = set()
    for n, entry in enumerate(raw):
        if len(picked) >= limit:
            break
        if not isinstance(entry, Mapping):
            continue
        comment = one_comment(entry, fallback_id=f"#{n}")
        if comment is None or comment.id in seen:
            continue
        seen.add(comment.id)
        picked.append(comment)
    return threaded(picked)


def one_comment(entry: Mapping[str, Any], *, fallback_id: str) -> Comment | None:
    """One yt-dlp comment dict as a `Comment`, or None when it holds no text."""
    text = _text(entry.get("text"))
    if not text:
        text = html_text(entry.get("html"))
    if not text:
        return None
    parent = _short(entry.get("parent"), MAX_ID)
    return Comment(
        id=_short(entry.get("id"), MAX_ID) or fallback_id,
        author=" ".join(_short(entry.get("author"), MAX_AUTHOR).split()),
        text=text,
        published=iso_date(entry.get("timestamp")),
        likes=_count(entry.get("like_count")),
        parent_id=None if not parent or parent == ROOT else parent,
        author_id=_short(entry.get("author_id"), MAX_ID),
        by_uploader=entry.get("author_is_uploader") is True,
        pinned=entry.get("is_pinned") is True,
        favorited=entry.get("is_favorited") is True,
        verified=entry.get("author_is_verified") is True,
    )


def threaded(comments: list[Comment]) -> list[Comment]:
    """Each comment followed by its replies (and theirs), top-level comments in the order
    given; replies whose comment is not in the list come last, in the order given."""
    children: dict[str, list[Comment]] = {}
    ids = {c.id for c in comments}
    for comment in comments:
        if comment.parent_id is not None and comment.parent_id in ids:
            children.setdefault(comment.parent_id, []).append(comment)
    ordered: list[Comment] = []
    placed: set[str] = set()

    def place(comment: Comment) -> None:
        stack = [comment]
        while stack:
            current = stack.pop()
            if current.id in placed:
                continue
            placed.add(current.id)
            ordered.append(current)
            stack.extend(reversed(children.get(current.id, [])))

    for comment in comments:
        if comment.parent_id is None:
            place(comment)
    for comment in comments:  # orphans, and any loop of replies answering each other
        if comment.id not in placed:
            place(comment)
    return ordered


def iso_date(timestamp: Any) -> str | None:
    """A Unix time as its UTC date, `YYYY-MM-DD`; None for anything else."""
    if isinstance(timestamp, bool) or not isinstance(timestamp, int | float):
        return None
    try:
        return datetime.fromtimestamp(timestamp, tz=UTC).date().isoformat()
    except (OverflowError, OSError, ValueError):
        return None


class _TextOnly(HTMLParser):
    """Collects an HTML fragment's text; tags (links, images, scripts' markup) are dropped,
    a `<br>` or a closed block becomes a line break."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag in ("p", "div", "li"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(value: Any) -> str:
    """The text of an HTML comment body, as plain text (`""` for anything but a string)."""
    if not isinstance(value, str) or not value.strip():
        return ""
    parser = _TextOnly()
    parser.feed(value[: MAX_TEXT * 4])
    parser.close()
    return _text("".join(parser.parts))


def _text(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    clean = strip_controls(value.replace("\r\n", "\n")).strip()
    return clean[:MAX_TEXT]


def _short(value: Any, limit: int) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return ""
    return strip_controls(str(value)).strip()[:limit]


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if math.isfinite(value) and value >= 0 else None
