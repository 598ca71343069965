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

from ...errors import V2CError, unsupported_input
from ...file_kinds import URL_LIST_MAX_BYTES
from ...ids import is_web, youtube_id_from_url
from ..reading import read_limited
from .info_source import InfoSource, extract_info

_MAX_DEPTH = 3
_URL_LIST_HINT = (
    "A .txt, .urls or .list file is read as one http(s) URL per line (# starts a comment); "
    "the line is not shown, in case the file holds something private. Fix that line, or "
    "give the file another extension if it is not a list of URLs."
)
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
    """The entry's own address. yt-dlp's generic extractor hands feed entries over with
    its private `#__youtubedl_smuggle=...` fragment (hints for its next extractor): that is
    not the video's address, and stored as the source it would be shown, exported and
    compared with what the user pastes later, so it is cut off."""
    for key in ("url", "webpage_url", "original_url"):
        value = str(entry.get(key) or "")
        if "://" in value:
            return _unsmuggled(value)
    native = str(entry.get("id") or entry.get("url") or "")
    if str(entry.get("ie_key") or "").lower() == "youtube" and native:
        return f"https://www.youtube.com/watch?v={native}"
    return None


def _unsmuggled(url: str) -> str:
    """`url` without yt-dlp's smuggled fragment (yt-dlp's own reading of it; loaded here,
    not at import, as every yt-dlp use in core is)."""
    from yt_dlp.utils import unsmuggle_url

    return str(unsmuggle_url(url)[0])


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


def _is_url(line: str) -> bool:
    try:
        return is_web(line) and not any(ch.isspace() or ch < " " for ch in line)
    except ValueError:  # urlparse refuses some malformed hosts ("http://[::1")
        return False


def read_url_list(path: Path | str) -> list[str]:
    """The URLs in a text file, one per line; blank lines and `#` comment lines are skipped.

    The file may be anything a user happened to name `.txt`: a line that is not an http(s)
    URL fails the whole file, naming the file and the line number but never the line (it
    may be a key or a password). Only a regular file of at most `URL_LIST_MAX_BYTES` is read.
    """
    path = Path(path)
    data = read_limited(path, URL_LIST_MAX_BYTES, "a list of URLs")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise unsupported_input(
            f"{path.name} is not a list of URLs: it is not UTF-8 text", _URL_LIST_HINT
        ) from None
    urls: list[str] = []
    bad: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        if _is_url(item):
            urls.append(item)
        else:
            bad.append(number)
    if bad:
        more = f" (and {len(bad) - 1} more lines)" if len(bad) > 1 else ""
        if not urls:
            problem = f"{path.name} is not a list of URLs: line {bad[0]}{more} is not a web address"
        else:
            problem = f"{path.name} line {bad[0]}{more} is not a web address"
        raise V2CError(
            "unsupported-input",
            problem,
            _URL_LIST_HINT,
            {"path": str(path), "lines": bad[:20]},
        )
    return urls
