"""How a video plays: the app's YouTube page, local media, or not at all (the transcript
reader then opens at the cited second), and the media file beside a subtitle file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.file_kinds import MEDIA_EXTENSIONS, is_subtitle
from v2c_desktop.core.ids import is_web

Kind = Literal["youtube", "local", "external", "none"]

# `talk.en.srt`, `talk.en-US.vtt`: the language part the importer also reads off the name
_LANGUAGE = re.compile(r"^(?P<base>.+)\.[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


@dataclass(frozen=True)
class Playback:
    """How to play one video, and why when it cannot play inside the app.

    `external`: it has a page on the web (the reader offers it); `none`: it has nothing else.
    """

    kind: Kind
    reason: str = ""


def choose_playback(video: Video, *, webengine: bool) -> Playback:
    """Local media first (it plays offline), then YouTube in the app."""
    source = Path(video.source_path) if video.source_path else None
    is_media = source is not None and source.suffix.lower() in MEDIA_EXTENSIONS
    if source is not None and is_media and source.is_file():
        return Playback("local")
    if video.platform.lower() == "youtube":
        if webengine:
            return Playback("youtube")
        return Playback(
            "external", "QtWebEngine is not available, so YouTube videos do not play in the app"
        )
    if is_media:
        missing = f"the media file {video.source_path} is missing"
        return Playback("external", missing) if is_web(video.url) else Playback("none", missing)
    if is_web(video.url):
        if video.platform.lower() == "file":
            return Playback(
                "external", "this video was imported from a subtitle file: its page plays it"
            )
        site = video.platform or "this site"
        return Playback("external", f"{site} videos do not play inside the app")
    return Playback(
        "none", "this video was imported from a subtitle file alone: there is no media to play"
    )


def media_beside(subtitle_path: str) -> Path | None:
    """The video or audio file next to a subtitle file, named like it (`talk.en.srt` ->
    `talk.mp4`), if one is there now. Reads the disk: call it off the GUI thread."""
    if not subtitle_path or not is_subtitle(subtitle_path):
        return None
    subtitle = Path(subtitle_path)
    stem = subtitle.name[: -len(subtitle.suffix)]
    match = _LANGUAGE.match(stem)
    bases = [stem, match.group("base")] if match else [stem]
    try:
        siblings = {p.name.lower(): p for p in subtitle.parent.iterdir()}
    except OSError:
        return None
    for base in bases:
        for extension in sorted(MEDIA_EXTENSIONS):
            found = siblings.get(f"{base}{extension}".lower())
            if found is not None and found.is_file():
                return found
    return None
