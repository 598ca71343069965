"""Markdown: a note for a notes app, every line linked to its moment in the video."""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.videos import Segment, VideoRecord
from ..ids import timestamp_url
from ..timecode import clock
from .common import PageInfo, chapter_index, one_line, paragraphs
from .header import source_location, transcript_description


def _stamp(record: VideoRecord, seconds: float) -> str:
    """`[m:ss](url)` where the platform can open that moment, plain `[m:ss]` otherwise."""
    url = timestamp_url(record.video, seconds)
    return f"[{clock(seconds)}]({url})" if url else f"[{clock(seconds)}]"


def _metadata(record: VideoRecord) -> list[str]:
    video = record.video
    items: list[str] = []
    if video.channel:
        items.append(f"- Channel: {video.channel}")
    label, where = source_location(video)
    if where:
        items.append(f"- {label}: <{where}>" if label == "URL" else f"- {label}: `{where}`")
    if video.published:
        items.append(f"- Published: {video.published}")
    items.append(f"- Duration: {clock(record.duration)}")
    items.append(f"- Transcript: {transcript_description(record.transcript)}")
    if record.chapters:
        items.append(f"- Chapters: {len(record.chapters)}")
    return items


def _lines(record: VideoRecord, segments: Sequence[Segment], timestamps: bool) -> list[str]:
    if timestamps:
        return [f"{_stamp(record, s.start)} {one_line(s.text)}".rstrip() for s in segments]
    return [f"{_stamp(record, p.start)} {p.text}" for p in paragraphs(record, segments)]


def render_markdown(
    record: VideoRecord,
    segments: Sequence[Segment],
    *,
    timestamps: bool,
    page: PageInfo | None,
) -> str:
    """Title heading, metadata list, then the lines under `##` chapter headings.

    Lines are separate paragraphs (blank line between) because consecutive Markdown lines
    would otherwise merge into one. A page that starts inside a chapter repeats that
    chapter's heading so it reads on its own.
    """
    blocks = [f"# {record.video.title or record.video.id}", "\n".join(_metadata(record))]
    groups: list[tuple[int | None, list[Segment]]] = []
    for seg in segments:
        index = chapter_index(record.chapters, seg.start)
        if not groups or groups[-1][0] != index:
            groups.append((index, []))
        groups[-1][1].append(seg)
    for index, group in groups:
        if index is not None:
            blocks.append(f"## {record.chapters[index].title}")
        blocks.extend(_lines(record, group, timestamps))
    if page is not None:
        blocks.append(page.trailer())
    return "\n\n".join(blocks) + "\n"
