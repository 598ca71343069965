"""The outline of a video: its sections with times, links and token counts.

An agent with a small context reads the outline first and then fetches only the sections it
needs (`get_section`), so every section says how many tokens it will cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..domain.videos import Segment, VideoRecord
from ..ids import timestamp_url
from ..timecode import clock
from .common import chapter_index, text_tokens
from .header import source_location

# Videos without chapters are cut into sections of about this many seconds...
TIME_SECTION = 300.0
# ...and a last piece shorter than this joins the section before it, rather than standing
# alone as a 20-second "section".
MIN_TAIL = 60.0


@dataclass(frozen=True, slots=True)
class OutlineSection:
    """One section; `index` is 1-based, the number `get_section(chapter=...)` accepts."""

    index: int
    title: str
    start: float
    end: float
    tokens: int
    url: str
    segment_count: int


@dataclass(slots=True)
class Outline:
    """`kind` says whether sections are the video's chapters or ~5-minute time slices."""

    kind: Literal["chapters", "time"]
    title: str
    location: str
    duration: float
    total_tokens: int
    sections: list[OutlineSection] = field(default_factory=list)


def outline(record: VideoRecord) -> Outline:
    """Chapters when the video has them, else time sections cut at segment boundaries."""
    segments = record.transcript.segments
    _, where = source_location(record.video)
    result = Outline(
        kind="chapters" if record.chapters else "time",
        title=record.video.title or record.video.id,
        location=where,
        duration=record.duration,
        total_tokens=text_tokens(segments),
    )
    spans = _chapter_spans(record) if record.chapters else _time_spans(record)
    for number, (title, start, end, members) in enumerate(spans, start=1):
        result.sections.append(
            OutlineSection(
                index=number,
                title=title,
                start=start,
                end=end,
                tokens=text_tokens(members),
                url=timestamp_url(record.video, start),
                segment_count=len(members),
            )
        )
    return result


_Span = tuple[str, float, float, list[Segment]]


def _chapter_spans(record: VideoRecord) -> list[_Span]:
    """Each segment counts in the chapter where it starts, so tokens add up to the total."""
    members: list[list[Segment]] = [[] for _ in record.chapters]
    for seg in record.transcript.segments:
        index = chapter_index(record.chapters, seg.start)
        if index is not None:
            members[index].append(seg)
    return [(c.title, c.start, c.end, m) for c, m in zip(record.chapters, members, strict=True)]


def _time_spans(record: VideoRecord) -> list[_Span]:
    """Slices of about `TIME_SECTION` seconds; a slice ends where the next one's segment starts."""
    groups: list[list[Segment]] = []
    section_start = 0.0
    for seg in record.transcript.segments:
        if not groups or seg.start >= section_start + TIME_SECTION:
            groups.append([])
            section_start = 0.0 if len(groups) == 1 else seg.start
        groups[-1].append(seg)
    if len(groups) > 1 and record.duration - groups[-1][0].start < MIN_TAIL:
        groups[-2].extend(groups.pop())
    spans: list[_Span] = []
    for i, group in enumerate(groups):
        start = 0.0 if i == 0 else group[0].start
        end = groups[i + 1][0].start if i + 1 < len(groups) else max(record.duration, group[-1].end)
        spans.append((f"{clock(start)}-{clock(end)}", start, end, group))
    return spans


def render_outline(result: Outline) -> str:
    """The outline as text for the CLI: one numbered line per section with time and tokens."""
    kind = "chapters" if result.kind == "chapters" else "time sections (no chapters)"
    lines = [result.title]
    if result.location:
        lines.append(result.location)
    lines.append(
        f"{clock(result.duration)}, {len(result.sections)} {kind}, "
        f"about {result.total_tokens:,} tokens"
    )
    lines.append("")
    width = len(str(len(result.sections)))
    for s in result.sections:
        title = f" {s.title}" if result.kind == "chapters" else ""  # time titles repeat the times
        lines.append(
            f"{s.index:>{width}}. [{clock(s.start)}-{clock(s.end)}]{title}"
            f"  (about {s.tokens:,} tokens)"
        )
    return "\n".join(lines) + "\n"
