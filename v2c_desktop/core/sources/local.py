"""Local inputs: media files with sidecar subtitles, subtitle files alone, yt-dlp archive folders.

A folder archived with `yt-dlp --write-subs --write-info-json` holds `<name>.info.json` beside
`<name>.<lang>.srt|vtt` (and maybe the media file): the info JSON gives the real id, title,
channel, date, duration, chapters and URL, so such a video gets the same id as if it had been
imported from the web and re-importing it from either side replaces, never duplicates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..captions import parse_captions
from ..errors import V2CError, bad_request, no_transcript, unsupported_input
from ..ids import file_video_id
from ..model import Chapter, Origin, Segment, Transcript, Video, VideoRecord
from .web.metadata import chapters_from_info, video_from_info

SUBTITLE_EXTENSIONS = {".srt", ".vtt", ".json3", ".srv1", ".srv3", ".xml"}
MEDIA_EXTENSIONS = {
    ".mp4",
    ".mkv",
    ".webm",
    ".mov",
    ".avi",
    ".m4v",
    ".flv",
    ".wmv",
    ".mpg",
    ".mpeg",
    ".mp3",
    ".m4a",
    ".aac",
    ".wav",
    ".flac",
    ".ogg",
    ".oga",
    ".opus",
    ".wma",
}
INFO_SUFFIX = ".info.json"
_LANG_SUFFIX = re.compile(r"^(?P<base>.+)\.(?P<lang>[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)$")
_GENERIC_STEMS = {"captions", "subtitles", "subtitle", "transcript", "subs", "video"}
_EXTENSION_FORMATS = {
    ".srt": "srt",
    ".vtt": "vtt",
    ".json3": "json3",
    ".srv1": "timedtext",
    ".srv3": "timedtext",
    ".xml": "timedtext",
}


@dataclass
class LocalItem:
    """One video's worth of local files, grouped by their shared base name."""

    base: str
    folder: Path
    media: Path | None = None
    subtitles: list[tuple[Path, str]] = field(default_factory=list)  # (file, language)
    info_json: Path | None = None

    @property
    def label(self) -> str:
        main = self.media or (self.subtitles[0][0] if self.subtitles else self.info_json)
        return str(main) if main else str(self.folder / self.base)


def split_subtitle_name(path: Path) -> tuple[str, str]:
    """`talk.en-US.srt` -> (`talk`, `en-US`); `talk.srt` -> (`talk`, ``)."""
    stem = path.name[: -len(path.suffix)]
    match = _LANG_SUFFIX.match(stem)
    if match:
        return match.group("base"), match.group("lang").replace("_", "-")
    return stem, ""


def _base_name(path: Path) -> str | None:
    name = path.name
    if name.endswith(INFO_SUFFIX):
        return name[: -len(INFO_SUFFIX)]
    suffix = path.suffix.lower()
    if suffix in SUBTITLE_EXTENSIONS:
        return split_subtitle_name(path)[0]
    if suffix in MEDIA_EXTENSIONS:
        return path.stem
    return None


def group_files(paths: Iterable[Path]) -> list[LocalItem]:
    """Group media, subtitle and info files that belong to one video by their base name."""
    items: dict[tuple[Path, str], LocalItem] = {}
    for path in sorted(paths):
        base = _base_name(path)
        if base is None:
            continue
        key = (path.parent, base)
        item = items.setdefault(key, LocalItem(base=base, folder=path.parent))
        if path.name.endswith(INFO_SUFFIX):
            item.info_json = path
        elif path.suffix.lower() in MEDIA_EXTENSIONS:
            item.media = path
        else:
            item.subtitles.append((path, split_subtitle_name(path)[1]))
    return list(items.values())


def scan_folder(folder: Path) -> list[LocalItem]:
    """Every video in a folder tree; an info.json with neither subtitles nor media is ignored."""
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return [i for i in group_files(files) if i.subtitles or i.media]


