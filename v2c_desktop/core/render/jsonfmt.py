"""JSON: the whole record as data, one segment per line so it stays cheap to read.

Fully indented JSON spends five lines (and many tokens) per segment; flat objects inside a
list are written on one line each, which is still valid, diff-friendly JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..domain.videos import Segment, VideoRecord
from ..ids import timestamp_url
from .common import PageInfo

_INDENT = "  "


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(float(value), 3)


def _is_flat(value: Any) -> bool:
    return isinstance(value, dict) and not any(isinstance(v, (dict, list)) for v in value.values())


def dump(value: Any, level: int = 0) -> str:
    """Indented JSON, except that flat objects in a list take one line each."""
    pad, inner = _INDENT * level, _INDENT * (level + 1)
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k)}: {dump(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value:
        if all(_is_flat(v) for v in value):
            rows = [inner + json.dumps(v, ensure_ascii=False) for v in value]
        else:
            rows = [inner + dump(v, level + 1) for v in value]
        return "[\n" + ",\n".join(rows) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def record_document(
    record: VideoRecord, segments: Sequence[Segment], page: PageInfo | None
) -> dict[str, Any]:
    """The JSON document as a dict: video, transcript, chapters, [page], segments."""
    video, transcript = record.video, record.transcript
    doc: dict[str, Any] = {
        "video": {
            "id": video.id,
            "title": video.title,
            "platform": video.platform,
            "native_id": video.native_id,
            "channel": video.channel,
            "url": video.url,
            "source_path": video.source_path,
            "duration": _seconds(record.duration),
            "published": video.published,
        },
        "transcript": {
            "origin": transcript.origin,
            "language": transcript.language,
            "producer": transcript.producer,
            "translated_from": transcript.translated_from,
        },
        "chapters": [
            {
                "title": c.title,
                "start": _seconds(c.start),
                "end": _seconds(c.end),
                "url": timestamp_url(video, c.start),
            }
            for c in record.chapters
        ],
    }
    if page is not None:
        doc["page"] = {
            "cursor": page.cursor,
            "next_cursor": page.next_cursor,
            "first_segment": page.first,
            "last_segment": page.last,
            "total_segments": page.total,
        }
    doc["segments"] = [
        {"start": _seconds(s.start), "end": _seconds(s.end), "text": s.text} for s in segments
    ]
    return doc


def render_json(
    record: VideoRecord,
    segments: Sequence[Segment],
    *,
    timestamps: bool,
    page: PageInfo | None,
) -> str:
    """`timestamps` is ignored: the data always carries start and end."""
    return dump(record_document(record, segments, page)) + "\n"
