"""Stable video ids and timestamp URLs that open a video at a given second.

A citation is only useful if it opens the player at the right moment, so every platform's
own deep-link form lives here, in one place.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode, urlparse, urlunparse

from .domain.videos import Video
from .file_kinds import is_media

_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_YOUTUBE_HOSTS = {
    "youtube.com",
    "www.youtube.com",
    "m.youtube.com",
    "music.youtube.com",
    "youtube-nocookie.com",
    "www.youtube-nocookie.com",
}


def video_id(platform: str, native_id: str) -> str:
    """`youtube:<id>`, `file:<hash>`, `<extractor>:<id>`; the platform is lower-cased."""
    return f"{platform.lower()}:{native_id}"


def split_video_id(vid: str) -> tuple[str, str]:
    platform, _, native = vid.partition(":")
    return platform, native


def youtube_id_from_url(url: str) -> str | None:
    """The 11-character id of a YouTube watch, short, embed, live or shorts URL."""
    try:
        parsed = urlparse(url.strip())
    except ValueError:
        return None
    host = (parsed.hostname or "").lower()
    candidate: str | None = None
    if host in ("youtu.be", "www.youtu.be"):
        candidate = parsed.path.lstrip("/").split("/")[0]
    elif host in _YOUTUBE_HOSTS:
        if parsed.path == "/watch":
            values = parse_qs(parsed.query).get("v") or []
            candidate = values[0] if values else None
        else:
            parts = [p for p in parsed.path.split("/") if p]
            if len(parts) >= 2 and parts[0] in ("embed", "shorts", "live", "v", "e"):
                candidate = parts[1]
    if candidate and _YOUTUBE_ID.match(candidate):
        return candidate
    return None


def youtube_id_of(video: Video) -> str | None:
    """The YouTube id of a video in the library: a YouTube import's own, or that of the
    YouTube page a local video names (a yt-dlp archive's metadata); None for any other."""
    if video.platform.lower() == "youtube":
        return video.native_id if _YOUTUBE_ID.match(video.native_id) else None
    return youtube_id_from_url(video.url) if is_web(video.url) else None


def file_video_id(path: Path, chunk_size: int = 1 << 20) -> str:
    """`file:<first 16 hex of sha256>` of the file's bytes, so a moved file keeps its id."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk_size):
            digest.update(block)
    return video_id("file", digest.hexdigest()[:16])


def is_web(url: str | None) -> bool:
    """An http(s) address with a host: the only kind of link the app ever opens."""
    if not url:
        return False
    parsed = urlparse(url)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def _whole(seconds: float) -> int:
    return max(0, int(seconds))


def _with_query(url: str, **params: str) -> str:
    parsed = urlparse(url)
    query = parse_qs(parsed.query, keep_blank_values=True)
    for key, value in params.items():
        query[key] = [value]
    return urlunparse(parsed._replace(query=urlencode(query, doseq=True), fragment=""))


def _twitch_time(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m}m{s}s"


def local_file_url(path: str, seconds: float) -> str:
    """A `file://` URL with a Media Fragments time (`#t=42.5`) that our player reads."""
    return f"{_file_url(path)}#t={seconds:g}"


@functools.lru_cache(maxsize=1024)
def _file_url(path: str) -> str:
    """`file://` + the resolved, quoted path: resolved once per path, not once per line of
    a transcript (an export links every line)."""
    return f"file://{quote(str(Path(path).resolve()))}"


def timestamp_url(video: Video, seconds: float) -> str:
    """A URL that opens `video` at `seconds`, in the site's own form where we know it.

    A local video links to its media file; one imported from a subtitle file alone links
    to its web page when it has one (a metadata file beside the captions named it), never
    to the subtitle file, which shows no video. A page address that is not http(s) (an
    imported `.info.json` can claim any scheme) gives no link at all: "".
    """
    platform = video.platform.lower()
    whole = _whole(seconds)
    if platform == "youtube":
        return f"https://www.youtube.com/watch?v={video.native_id}&t={whole}s"
    if platform == "file" or (not video.url and video.source_path):
        if video.source_path and (is_media(video.source_path) or not is_web(video.url)):
            return local_file_url(video.source_path, seconds)
        if not is_web(video.url):
            return ""
        youtube = youtube_id_from_url(video.url)
        if youtube:
            return f"https://www.youtube.com/watch?v={youtube}&t={whole}s"
        return f"{video.url.split('#')[0]}#t={whole}"
    url = video.url
    if not is_web(url):  # file://, smb://, javascript: from a metadata file: text, never a link
        return ""
    if platform == "vimeo":
        return f"{url.split('#')[0]}#t={whole}s"
    if platform.startswith("twitch"):
        return _with_query(url, t=_twitch_time(whole))
    if platform == "dailymotion":
        return _with_query(url, start=str(whole))
    # Media Fragments (#t=) is understood by HTML5 players, so it is the honest default.
    return f"{url.split('#')[0]}#t={whole}"