def item_for_file(path: Path) -> LocalItem:
    """The group a single named file belongs to, picking up its siblings as sidecars."""
    suffix = path.suffix.lower()
    if suffix not in SUBTITLE_EXTENSIONS and suffix not in MEDIA_EXTENSIONS:
        raise unsupported_input(
            f"{path.name} is neither a subtitle file nor a video or audio file",
            "give a .srt or .vtt subtitle file, a media file with one beside it, or a folder",
        )
    base = _base_name(path)
    siblings = [p for p in path.parent.iterdir() if p.is_file() and _base_name(p) == base]
    for item in group_files(siblings):
        if item.base == base:
            if suffix in SUBTITLE_EXTENSIONS:  # the file the user named comes first
                item.subtitles.sort(key=lambda s: s[0] != path)
            return item
    raise unsupported_input(f"cannot read {path}", "check the file name and extension")


def _pick_subtitle(item: LocalItem, languages: tuple[str, ...]) -> tuple[Path, str]:
    if not item.subtitles:
        target = item.media.name if item.media else item.base
        raise no_transcript(
            f"{target} has no subtitle file beside it",
            f"put a subtitle file named {item.base}.srt (or {item.base}.en.vtt) next to it; "
            "speech-to-text for local files is not available yet",
        )
    for wanted in languages:
        for sub, lang in item.subtitles:
            if lang.lower() == wanted.lower() or lang.lower().split("-")[0] == wanted.lower():
                return sub, lang
    return item.subtitles[0]


def _read_info(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise bad_request(
            f"cannot read {path.name}: {exc}", "fix or delete the broken .info.json sidecar"
        ) from exc
    if not isinstance(data, dict) or not data.get("id"):
        raise bad_request(f"{path.name} is not a yt-dlp info file", "delete or fix the sidecar")
    return data


def _origin_from_info(info: dict[str, Any], language: str) -> Origin:
    """yt-dlp lists creator tracks under `subtitles` and machine ones under `automatic_captions`."""
    lang = language.split("-")[0] if language else ""
    if any(k.split("-")[0] == lang for k in (info.get("subtitles") or {})):
        return "creator-captions"
    if any(k.split("-")[0] == lang for k in (info.get("automatic_captions") or {})):
        return "auto-captions"
    return "subtitle-file"


def _title_for(item: LocalItem) -> str:
    if item.base.lower() in _GENERIC_STEMS:
        return item.folder.name
    return item.base


def load_local(item: LocalItem, languages: tuple[str, ...] = ("en",)) -> VideoRecord:
    """Read one local video: its transcript from the sidecar, metadata from info.json if any."""
    sub_path, language = _pick_subtitle(item, languages)
    try:
        data = sub_path.read_bytes()
    except OSError as exc:
        raise bad_request(f"cannot read {sub_path}: {exc.strerror}", "check the file") from exc
    segments = _parse_with_hint(data, sub_path)
    info = _read_info(item.info_json) if item.info_json else None
    chapters: list[Chapter] = []
    if info is not None:
        video = video_from_info(info)
        chapters = chapters_from_info(info)
        origin = _origin_from_info(info, language or str(info.get("language") or ""))
        producer = f"yt-dlp archive ({info.get('extractor_key') or info.get('extractor') or 'web'})"
        language = language or str(info.get("language") or "")
    else:
        anchor = item.media or sub_path
        video = Video(
            id=file_video_id(anchor),
            title=_title_for(item),
            platform="file",
            native_id="",
            duration=None,
        )
        video.native_id = video.id.split(":", 1)[1]
        origin, producer = "subtitle-file", f"subtitle file {sub_path.name}"
    video.source_path = str((item.media or sub_path).resolve())
    if video.duration is None:
        video.duration = max((s.end for s in segments), default=0.0)
    transcript = Transcript(
        origin=origin,
        language=language,
        segments=segments,
        producer=producer,
        track_name=sub_path.name,
    )
    return VideoRecord(video, transcript, chapters)


def _parse_with_hint(data: bytes, path: Path) -> list[Segment]:
    """Content decides the format; the extension is only a fallback (files get misnamed)."""
    try:
        return parse_captions(data, None, source_name=path.name)
    except V2CError as exc:
        if exc.code != "unsupported-input":
            raise
        fmt = _EXTENSION_FORMATS[path.suffix.lower()]
        return parse_captions(data, fmt, source_name=path.name)  # type: ignore[arg-type]
