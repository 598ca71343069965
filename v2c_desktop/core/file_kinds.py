"""Which local files are media, subtitles or lists of URLs, by their extension.

One list for the importer (what a folder scan picks up), the links (a subtitle file is no
place to send a reader) and the faces (file dialogs, what the player can open).
"""

from __future__ import annotations

from pathlib import PurePath

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

#: Text files read as one URL per line (`#` comments allowed).
URL_LIST_EXTENSIONS = {".txt", ".urls", ".list"}


def is_media(path: str | PurePath) -> bool:
    return PurePath(path).suffix.lower() in MEDIA_EXTENSIONS


def is_subtitle(path: str | PurePath) -> bool:
    return PurePath(path).suffix.lower() in SUBTITLE_EXTENSIONS
