"""Pages of a rendering that fit a token budget, each one complete on its own.

Agents have a context budget, and a transcript can be longer than it. Rather than truncate,
we cut the rendering into pages on segment boundaries and hand back a cursor for the next.
Every page is a whole document in its format (a JSON page parses, a VTT page starts with
WEBVTT, an SRT page numbers its cues from 1), so a page can be saved, parsed or quoted
without the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..domain.videos import Segment, VideoRecord
from ..errors import bad_request
from .common import PageInfo
from .formats import render_page
from .tokens import estimate_tokens

_CURSOR = re.compile(r"^seg:(\d+)$")


@dataclass(frozen=True, slots=True)
class Page:
    """One page. Segment indexes are 0-based into the list being paged (inclusive).

    A page of an empty list has `first_segment` 0 and `last_segment` -1.
    """

    text: str
    cursor: str
    next_cursor: str | None
    first_segment: int
    last_segment: int
    total_segments: int
    tokens: int


def cursor_for(index: int) -> str:
    return f"seg:{index}"


def parse_cursor(cursor: str | None, total: int) -> int:
    """The first segment index a cursor names; None is the start. Bad cursors are refused."""
    if cursor is None or cursor == "":
        return 0
    match = _CURSOR.match(cursor.strip())
    hint = "pass the next_cursor of the previous page (like seg:120), or no cursor to start"
    if not match:
        raise bad_request(f"cannot read cursor {cursor!r}", hint)
    index = int(match.group(1))
    if index >= total and not (index == 0 and total == 0):
        raise bad_request(f"cursor {cursor!r} is past the last segment ({total} in all)", hint)
    return index


def paginate(
    record: VideoRecord,
    fmt: str,
    *,
    max_tokens: int,
    cursor: str | None = None,
    segments: Sequence[Segment] | None = None,
    timestamps: bool = True,
) -> Page:
    """The page starting at `cursor`, holding as many segments as fit in `max_tokens`.

    The budget counts the whole page text (header, segments, trailer) with
    `estimate_tokens`. A page always holds at least one segment, even when the header plus
    that segment alone exceed the budget: refusing would leave the caller with no way to
    read on, and a budget that small is a caller's mistake we can survive.

    Paging always renders page form (text and Markdown end with the `[Partial transcript:
    ...]` or `[End of transcript: ...]` line, JSON carries a `page` object, VTT a NOTE),
    even when everything fits on one page, so callers and agents see one shape.
    """
    if max_tokens < 1:
        raise bad_request(f"max_tokens must be at least 1, got {max_tokens}")
    chosen = list(record.transcript.segments if segments is None else segments)
    total = len(chosen)
    first = parse_cursor(cursor, total)
    here = cursor_for(first)

    def build(count: int) -> str:
        last = first + count - 1
        nxt = cursor_for(last + 1) if last + 1 < total else None
        info = PageInfo(first, last, total, here, nxt)
        return render_page(record, fmt, chosen[first : last + 1], info, timestamps=timestamps)

    def fits(text: str) -> bool:
        return estimate_tokens(text) <= max_tokens

    remaining = total - first
    if remaining == 0:  # an empty transcript is one (empty) page, not an error
        count, text = 0, build(0)
    else:
        count, text = _largest_fitting(build, fits, remaining)
    last = first + count - 1
    return Page(
        text=text,
        cursor=here,
        next_cursor=cursor_for(last + 1) if last + 1 < total else None,
        first_segment=first,
        last_segment=last,
        total_segments=total,
        tokens=estimate_tokens(text),
    )


def _largest_fitting(
    build: Callable[[int], str], fits: Callable[[str], bool], remaining: int
) -> tuple[int, str]:
    """The largest count (at least 1) whose page fits, and that page.

    Galloping (1, 2, 4, ...) then bisecting keeps the work near the page's own size rather
    than the whole remaining transcript, which matters for long videos and small budgets.
    Page size grows with the count (the trailer's few digits aside), and we only ever
    return a count whose page we rendered and checked.
    """
    best, best_text = 1, build(1)
    if remaining <= 1 or not fits(best_text):
        return best, best_text
    probe, hi = 2, remaining
    while True:
        probe = min(probe, remaining)
        candidate = build(probe)
        if not fits(candidate):
            hi = probe - 1
            break
        best, best_text = probe, candidate
        if probe == remaining:
            return best, best_text
        probe *= 2
    lo = best + 1
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = build(mid)
        if fits(candidate):
            best, best_text, lo = mid, candidate, mid + 1
        else:
            hi = mid - 1
    return best, best_text
