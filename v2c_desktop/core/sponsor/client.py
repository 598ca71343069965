"""Ask SponsorBlock for a YouTube video's skip segments, without telling it which video.

The privacy-preserving endpoint is asked for every video whose id's SHA-256 starts with the
same 4 hex characters (`GET {server}/api/skipSegments/{prefix}?categories=[...]`); it answers
a JSON list of `{videoID, hash, segments: [...]}` for the videos of that prefix it knows, and
404 when it knows none. Only the entry of our video is kept. The answer is untrusted: its
size is capped, and a segment that is not a well-formed skip of a known category is dropped.

The HTTP client is the core's (`WebAccess.http`: the user's proxy and timeout), so tests
replay recorded answers through an httpx transport.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Sequence
from typing import Any

import httpx

from ... import __version__
from ..domain.skips import CATEGORIES, SkipSegment
from ..errors import V2CError
from ..importers.web.fetch import network_error, retry_after_seconds
from ..plain_text import strip_controls

#: The largest answer read: a prefix is shared by a few hundred videos at most.
MAX_BYTES = 4 * 1024 * 1024
#: The whole request, however slowly the answer trickles in.
DEADLINE_S = 60.0
#: Segments kept of one video (SponsorBlock sends one or a few per category).
MAX_SEGMENTS = 200
DESCRIPTION_CHARS = 300
AGENT = f"v2c-desktop/{__version__}"
LATER_HINT = (
    "SponsorBlock is a free community service: try again in a few minutes. Segments fetched "
    "before stay in the library and are still used."
)


def hash_prefix(youtube_id: str) -> str:
    """The first 4 hex characters of the id's SHA-256: all SponsorBlock learns of the video."""
    return hashlib.sha256(youtube_id.encode("utf-8")).hexdigest()[:4]


async def fetch_segments(
    http: httpx.AsyncClient,
    youtube_id: str,
    *,
    server: str,
    categories: Sequence[str] = CATEGORIES,
    deadline: float = DEADLINE_S,
) -> list[SkipSegment]:
    """The video's skip segments of `categories` (none when SponsorBlock knows none).

    Failures are `V2CError`s: `rate-limited` for 429, `upstream` for the rest, with a hint."""
    url = f"{server.rstrip('/')}/api/skipSegments/{hash_prefix(youtube_id)}"
    params = {"categories": json.dumps(list(categories), separators=(",", ":"))}
    try:
        async with asyncio.timeout(deadline):
            status, headers, body = await _get(http, url, params)
    except httpx.TimeoutException as exc:
        raise network_error("SponsorBlock did not answer in time", url, exc) from None
    except TimeoutError:
        raise V2CError(
            "upstream",
            f"SponsorBlock took longer than {deadline:g} s to answer, so it was stopped",
            LATER_HINT,
            {"url": url},
        ) from None
    except httpx.HTTPError as exc:  # connection, proxy, TLS, too many redirects
        raise network_error("Could not reach SponsorBlock", url, exc) from None
    if status == 404:  # it knows no video of this prefix
        return []
    details: dict[str, Any] = {"url": url, "status": status}
    if status == 429:
        raise _rate_limited(headers, details)
    if status >= 400:
        raise V2CError(
            "upstream",
            f"SponsorBlock answered HTTP {status}"
            + (" (it is having trouble)" if status >= 500 else ""),
            LATER_HINT if status >= 500 else "Check the SponsorBlock server in the settings.",
            details,
        )
    return parse_answer(body, youtube_id)


async def _get(
    http: httpx.AsyncClient, url: str, params: dict[str, str]
) -> tuple[int, httpx.Headers, bytes]:
    """The status, headers and (capped) body of GET `url`."""
    headers = {"User-Agent": AGENT, "Accept": "application/json"}
    async with http.stream("GET", url, params=params, headers=headers) as response:
        if response.status_code >= 300:
            return response.status_code, response.headers, b""
        chunks: list[bytes] = []
        total = 0
        async for chunk in response.aiter_bytes():
            total += len(chunk)
            if total > MAX_BYTES:
                raise V2CError(
                    "upstream",
                    f"SponsorBlock sent more than {MAX_BYTES // (1024 * 1024)} MB, "
                    "so it was not read",
                    "Check the SponsorBlock server in the settings; the real one never does.",
                    {"url": url},
                )
            chunks.append(chunk)
        return response.status_code, response.headers, b"".join(chunks)


def _rate_limited(headers: httpx.Headers, details: dict[str, Any]) -> V2CError:
    seconds = retry_after_seconds(headers.get("retry-after"))
    message = "SponsorBlock is limiting requests from this network (HTTP 429)"
    if seconds is not None:
        details["retry_after_seconds"] = seconds
        message += f"; it asks to wait {seconds} s"
    return V2CError("rate-limited", message, LATER_HINT, details)


def parse_answer(body: bytes, youtube_id: str) -> list[SkipSegment]:
    """The segments of `youtube_id` in an answer for its hash prefix; the other videos'
    entries and malformed segments are ignored."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise V2CError(
            "upstream",
            "SponsorBlock's answer is not JSON",
            "Check the SponsorBlock server in the settings, or try again later.",
        ) from None
    if not isinstance(data, list):
        raise V2CError(
            "upstream",
            "SponsorBlock's answer is not a list of videos",
            "Check the SponsorBlock server in the settings, or try again later.",
        )
    found: list[SkipSegment] = []
    for entry in data:
        if not isinstance(entry, dict) or entry.get("videoID") != youtube_id:
            continue
        raw = entry.get("segments")
        for item in raw if isinstance(raw, list) else []:
            segment = _segment(item)
            if segment is not None and segment not in found:
                found.append(segment)
    return sorted(found, key=lambda s: (s.start, s.end))[:MAX_SEGMENTS]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _segment(item: Any) -> SkipSegment | None:
    """One well-formed skip segment of a known category, else None."""
    if not isinstance(item, dict):
        return None
    pair = item.get("segment")
    if not isinstance(pair, list) or len(pair) != 2:
        return None
    start, end = _number(pair[0]), _number(pair[1])
    if start is None or end is None or start < 0 or end <= start:
        return None
    category = item.get("category")
    action = item.get("actionType", "skip")
    if category not in CATEGORIES or action != "skip":
        return None
    votes = _number(item.get("votes"))
    duration = _number(item.get("videoDuration"))
    description = item.get("description")
    return SkipSegment(
        category=str(category),
        start=round(start, 3),
        end=round(end, 3),
        uuid=strip_controls(str(item.get("UUID") or ""))[:100],
        votes=int(votes) if votes is not None else 0,
        locked=bool(item.get("locked")),
        action_type="skip",
        description=strip_controls(description)[:DESCRIPTION_CHARS]
        if isinstance(description, str)
        else "",
        video_duration=duration if duration else None,
    )
