"""Which backend plays a video: the app's YouTube page, local media, or the system browser."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.file_kinds import MEDIA_EXTENSIONS
from v2c_desktop.core.ids import is_web

Kind = Literal["youtube", "local", "external", "none"]


@dataclass(frozen=True)
class Playback:
    """How to play one video, and why when it cannot play inside the app."""

    kind: Kind
    reason: str = ""


def choose_playback(video: Video, *, webengine: bool) -> Playback:
    """Local media first (it plays offline), then YouTube in the app, then the browser."""
    source = Path(video.source_path) if video.source_path else None
    is_media = source is not None and source.suffix.lower() in MEDIA_EXTENSIONS
    if source is not None and is_media and source.is_file():
        return Playback("local")
    if video.platform.lower() == "youtube":
        if webengine:
            return Playback("youtube")
        return Playback("external", "QtWebEngine is not available, so YouTube plays in the browser")
    if is_media:
        missing = f"the media file {video.source_path} is missing"
        return Playback("external", missing) if video.url else Playback("none", missing)
    if is_web(video.url):
        if video.platform.lower() == "file":
            why = "this video was imported from a subtitle file: its page opens in the browser"
            return Playback("external", why)
        site = video.platform or "this site"
        return Playback("external", f"{site} videos do not play inside the app")
    return Playback(
        "none", "this video was imported from a subtitle file alone: there is no media to play"
    )
