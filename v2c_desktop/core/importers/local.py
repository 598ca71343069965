"""Local inputs: media files with sidecar subtitles, subtitle files alone, yt-dlp archive folders.

A folder archived with `yt-dlp --write-subs --write-info-json` holds `<name>.info.json` beside
`<name>.<lang>.srt|vtt` (and maybe the media file): the info JSON gives the real id, title,
channel, date, duration, chapters and URL, so such a video gets the same id as if it had been
imported from the web and is never duplicated. The info JSON is untrusted, though, and may
claim any video's id: an archive replaces a video the library read from the web only when
the user confirms (`v2c add --replace-web`), and its transcript keeps saying where it came
from (`producer`: "yt-dlp archive (...)", `source_path`: the file).

Without an info JSON the id is the hash of the media (or subtitle) file, and the title is the
best one at hand: a `meta.json` / `metadata.json` beside the subtitle, when that folder holds
this one video (its `title`, and its `url` and `duration_s` when they are plain and safe:
the file is untrusted input), else a readable form of the file name, or of the folder name
when the file name says nothing (`2024_attention/captions.en.srt` -> "Attention (2024)").
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..captions import Captions, read_captions
from ..domain.videos import Chapter, Origin, Segment, Transcript, Video, VideoRecord
from ..errors import V2CError, bad_request, no_transcript, unsupported_input
from ..file_kinds import (
    INFO_JSON_MAX_BYTES,
    MEDIA_EXTENSIONS,
    SUBTITLE_EXTENSIONS,
    SUBTITLE_MAX_BYTES,
)
from ..ids import file_video_id, youtube_id_from_url
from ..plain_text import strip_controls
from .reading import check_regular, read_limited
from .web.metadata import chapters_from_info, video_from_info

INFO_SUFFIX = ".info.json"
_LANG_SUFFIX = re.compile(r"^(?P<base>.+)\.(?P<lang>[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)$")
_GENERIC_STEMS = {"captions", "subtitles", "subtitle", "transcript", "subs", "video"}
METADATA_NAMES = ("meta.json", "metadata.json")
_METADATA_MAX_BYTES = 256 * 1024
_TITLE_MAX = 300
_URL_MAX = 2048
_NATIVE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_YEAR_FIRST = re.compile(r"^((?:19|20)\d\d) (.+)$")
_MAX_DURATION = 7 * 24 * 3600.0
_MAX_WARNINGS = 10
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


def media_items(files: Iterable[Path]) -> list[LocalItem]:
    """The videos among these files (a folder's walk, `folder_scan`); an info.json with
    neither subtitles nor media is ignored."""
    return [i for i in group_files(files) if i.subtitles or i.media]


def folder_items(folder: Path) -> list[LocalItem]:
    """The videos of one folder's own files (not its subfolders): an info.json's siblings."""
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    return media_items(files)


def item_for_file(path: Path) -> LocalItem:
    """The group a single named file belongs to, picking up its siblings as sidecars."""
    suffix = path.suffix.lower()
    if suffix not in SUBTITLE_EXTENSIONS and suffix not in MEDIA_EXTENSIONS:
        raise unsupported_input(
            f"{path.name} is neither a subtitle file nor a video or audio file",
            "give a .srt or .vtt subtitle file, a media file with one beside it, or a folder",
        )
    check_regular(path)  # a pipe named `talk.srt` is refused here, never read
    base = _base_name(path)
    siblings = [p for p in path.parent.iterdir() if p.is_file() and _base_name(p) == base]
    for item in group_files(siblings):
        if item.base == base:
            if suffix in SUBTITLE_EXTENSIONS:  # the file the user named comes first
                item.subtitles.sort(key=lambda s: s[0] != path)
            return item
    raise unsupported_input(f"cannot read {path}", "check the file name and extension")


def chosen_subtitle(item: LocalItem, languages: tuple[str, ...]) -> Path | None:
    """The subtitle file `load_local` reads for this item, None when it has none."""
    for wanted in languages:
        for sub, lang in item.subtitles:
            if lang.lower() == wanted.lower() or lang.lower().split("-")[0] == wanted.lower():
                return sub
    return item.subtitles[0][0] if item.subtitles else None


def _pick_subtitle(item: LocalItem, languages: tuple[str, ...]) -> tuple[Path, str]:
    chosen = chosen_subtitle(item, languages)
    if chosen is None:
        target = item.media.name if item.media else item.base
        raise no_transcript(
            f"{target} has no subtitle file beside it",
            f"put a subtitle file named {item.base}.srt (or {item.base}.en.vtt) next to it, "
            "or add it without `--no-transcribe` to have its speech transcribed",
        )
    return next((sub, lang) for sub, lang in item.subtitles if sub == chosen)


def _read_info(path: Path) -> dict[str, Any]:
    raw = read_limited(path, INFO_JSON_MAX_BYTES, "a .info.json file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # JSON and UTF-8 errors say where, never what
        raise bad_request(
            f"cannot read {path.name}: {exc}", "fix or delete the broken .info.json sidecar"
        ) from None
    except RecursionError:
        raise bad_request(
            f"cannot read {path.name}: its JSON is nested too deeply",
            "fix or delete the broken .info.json sidecar: yt-dlp never writes one like this",
        ) from None
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


def readable_name(name: str) -> str:
    """A title from a file or folder name: `2024_attention` -> `Attention (2024)`.

    `_` always separates words; in a name without spaces (a slug) `-` and `.` do too. A
    leading year moves to the end, and an all-lowercase name gets a capital first letter.
    """
    text = name.replace("_", " ")
    if " " not in name.strip():
        text = re.sub(r"[-.]+", " ", text)
    text = " ".join(text.split())
    if not text:
        return name
    year_first = _YEAR_FIRST.match(text)
    if year_first:
        text = f"{year_first.group(2)} ({year_first.group(1)})"
    if text == text.lower():
        text = text[:1].upper() + text[1:]
    return text


def _title_for(item: LocalItem) -> str:
    if item.base.lower() in _GENERIC_STEMS:
        return readable_name(item.folder.name)
    return readable_name(item.base)


@dataclass
class FolderMetadata:
    """What a `meta.json` beside a subtitle file says about its video, checked field by field."""

    title: str = ""
    url: str = ""
    duration: float | None = None
    warnings: list[str] = field(default_factory=list)


def _plain_text(value: object, limit: int) -> str:
    """A string field as one plain line: control and format characters out, spaces single."""
    if not isinstance(value, str):
        return ""
    kept = []
    for ch in value:
        kind = unicodedata.category(ch)
        if kind == "Cc" or kind[0] == "Z":
            kept.append(" ")  # tabs, newlines, odd spaces
        elif kind[0] != "C":
            kept.append(ch)  # format characters (bidi overrides, soft hyphens) are dropped
    text = " ".join("".join(kept).split())
    return text[:limit].rstrip()


def _web_url(value: object) -> str:
    """An http(s) URL with a host and nothing odd in it, else ""."""
    if not isinstance(value, str) or len(value) > _URL_MAX:
        return ""
    if any(ch.isspace() or unicodedata.category(ch)[0] == "C" for ch in value):
        return ""
    try:
        parsed = urlparse(value)
        host = parsed.hostname
    except ValueError:
        return ""
    if parsed.scheme.lower() not in ("http", "https") or not host or "@" in parsed.netloc:
        return ""
    return value


def _duration(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0 < number <= _MAX_DURATION else None


def _only_video_in(item: LocalItem) -> bool:
    """True when no other video's subtitle or media file shares the item's folder."""
    try:
        names = [p for p in item.folder.iterdir() if p.is_file()]
    except OSError:
        return False
    video_files = [p for p in names if p.suffix.lower() in SUBTITLE_EXTENSIONS | MEDIA_EXTENSIONS]
    return all(_base_name(p) == item.base for p in video_files)


def folder_metadata(item: LocalItem) -> FolderMetadata:
    """The `meta.json` / `metadata.json` beside the item's files, when it can only describe it.

    The file is untrusted: it is read only if small, each field is taken only when it has the
    expected type and shape (the title as plain text, an http(s) URL, a positive finite
    duration), a URL naming another YouTube video than its `video_id` is dropped, and
    anything else in it is ignored. A broken file is reported and otherwise ignored.
    """
    found = FolderMetadata()
    candidates = [item.folder / name for name in METADATA_NAMES]
    path = next((p for p in candidates if p.is_file()), None)
    if path is None or not _only_video_in(item):
        return found
    try:
        if path.stat().st_size > _METADATA_MAX_BYTES:
            found.warnings.append(f"{path.name} was ignored: it is larger than 256 KB")
            return found
        data = json.loads(read_limited(path, _METADATA_MAX_BYTES, "meta.json").decode("utf-8"))
    except V2CError as exc:
        found.warnings.append(f"{path.name} was ignored: {exc.message}")
        return found
    except (OSError, ValueError, RecursionError) as exc:
        found.warnings.append(f"{path.name} was ignored: it is not readable JSON ({exc})")
        return found
    if not isinstance(data, dict):
        found.warnings.append(f"{path.name} was ignored: it is not a JSON object")
        return found
    found.title = _plain_text(data.get("title"), _TITLE_MAX)
    found.url = _web_url(data.get("url"))
    native = data.get("video_id")
    if found.url and isinstance(native, str) and _NATIVE_ID.match(native):
        named = youtube_id_from_url(found.url)
        if named is not None and named != native:
            found.url = ""  # the two fields disagree: trust neither for the link
    found.duration = _duration(data.get("duration_s"))
    return found


@dataclass
class LocalRead:
    """One local video as read: its record, the subtitle file used, what to tell the user."""

    record: VideoRecord
    subtitle: Path
    warnings: list[str] = field(default_factory=list)


#: How a local import names the transcript's producer: the provenance that tells a video
#: read from the user's files from one the library read from the site itself.
ARCHIVE_PRODUCER = "yt-dlp archive"
SUBTITLE_PRODUCER = "subtitle file"


def is_local_transcript(transcript: Transcript) -> bool:
    """Whether `transcript` was read from local files (a subtitle file, a yt-dlp archive)."""
    return transcript.origin == "subtitle-file" or transcript.producer.startswith(
        (ARCHIVE_PRODUCER, SUBTITLE_PRODUCER)
    )


def load_local(item: LocalItem, languages: tuple[str, ...] = ("en",)) -> VideoRecord:
    """Read one local video: its transcript from the sidecar, metadata from info.json if any."""
    return read_local(item, languages).record


def read_local(item: LocalItem, languages: tuple[str, ...] = ("en",)) -> LocalRead:
    """`load_local`, with the subtitle file it used and the warnings for the import outcome.

    Warnings name the damaged cues that were left out of the transcript (with their lines)
    and metadata files that were ignored.
    """
    sub_path, language = _pick_subtitle(item, languages)
    data = read_limited(sub_path, SUBTITLE_MAX_BYTES, "a subtitle file")
    captions = _parse_with_hint(data, sub_path)
    segments = captions.segments
    warnings = [f"{sub_path.name} {cue.describe()}" for cue in captions.skipped]
    if len(warnings) > _MAX_WARNINGS:
        more = len(warnings) - _MAX_WARNINGS
        warnings[_MAX_WARNINGS:] = [f"{sub_path.name}: {more} more damaged cues were left out"]
    info = _read_info(item.info_json) if item.info_json else None
    chapters: list[Chapter] = []
    if info is not None:
        video = video_from_info(info)
        chapters = chapters_from_info(info)
        origin = _origin_from_info(info, language or str(info.get("language") or ""))
        producer = (
            f"{ARCHIVE_PRODUCER} ({info.get('extractor_key') or info.get('extractor') or 'web'})"
        )
        language = language or str(info.get("language") or "")
    else:
        anchor = item.media or sub_path
        meta = folder_metadata(item)
        warnings.extend(meta.warnings)
        video = Video(
            id=file_video_id(anchor),
            title=meta.title or strip_controls(_title_for(item)),
            platform="file",
            native_id="",
            url=meta.url,
            duration=_trusted_duration(meta.duration, segments),
        )
        video.native_id = video.id.split(":", 1)[1]
        origin = "subtitle-file"
        producer = strip_controls(f"{SUBTITLE_PRODUCER} {sub_path.name}")
    video.source_path = str((item.media or sub_path).resolve())
    if video.duration is None:
        video.duration = max((s.end for s in segments), default=0.0)
    transcript = Transcript(
        origin=origin,
        language=language,
        segments=segments,
        producer=producer,
        track_name=strip_controls(sub_path.name),
    )
    return LocalRead(VideoRecord(video, transcript, chapters), sub_path, warnings)


def _trusted_duration(duration: float | None, segments: list[Segment]) -> float | None:
    """A metadata duration, unless the captions run on after it (then it is wrong)."""
    if duration is None:
        return None
    last_start = max((s.start for s in segments), default=0.0)
    return duration if duration >= last_start else None


def _parse_with_hint(data: bytes, path: Path) -> Captions:
    """Content decides the format; the extension is only a fallback (files get misnamed)."""
    try:
        return read_captions(data, None, source_name=path.name)
    except V2CError as exc:
        if exc.code != "unsupported-input":
            raise
        fmt = _EXTENSION_FORMATS[path.suffix.lower()]
        return read_captions(data, fmt, source_name=path.name)  # type: ignore[arg-type]
