"""Timestamp links inside the app: `v2c-seek:?video=<id>&t=<seconds>` and back.

A `seek://42.5` URL comes back from QUrl with the host read as an IP address
(`42.0.0.5`), so the seconds travel in the query instead; video ids contain a colon
(`youtube:abc`), which the query encoding keeps intact.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

SCHEME = "v2c-seek"


def seek_href(video_id: str, seconds: float) -> str:
    """The href of a link that plays `video_id` from `seconds`."""
    return f"{SCHEME}:?" + urlencode({"video": video_id, "t": f"{max(0.0, seconds):.3f}"})


def parse_seek_href(href: str) -> tuple[str, float] | None:
    """(video id, seconds) from a seek link, or None for any other link."""
    parts = urlsplit(href)
    if parts.scheme != SCHEME:
        return None
    query = parse_qs(parts.query)
    video = (query.get("video") or [""])[0]
    try:
        seconds = float((query.get("t") or [""])[0])
    except ValueError:
        return None
    if not video or seconds < 0 or seconds != seconds:  # NaN
        return None
    return video, seconds
