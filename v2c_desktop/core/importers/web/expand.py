"""Turn what a user pastes (a video, a playlist, a channel, a file of links) into video URLs.

Importing is per video, so every bigger input is first expanded into the list of its videos.
Playlists are read flat (one request lists every entry without visiting each video), and a
channel page is a playlist of its tabs (Videos, Shorts, Live), each itself a playlist, so the
expansion follows nested playlists a few levels deep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from ...errors import V2CError
from ...ids import youtube_id_from_url
from .info_source import InfoSource, extract_info

_MAX_DEPTH = 3
_LIST_TYPES = frozenset({"playlist", "multi_video"})
# Extractors whose URL results are lists, not videos (YouTube's are YoutubeTab, the rest vary).
_LIST_EXTRACTOR_WORDS = ("tab", "playlist", "channel", "user", "album", "season", "series", "show")


def _is_plain_youtube_video(url: str) -> bool:
    """A YouTube video URL that names no playlist: no need to ask the site what it is."""
    if youtube_id_from_url(url) is None:
        return False
    return "list" not in parse_qs(urlparse(url).query)


def _entry_is_list(entry: dict[str, Any]) -> bool:
    kind = str(entry.get("_type") or "")
    if kind in _LIST_TYPES:
        return True
    if kind not in ("url", "url_transparent"):
        return False
    ie_key = str(entry.get("ie_key") or "").lower()
    return ie_key != "youtube" and any(word in ie_key for word in _LIST_EXTRACTOR_WORDS)


def _entry_url(entry: dict[str, Any]) -> str | None:
    for key in ("url", "webpage_url", "original_url"):
        value = str(entry.get(key) or "")
        if "://" in value:
            return value
    native = str(entry.get("id") or entry.get("url") or "")
    if str(entry.get("ie_key") or "").lower() == "youtube" and native:
        return f"https://www.youtube.com/watch?v={native}"
    return None


async def _collect(
    info: dict[str, Any], info_source: InfoSource, depth: int, seen: set[str], out: list[str]
) -> None:
    for entry in info.get("entries") or []:
        if not isinstance(entry, dict):
            continue
        url = _entry_url(entry)
        if _entry_is_list(entry):
            if entry.get("entries") is not None:  # already expanded inline
                await _collect(entry, info_source, depth + 1, seen, out)
            elif url and depth < _MAX_DEPTH and url not in seen:
                seen.add(url)
                nested = await extract_info(info_source, url, flat=True)
                await _collect(nested, info_source, depth + 1, seen, out)
            continue
        if url and url not in out:
            out.append(url)


async def expand_web_input(url: str, *, info_source: InfoSource) -> list[str]:
    """The video URLs behind `url`: itself for a video, the entries of a playlist or channel."""
    url = url.strip()
    if _is_plain_youtube_video(url):
        return [url]
    info = await extract_info(info_source, url, flat=True)
    if str(info.get("_type") or "video") not in _LIST_TYPES:
        return [url]
    out: list[str] = []
    await _collect(info, info_source, 1, {url}, out)
    return out


def read_url_list(path: Path | str) -> list[str]:
    """The URLs in a text file, one per line; blank lines and `#` comment lines are skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise V2CError("not-found", f"No such file: {path}", "Check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise V2CError(
            "bad-request", f"Cannot read {path}: {exc}", "Give a UTF-8 text file, one URL a line."
        ) from None
    urls: list[str] = []
    for line in text.splitlines():
        item = line.strip()
        if item and not item.startswith("#"):
            urls.append(item)
    return urls
