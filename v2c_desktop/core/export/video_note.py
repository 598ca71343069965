"""The note of one video: properties Media Extended and Bases read, the chapters, and the
transcript as `[m:ss](link) text ^t-83` list items (a list item is a block in Obsidian,
so every line can be linked to and played from)."""

from __future__ import annotations

from ..domain.videos import Chapter, Segment, VideoRecord
from ..timecode import clock
from .frontmatter import Date, Number, Value, date_or_none
from .inert import inert
from .links import Player, block_ids
from .note import Rendered

ORIGIN_LABEL = {
    "creator-captions": "creator captions",
    "auto-captions": "auto-captions",
    "subtitle-file": "subtitle file",
    "stt": "speech-to-text",
}
VIDEO_KEYS = (
    "title",
    "channel",
    "url",
    "published",
    "duration",
    "origin",
    "language",
    "media",
    "video",
    "audio",
)
VIDEO_TAG = "v2c/video"


def video_properties(record: VideoRecord, player: Player) -> dict[str, Value]:
    video = record.video
    props: dict[str, Value] = {"title": video.title or "Untitled"}
    if video.channel:
        props["channel"] = video.channel
    url = player.media_property()
    if video.url:
        props["url"] = video.url
    published: Date | None = date_or_none(video.published)
    if published is not None:
        props["published"] = Date(published.text[:10])
    props["duration"] = Number(int(record.duration))
    props["origin"] = ORIGIN_LABEL.get(record.transcript.origin, record.transcript.origin)
    if record.transcript.language:
        props["language"] = record.transcript.language
    if url is not None:
        props[url[0]] = url[1]
    return props


def _chapter_of(chapters: list[Chapter], seconds: float) -> int:
    index = -1
    for i, chapter in enumerate(chapters):
        if chapter.start <= seconds + 1e-6:
            index = i
    return index


def transcript_lines(segments: list[Segment], chapters: list[Chapter], player: Player) -> list[str]:
    """The transcript list, with a `###` heading where each chapter begins."""
    chapters = sorted(chapters, key=lambda c: c.start)
    out: list[str] = []
    current = -2
    for segment, block in zip(segments, block_ids(segments), strict=True):
        chapter = _chapter_of(chapters, segment.start) if chapters else -1
        if chapter != current and chapter >= 0:
            if out:
                out.append("")
            out += [f"### {inert(chapters[chapter].title) or 'Chapter'}", ""]
        current = chapter
        words = [player.link(segment.start), inert(segment.text), f"^{block}"]
        out.append("- " + " ".join(w for w in words if w))
    return out


def video_body(record: VideoRecord, player: Player) -> str:
    video = record.video
    facts = [
        inert(x)
        for x in (
            video.channel,
            video.published or "",
            clock(record.duration),
            ORIGIN_LABEL.get(record.transcript.origin, ""),
        )
        if x
    ]
    out = [f"# {inert(video.title) or 'Untitled'}", "", " · ".join(facts), ""]
    out += [f"{player.link(0, 'Play from the start')}", ""]
    if record.chapters:
        out += ["## Chapters", ""]
        for chapter in sorted(record.chapters, key=lambda c: c.start):
            out.append(f"- {player.link(chapter.start)} {inert(chapter.title)}")
        out.append("")
    out += ["## Transcript", ""]
    out += transcript_lines(record.transcript.segments, record.chapters, player)
    return "\n".join(out)


def render_video(record: VideoRecord, player: Player, title_alias: bool) -> Rendered:
    """The note for `record`; `title_alias` adds the title as an alias (when the file name
    differs from it, so the quick switcher and links still find the title)."""
    title = record.video.title or "Untitled"
    return Rendered(
        kind="video",
        subject_id=record.video.id,
        id_key="v2c_id",
        owned_keys=VIDEO_KEYS,
        props=video_properties(record, player),
        inside=video_body(record, player),
        tags=[VIDEO_TAG],
        aliases=[title] if title_alias else [],
    )
