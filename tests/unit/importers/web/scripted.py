"""Offline stand-ins for the web: a scripted InfoSource, yt-dlp errors built as yt-dlp does."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from yt_dlp.extractor.youtube import YoutubeIE
from yt_dlp.utils import DownloadError, ExtractorError

from tests.conftest import corpus_path

INFO_JSON = "youtube-native/yt-dlp-info-json/fxZWtc0mYpQ.crashcourse-psych-6.info.sanitized.json"
INNERTUBE = "youtube-native/youtube-transcript-api/{name}.innertube.json"
CRASHCOURSE_SRT = (
    "transcripts/crashcourse-psychology/homunculus_crash_course_psychology_6_fxZWtc0mYpQ.en.srt"
)
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "web"

# yt-dlp's own advice text, appended to every "sign in" reason (taken from yt-dlp itself).
YTDLP_LOGIN_HINT: str = YoutubeIE()._youtube_login_hint


class ScriptedInfoSource:
    """An InfoSource that answers from a script: URL → info dict, or an exception to raise."""

    def __init__(self, script: dict[str, dict[str, Any] | BaseException]) -> None:
        self.script = script
        self.calls: list[tuple[str, bool]] = []

    async def extract(self, url: str, *, flat: bool = False) -> dict[str, Any]:
        self.calls.append((url, flat))
        if url not in self.script:
            raise AssertionError(f"unscripted URL {url}")
        answer = self.script[url]
        if isinstance(answer, BaseException):
            raise answer
        return copy.deepcopy(answer)


def crashcourse_info() -> dict[str, Any]:
    """The real, sanitized yt-dlp info dict of Crash Course Psychology #6 (read in place)."""
    data: dict[str, Any] = json.loads(corpus_path(INFO_JSON).read_text(encoding="utf-8"))
    return data


def playability(name: str) -> dict[str, Any]:
    """The recorded `playabilityStatus` of one InnerTube player response."""
    path = corpus_path(INNERTUBE.format(name=name))
    status: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["playabilityStatus"]
    return status


def _runs(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    if "simpleText" in value:
        return str(value["simpleText"])
    return "".join(str(run.get("text", "")) for run in value.get("runs", []))


def ytdlp_reason(status: dict[str, Any]) -> str:
    """The reason text yt-dlp's YouTube extractor builds from a playabilityStatus.

    Mirrors `YoutubeIE._real_extract` (yt-dlp 2026.10): the error screen's reason, else the
    status reason, plus the subreason, and yt-dlp's cookie advice after any "sign in" reason.
    """
    pemr = (status.get("errorScreen") or {}).get("playerErrorMessageRenderer") or {}
    reason = _runs(pemr.get("reason")) or str(status.get("reason") or "")
    subreason = _runs(pemr.get("subreason"))
    if subreason and subreason != reason:
        reason += f". {subreason}"
    if "sign in" in reason.lower():
        reason = reason.removesuffix("This helps protect our community. Learn more")
        reason = f"{reason.strip().removesuffix('.')}. {YTDLP_LOGIN_HINT}"
    return reason


def ytdlp_error(
    reason: str, video_id: str | None = "Njp5uhTorCo", ie: str = "youtube"
) -> DownloadError:
    """A DownloadError exactly as `YoutubeDL.extract_info` raises it for an extractor failure."""
    try:
        raise ExtractorError(reason, expected=True, video_id=video_id, ie=ie)
    except ExtractorError as exc:
        return DownloadError(f"ERROR: {exc}", sys.exc_info())
