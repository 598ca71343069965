"""The JSON an agent reads about videos and collections, shared by tools and resources.

Keys are camelCase with units in the name (`durationSec`) as the spec's tables use, times
come both as seconds and as `m:ss`, and every point in a video carries its timestamp URL so
the agent can cite without building links itself.
"""

from __future__ import annotations

from typing import Any

from v2c_desktop.core.domain.videos import Collection, VideoRecord, VideoSummary
from v2c_desktop.core.ids import timestamp_url
from v2c_desktop.core.render import outline
from v2c_desktop.core.render.common import text_tokens
from v2c_desktop.core.render.header import source_location
from v2c_desktop.core.timecode import clock


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(float(value), 3)


def video_metadata(record: VideoRecord) -> dict[str, Any]:
    """Everything known about a video except its segments, plus its size in tokens."""
    video, transcript = record.video, record.transcript
    return {
        "id": video.id,
        "title": video.title,
        "platform": video.platform,
        "nativeId": video.native_id,
        "channel": video.channel,
        "channelId": video.channel_id,
        "url": video.url or None,
        "sourcePath": video.source_path or None,
        "durationSec": _seconds(record.duration),
        "duration": clock(record.duration),
        "published": video.published,
        "description": video.description,
        "thumbnailUrl": video.thumbnail_url or None,
        "transcript": {
            "origin": transcript.origin,
            "language": transcript.language,
            "producer": transcript.producer,
            "trackName": transcript.track_name,
            "translatedFrom": transcript.translated_from,
            "track": transcript.track or None,  # creator:en, auto:en>de (a web caption track)
            "segments": len(transcript.segments),
            "tokens": text_tokens(transcript.segments),
        },
        "chapters": [
            {
                "index": number,
                "title": c.title,
                "startSec": _seconds(c.start),
                "endSec": _seconds(c.end),
                "start": clock(c.start),
                "url": timestamp_url(video, c.start) or None,
            }
            for number, c in enumerate(record.chapters, start=1)
        ],
        "addedAt": record.added_at or None,
        "updatedAt": record.updated_at or None,
    }


def outline_view(record: VideoRecord) -> dict[str, Any]:
    """`get_outline`'s structured result: sections with times, links and token counts."""
    result = outline(record)
    video, transcript = record.video, record.transcript
    _, where = source_location(video)
    if result.sections:
        biggest = max(result.sections, key=lambda s: s.tokens)
        nxt = (
            f'Read one section with get_section {{"url": "{video.id}", "chapter": '
            f"{biggest.index}}} (about {biggest.tokens} tokens; time sections are numbered "
            "too), find passages with "
            f"search_transcript, or read all of it (about {result.total_tokens} tokens) with "
            "get_transcript; pass maxTokens to page it."
        )
    else:
        nxt = "This video has no transcript text."
    return {
        "title": result.title,
        "url": where or None,
        "durationSec": _seconds(result.duration),
        "transcript": {
            "origin": transcript.origin,
            "language": transcript.language,
            "producer": transcript.producer,
        },
        "sections": result.kind,
        "totalTokens": result.total_tokens,
        "chapters": [
            {
                "index": s.index,
                "title": s.title,
                "startSec": _seconds(s.start),
                "endSec": _seconds(s.end),
                "start": clock(s.start),
                "tokens": s.tokens,
                "url": s.url or None,
            }
            for s in result.sections
        ],
        "metadata": {
            "id": video.id,
            "platform": video.platform,
            "channel": video.channel,
            "published": video.published,
            "duration": clock(result.duration),
            "segments": len(transcript.segments),
        },
        "next": nxt,
    }


def summary_view(summary: VideoSummary, tokens: int | None = None) -> dict[str, Any]:
    """One library row; `tokens` when the caller loaded the transcript to count them."""
    out: dict[str, Any] = {
        "id": summary.id,
        "title": summary.title,
        "url": summary.url or summary.source_path or None,
        "channel": summary.channel,
        "durationSec": _seconds(summary.duration),
        "duration": clock(summary.duration),
        "origin": summary.origin,
        "language": summary.language,
        "published": summary.published,
        "chapters": summary.chapter_count,
        "segments": summary.segment_count,
    }
    if tokens is not None:
        out["tokens"] = tokens
    return out


def collection_brief(collection: Collection) -> dict[str, Any]:
    """A collection as `list_collections` lists it: counts, not members."""
    return {
        "id": collection.id,
        "name": collection.name,
        "description": collection.description or None,
        "videos": len(collection.video_ids),
        "sources": list(collection.sources),
        "createdAt": collection.created_at or None,
    }
