"""yt-dlp's info dict → the library's `Video` and `Chapter`s.

yt-dlp normalises hundreds of sites into one dict, but fields are optional and loosely typed
(durations as int or float, dates as `YYYYMMDD`, chapters without an end). This module is the
one place that decides the defaults, so the store never sees a half-filled record.
"""

from __future__ import annotations

import re
from typing import Any

from ...domain.videos import Chapter, Video
from ...ids import video_id
from ...plain_text import strip_controls

_YYYYMMDD = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


def platform_of(info: dict[str, Any]) -> str:
    """`youtube` for YouTube, else yt-dlp's extractor key lower-cased (`vimeo`, `twitchvod`)."""
    extractor = str(info.get("extractor") or "").lower()
    key = str(info.get("extractor_key") or extractor or "web").lower()
    if extractor == "youtube" or key == "youtube":
        return "youtube"
    return key


def producer_of(info: dict[str, Any]) -> str:
    """Who made the captions, for `Transcript.producer`: the site yt-dlp read them from."""
    platform = platform_of(info)
    if platform == "youtube":
        return platform
    return str(info.get("extractor") or platform).lower()


def iso_date(value: object) -> str | None:
    """`20140310` → `2014-03-10`; anything else → None."""
    match = _YYYYMMDD.match(str(value or ""))
    return "-".join(match.groups()) if match else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number >= 0 else None


def _text(value: object) -> str:
    """A text field as given, without terminal escapes and control characters (see
    `strip_controls`): the info dict comes from a site or a file nobody vetted."""
    return strip_controls(str(value or ""))


def video_from_info(info: dict[str, Any]) -> Video:
    """The `Video` described by a yt-dlp info dict (text fields without control characters)."""
    native = str(info.get("id") or "")
    platform = platform_of(info)
    return Video(
        id=video_id(platform, native),
        title=_text(info.get("title") or info.get("fulltitle") or native),
        platform=platform,
        native_id=native,
        channel=_text(info.get("channel") or info.get("uploader")),
        url=str(info.get("webpage_url") or info.get("original_url") or ""),
        duration=_number(info.get("duration")),
        published=iso_date(info.get("upload_date")) or iso_date(info.get("release_date")),
        description=_text(info.get("description")),
        thumbnail_url=str(info.get("thumbnail") or ""),
        channel_id=str(info.get("channel_id") or info.get("uploader_id") or ""),
    )


def chapters_from_info(info: dict[str, Any]) -> list[Chapter]:
    """The video's chapters in order; a missing end is the next start, or the video's end."""
    ordered: list[tuple[float, dict[str, Any]]] = []
    for item in info.get("chapters") or []:
        start = _number(item.get("start_time")) if isinstance(item, dict) else None
        if start is not None:
            ordered.append((start, item))
    ordered.sort(key=lambda pair: pair[0])
    duration = _number(info.get("duration"))
    chapters: list[Chapter] = []
    for index, (start, item) in enumerate(ordered):
        end = _number(item.get("end_time"))
        if end is None:
            if index + 1 < len(ordered):
                end = ordered[index + 1][0]
            else:
                end = duration if duration is not None else start
        title = _text(item.get("title")) or f"Chapter {index + 1}"
        chapters.append(Chapter(title=title, start=start, end=max(start, end)))
    return chapters
