"""What yt-dlp says about a stream, turned into how to watch it (or why it cannot be).

yt-dlp reports `is_live` / `live_status` for every site it knows (its generic extractor too:
an HLS playlist without `#EXT-X-ENDLIST` is live). A stream that is not live, not yet live
or no longer live is refused with a hint to import it as a video instead. A live stream is
read from its own live captions when yt-dlp lists a WebVTT-over-HLS track (the site's
words, no model needed), else from its audio: the best audio-only HLS rendition, else the
HLS variant with the least bandwidth (speech needs no picture).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..domain.live import LiveSource
from ..errors import V2CError
from ..plain_text import strip_controls

_HLS = ("m3u8", "m3u8_native")


def _title(info: dict[str, Any]) -> str:
    return strip_controls(str(info.get("fulltitle") or info.get("title") or info.get("id") or ""))


def check_live(info: dict[str, Any], url: str) -> None:
    """Raise `bad-request` unless yt-dlp says the stream at `url` is live now."""
    status = str(info.get("live_status") or "")
    if info.get("is_live") is True or status == "is_live":
        return
    title = _title(info) or url
    details = {"url": url, "live_status": status or None}
    if status in ("was_live", "post_live"):
        raise V2CError(
            "bad-request",
            f"{title} was a live stream and has ended",
            "Its recording can be read whole: {import-video}.",
            details,
        )
    if status == "is_upcoming":
        raise V2CError(
            "bad-request",
            f"{title} has not started yet",
            "Watch it once it is live; the page says when it starts.",
            details,
        )
    raise V2CError(
        "bad-request",
        f"{title} is not a live stream",
        "It is an ordinary video: {import-video}.",
        details,
    )


@dataclass(frozen=True, slots=True)
class WatchPlan:
    """How to watch: `url` is the HLS playlist to read; `language` and `name` describe live
    captions (`origin`: creator or automatic captions)."""

    source: LiveSource
    url: str
    language: str = ""
    name: str = ""
    origin: Literal["creator-captions", "auto-captions"] = "creator-captions"


def _live_tracks(info: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    """(language, track, automatic) for every caption track read live over HLS."""
    found: list[tuple[str, dict[str, Any], bool]] = []
    for key, automatic in (("subtitles", False), ("automatic_captions", True)):
        tracks = info.get(key) or {}
        if not isinstance(tracks, dict):
            continue
        for language, entries in tracks.items():
            if language == "live_chat" or not isinstance(entries, list):
                continue
            for entry in entries:
                if not isinstance(entry, dict) or not str(entry.get("url") or ""):
                    continue
                if entry.get("protocol") in _HLS and entry.get("ext", "vtt") == "vtt":
                    found.append((str(language), entry, automatic))
    return found


def _pick_track(
    tracks: list[tuple[str, dict[str, Any], bool]], languages: tuple[str, ...]
) -> tuple[str, dict[str, Any], bool] | None:
    def rank(item: tuple[str, dict[str, Any], bool]) -> tuple[int, bool]:
        language = item[0].lower()
        for index, wanted in enumerate((*languages, "en")):
            base = wanted.lower()
            if language == base or language.split("-")[0] == base.split("-")[0]:
                return index, item[2]
        return len(languages) + 1, item[2]

    return min(tracks, key=rank) if tracks else None


def _audio_format(info: dict[str, Any]) -> dict[str, Any] | None:
    formats = [
        f
        for f in info.get("formats") or []
        if isinstance(f, dict)
        and f.get("protocol") in _HLS
        and f.get("acodec") != "none"
        and str(f.get("url") or "").startswith(("http://", "https://"))
    ]
    audio = [f for f in formats if f.get("vcodec") == "none"]
    if audio:
        return max(audio, key=lambda f: float(f.get("abr") or f.get("tbr") or 0))
    if formats:
        return min(formats, key=lambda f: (float(f.get("tbr") or 0), f.get("height") or 0))
    return None


def plan_watch(info: dict[str, Any], languages: tuple[str, ...] = ()) -> WatchPlan:
    """Live captions when the stream has them, else its audio; `unsupported-input` when
    it offers neither over HLS."""
    track = _pick_track(_live_tracks(info), languages)
    if track is not None:
        language, entry, automatic = track
        return WatchPlan(
            "captions",
            str(entry["url"]),
            language,
            strip_controls(str(entry.get("name") or language)),
            "auto-captions" if automatic else "creator-captions",
        )
    chosen = _audio_format(info)
    if chosen is None:
        offered = sorted({str(f.get("protocol")) for f in info.get("formats") or []})
        raise V2CError(
            "unsupported-input",
            f"{_title(info) or 'the stream'} is not offered as HLS audio, which live "
            f"watching reads (offered: {', '.join(offered) or 'nothing'})",
            "Watch it on the site, and import the recording once the stream has ended.",
            {"protocols": offered},
        )
    return WatchPlan("speech", str(chosen["url"]))
