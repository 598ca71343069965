"""One part of a video, by chapter or by time range, for reading less than the whole.

Agents name chapters loosely ("the part about taste", "3"), so a chapter is found by number,
then exact title, then title prefix, then substring. When the query is ambiguous or matches
nothing we refuse with the chapter list as the hint rather than guess: a wrong section read
confidently is worse than one more call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..domain.videos import Chapter, Segment, VideoRecord
from ..errors import bad_request, not_found
from ..timecode import clock, parse_time
from .common import text_tokens
from .formats import format_id, render
from .header import context_header
from .text import text_body


@dataclass(slots=True)
class Section:
    """A span of the video and the segments that overlap it.

    `chapter` is the 1-based chapter number when the section is a chapter, else None.
    """

    title: str
    start: float
    end: float
    segments: list[Segment]
    tokens: int
    chapter: int | None = None


def _chapter_list(record: VideoRecord) -> str:
    return "; ".join(f"{i}. {c.title}" for i, c in enumerate(record.chapters, start=1))


def find_chapter(record: VideoRecord, query: str | int) -> tuple[int, Chapter]:
    """(1-based index, chapter) for a number (or number string) or a title.

    Title matching is case-insensitive and tries exact, then prefix, then substring; the
    first rule with exactly one match wins, and a rule with several matches is an error.
    """
    chapters = record.chapters
    if not chapters:
        raise not_found(
            f"{record.video.title or record.video.id!r} has no chapters",
            "use a time range (from/to, e.g. 1:30 to 4:00) or read the outline for time sections",
        )
    text = str(query).strip()
    if isinstance(query, int) or text.isdigit():
        number = int(text)
        if 1 <= number <= len(chapters):
            return number, chapters[number - 1]
        if isinstance(query, int):
            raise not_found(
                f"there is no chapter {number}; the video has {len(chapters)}",
                f"chapters: {_chapter_list(record)}",
            )
    wanted = text.casefold()
    if not wanted:
        raise bad_request("empty chapter", f"give a number or a title; {_chapter_list(record)}")
    rules: list[Callable[[str], bool]] = [
        lambda title: title == wanted,
        lambda title: title.startswith(wanted),
        lambda title: wanted in title,
    ]
    for rule in rules:
        hits = [i for i, c in enumerate(chapters) if rule(c.title.strip().casefold())]
        if len(hits) == 1:
            return hits[0] + 1, chapters[hits[0]]
        if len(hits) > 1:
            names = ", ".join(f"{i + 1}. {chapters[i].title}" for i in hits)
            raise not_found(
                f"chapter {text!r} is ambiguous: it matches {names}",
                "give the chapter number or more of its title",
            )
    raise not_found(f"no chapter matches {text!r}", f"chapters: {_chapter_list(record)}")


def overlapping(segments: list[Segment], start: float, end: float) -> list[Segment]:
    """Segments that share any time with [start, end); a segment cut by an edge is kept whole."""
    return [s for s in segments if s.start < end and (s.end > start or s.start >= start)]


def select_section(
    record: VideoRecord,
    *,
    chapter: str | int | None = None,
    start: str | float | None = None,
    end: str | float | None = None,
) -> Section:
    """A chapter, or the range `start`..`end` (either may be left out: video start / end).

    Times take what `timecode.parse_time` takes (`90`, `1:30`, `1:02:03`). A range that
    starts after the video ends, or ends before it starts, is a bad request with the
    video's length in the hint; an end past the video is read as the video's end, since
    "to the end" is what such a request means.
    """
    segments = record.transcript.segments
    if chapter is not None:
        if start is not None or end is not None:
            raise bad_request(
                "give either a chapter or a time range, not both",
                "drop chapter to read a time range, or drop from/to to read a chapter",
            )
        number, found = find_chapter(record, chapter)
        members = overlapping(segments, found.start, found.end)
        return Section(found.title, found.start, found.end, members, text_tokens(members), number)
    if start is None and end is None:
        raise bad_request(
            "give a chapter or a time range",
            "chapter takes a number or title; from/to take 90, 1:30 or 1:02:03",
        )
    duration = record.duration
    lo = parse_time(start) if start is not None else 0.0
    hi = parse_time(end) if end is not None else duration
    length = f"the video is {clock(duration)} long"
    if lo >= duration:
        raise bad_request(f"{clock(lo)} is after the end of the video", length)
    if lo >= hi:
        raise bad_request(
            f"the range {clock(lo)} to {clock(hi)} is empty or backwards",
            f"give from before to; {length}",
        )
    hi = min(hi, duration)
    members = overlapping(segments, lo, hi)
    return Section(f"{clock(lo)}-{clock(hi)}", lo, hi, members, text_tokens(members))


def section_line(section: Section) -> str:
    """`Section "title": m:ss to m:ss, about N tokens` — what was cut out, and its cost."""
    return (
        f'Section "{section.title}": {clock(section.start)} to {clock(section.end)},'
        f" about {section.tokens} tokens"
    )


def render_section(
    record: VideoRecord, section: Section, fmt: str = "text", *, timestamps: bool = True
) -> str:
    """Text: header, the section line, then the lines; other formats: their usual rendering
    of just the section's segments."""
    if format_id(fmt) != "text":
        return render(record, fmt, segments=section.segments, timestamps=timestamps)
    body = text_body(record, section.segments, timestamps=timestamps)
    parts = [context_header(record), section_line(section), body]
    return "\n\n".join(p for p in parts if p) + "\n"
