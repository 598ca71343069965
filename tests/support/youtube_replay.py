"""YouTube without the internet: recorded InnerTube player responses, read the way yt-dlp
reads them, and their caption tracks served by an httpx transport.

The corpus (`youtube-native/youtube-transcript-api/`) holds real `/youtubei/v1/player`
responses: `captions.playerCaptionsTracklistRenderer` with creator tracks, a `kind: asr`
track and `translationLanguages`. v2c never reads a player response itself: yt-dlp does,
and hands v2c an info dict. `info_from_player_response` builds that info dict from a
recorded response the way yt-dlp 2026.10 does (`YoutubeIE._real_extract`, the
`process_language` loop: creator tracks under `subtitles`; the recogniser's track as `en`
and `en-orig`, its translations as `de` with `tlang=de`, and each translatable creator
track's as `de-en`, "German from English", under `automatic_captions`), so the importer
meets exactly what yt-dlp would give it for that video.

The corpus has no caption payloads for these videos, so `CaptionSite` answers each
timedtext URL with a small json3 body whose lines name the track asked for
("creator de, line 1"; "auto en>fr, line 1"): a test reads which track was imported.

`ReplayInfoSource` is an `InfoSource` over the recorded videos; any other video id answers
as yt-dlp does for the recorded "This video is unavailable" player response. Asked for
comments, it adds the hand-written `comments` of tests/fixtures/comments/ (see its README),
cut to the count asked for as YouTube's `max_comments` cuts them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import httpx
from yt_dlp.utils import DownloadError, ExtractorError, update_url_query

from v2c_desktop.core.ids import youtube_id_from_url
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web_access import WebAccess

PLAYERS = "youtube-native/youtube-transcript-api"
#: the recorded videos: id → player response file (under PLAYERS)
RECORDED = {
    "GJLlxj_dtq8": "youtube.innertube.json",  # 8 creator tracks + auto en, 18 translations
    "F1xioXWb8CY": "youtube_ww1_nl_en.innertube.json",  # creator en + auto en, 17
    "dsMFmonKDD4": "youtube_transcripts_disabled.innertube.json",  # no captions at all
}
UNAVAILABLE = "youtube_video_unavailable.innertube.json"
#: hand-written yt-dlp `comments` lists by video id (no recorded payload exists offline)
COMMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "comments" / "youtube.json"
#: yt-dlp's `YoutubeIE._SUBTITLE_FORMATS` (2026.10), in its order
SUBTITLE_FORMATS = ("json3", "srv1", "srv2", "srv3", "ttml", "srt", "vtt")
CAPTION_LINES = 3


def watch_url(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


def _text(value: Any) -> str:
    """yt-dlp's `_get_text(..., max_runs=1)`: simpleText, else the first run's text."""
    if not isinstance(value, dict):
        return ""
    if "simpleText" in value:
        return str(value["simpleText"])
    runs = value.get("runs") or []
    return str(runs[0].get("text", "")) if runs else ""


def _add(
    container: dict[str, list[dict[str, Any]]],
    base: str,
    code: str,
    name: str,
    query: dict[str, Any],
) -> None:
    """yt-dlp's `process_language`: one entry per subtitle format."""
    entries = container.setdefault(code, [])
    for fmt in SUBTITLE_FORMATS:
        url = update_url_query(base, {**query, "fmt": fmt, "xosf": []})
        entries.append({"ext": fmt, "url": urljoin("https://www.youtube.com", url), "name": name})


