"""The header every text rendering starts with, so the source of the words is never lost.

An agent that is handed a page of transcript (or a person reading a pasted export) must be
able to tell what was said where, by whom, and how far to trust the words: creator captions
beat auto captions, and a machine translation is worth flagging.
"""

from __future__ import annotations

from ..domain.videos import Origin, Transcript, Video, VideoRecord
from ..timecode import clock

ORIGIN_LABELS: dict[Origin, str] = {
    "creator-captions": "creator captions",
    "auto-captions": "auto-generated captions",
    "subtitle-file": "subtitle file",
    "stt": "speech-to-text",
}


def source_location(video: Video) -> tuple[str, str]:
    """(`"URL"` or `"File"`, where the video lives): the web page, else the local file."""
    if video.url:
        return "URL", video.url
    if video.source_path:
        return "File", video.source_path
    return "", ""


def transcript_description(transcript: Transcript) -> str:
    """`creator captions, en, by YouTube, translated from de` (only the parts we know)."""
    parts = [ORIGIN_LABELS.get(transcript.origin, transcript.origin)]
    if transcript.language:
        parts.append(transcript.language)
    if transcript.producer:
        parts.append(f"by {transcript.producer}")
    if transcript.translated_from:
        parts.append(f"translated from {transcript.translated_from}")
    return ", ".join(parts)


def context_header(record: VideoRecord) -> str:
    """Title, channel, URL (or file), duration, transcript origin and chapters, one per line.

    Lines we have nothing for are left out rather than printed empty, so the header stays
    short for the agent. Chapters are listed with `[m:ss]` so they can be cited straight away.
    """
    video = record.video
    lines = [f"Title: {video.title or video.id}"]
    if video.channel:
        lines.append(f"Channel: {video.channel}")
    label, where = source_location(video)
    if where:
        lines.append(f"{label}: {where}")
    if video.published:
        lines.append(f"Published: {video.published}")
    lines.append(f"Duration: {clock(record.duration)}")
    lines.append(f"Transcript: {transcript_description(record.transcript)}")
    if record.chapters:
        lines.append(f"Chapters ({len(record.chapters)}):")
        lines.extend(f"[{clock(c.start)}] {c.title}" for c in record.chapters)
    return "\n".join(lines)