def captions_from_player_response(
    player: dict[str, Any],
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    """`(subtitles, automatic_captions)` as yt-dlp lists them with `writeautomaticsub` on
    (translated subtitles included), for a player response without PO-token rules."""
    renderer = (player.get("captions") or {}).get("playerCaptionsTracklistRenderer") or {}
    translations = {
        lang["languageCode"]: _text(lang["languageName"])
        for lang in renderer.get("translationLanguages") or []
        if lang.get("languageCode") and lang.get("languageName")
    }
    subtitles: dict[str, list[dict[str, Any]]] = {}
    automatic: dict[str, list[dict[str, Any]]] = {}
    for track in renderer.get("captionTracks") or []:
        base = track.get("baseUrl")
        if not base:
            continue
        lang_code = (track.get("vssId") or "").removeprefix(".").replace(".", "-") or track.get(
            "languageCode"
        )
        orig_lang = (parse_qs(urlparse(base).query).get("lang") or [None])[-1]
        lang_name = _text(track.get("name"))
        manual = track.get("kind") != "asr"
        if manual:
            if not lang_code:
                continue
            _add(subtitles, base, lang_code, lang_name, {})
            if not track.get("isTranslatable"):
                continue
        for trans_code, trans_name in translations.items():
            orig_trans_code = trans_code
            if manual and trans_code != "und":
                trans_code += f"-{lang_code}"
                trans_name += f" from {lang_name}" if lang_name else ""
            if lang_code == f"a-{orig_trans_code}":
                _add(automatic, base, f"{trans_code}-orig", f"{trans_name} (Original)", {})
            query = {} if orig_lang == orig_trans_code else {"tlang": trans_code}
            _add(automatic, base, trans_code, trans_name, query)
        lang_code = (lang_code or "").removeprefix("a-")
        if manual or not lang_code or lang_code in automatic:
            continue
        lang_name = lang_name.removesuffix(" (auto-generated)")
        if track.get("isTranslatable"):
            _add(automatic, base, f"{lang_code}-orig", f"{lang_name} (Original)", {})
        _add(automatic, base, lang_code, lang_name, {})
    return subtitles, automatic


def info_from_player_response(player: dict[str, Any]) -> dict[str, Any]:
    """The part of yt-dlp's info dict v2c reads, for a recorded player response."""
    details = player.get("videoDetails") or {}
    video_id = str(details.get("videoId") or "")
    subtitles, automatic = captions_from_player_response(player)
    return {
        "id": video_id,
        "title": details.get("title"),
        "channel": details.get("author"),
        "uploader": details.get("author"),
        "channel_id": details.get("channelId"),
        "duration": int(details.get("lengthSeconds") or 0) or None,
        "description": details.get("shortDescription") or "",
        "webpage_url": watch_url(video_id),
        "original_url": watch_url(video_id),
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "subtitles": subtitles,
        "automatic_captions": automatic,
    }


def _unavailable(folder: Path, video_id: str) -> DownloadError:
    """What yt-dlp raises for a video whose player response is the recorded "unavailable"."""
    status = json.loads((folder / UNAVAILABLE).read_text(encoding="utf-8"))["playabilityStatus"]
    reason = _text(
        (status.get("errorScreen") or {}).get("playerErrorMessageRenderer", {}).get("reason")
    ) or str(status.get("reason") or "")
    try:
        raise ExtractorError(reason, expected=True, video_id=video_id, ie="youtube")
    except ExtractorError as exc:
        import sys

        return DownloadError(f"ERROR: {exc}", sys.exc_info())


class ReplayInfoSource:
    """An `InfoSource` answering from the recorded player responses in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.calls: list[str] = []
        self.comment_calls: list[tuple[str, int]] = []  # (url, count asked) per comments read
        self._infos: dict[str, dict[str, Any]] = {}

    def info(self, video_id: str) -> dict[str, Any]:
        if video_id not in self._infos:
            player = json.loads((self.folder / RECORDED[video_id]).read_text(encoding="utf-8"))
            self._infos[video_id] = info_from_player_response(player)
        return copy.deepcopy(self._infos[video_id])

    async def extract(
        self, url: str, *, flat: bool = False, comments: int | None = None
    ) -> dict[str, Any]:
        self.calls.append(url)
        video_id = youtube_id_from_url(url) or ""
        if video_id not in RECORDED:
            raise _unavailable(self.folder, video_id or url)
        info = self.info(video_id)
        if comments is not None:
            self.comment_calls.append((url, comments))
            recorded = json.loads(COMMENTS.read_text(encoding="utf-8")).get(video_id, [])
            info["comments"] = recorded[:comments]
            info["comment_count"] = len(info["comments"])
        return info


def caption_label(query: dict[str, list[str]]) -> str:
    """Which track a timedtext URL asks for: "creator de", "auto en", "auto en>fr",
    "creator en>de" (a creator translation's `tlang` is yt-dlp's `de-en` key)."""
    lang = (query.get("lang") or [""])[0]
    kind = "auto" if "asr" in query.get("kind", []) else "creator"
    target = (query.get("tlang") or [""])[0].removesuffix(f"-{lang}")
    return f"{kind} {lang}>{target}" if target else f"{kind} {lang}"


def caption_lines(label: str) -> list[str]:
    return [f"{label}, line {n}" for n in range(1, CAPTION_LINES + 1)]


class CaptionSite:
    """The timedtext endpoint as an httpx transport: json3 bodies naming their track; every
    request is kept in `requests`. Anything else is a 404; everything is a 429 while
    `refusing`."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.refusing = False  # answer as YouTube does a blocked network: 429
        self.transport = httpx.MockTransport(self._answer)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(str(request.url))
        if self.refusing:
            return httpx.Response(429, text="<html><body>unusual traffic</body></html>")
        query = parse_qs(request.url.query.decode())
        if request.url.path != "/api/timedtext" or (query.get("fmt") or [""])[0] != "json3":
            return httpx.Response(404, text="not recorded")
        events = [
            {"tStartMs": i * 2000, "dDurationMs": 2000, "segs": [{"utf8": line}]}
            for i, line in enumerate(caption_lines(caption_label(query)))
        ]
        return httpx.Response(
            200,
            text=json.dumps({"wireMagic": "pb3", "events": events}),
            headers={"content-type": "application/json"},
        )

    def labels(self) -> list[str]:
        """The tracks downloaded so far, in order."""
        return [caption_label(parse_qs(urlparse(url).query)) for url in self.requests]


def replay_web(folder: Path) -> tuple[WebAccess, ReplayInfoSource, CaptionSite]:
    """A `WebAccess` over the recordings, with its info source and caption site."""
    source, site = ReplayInfoSource(folder), CaptionSite()
    web = WebAccess(source, httpx.AsyncClient(transport=site.transport), WebSettings())
    return web, source, site
