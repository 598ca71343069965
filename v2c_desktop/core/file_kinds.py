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


# -- Limits on untrusted input --------------------------------------------------------------
# Every local file an import reads, and every caption it downloads, is untrusted: it is read
# only when it is a regular file (never a pipe, device or socket, which could block forever)
# and only up to the cap of its kind, checked before reading (a sparse 2 GB file is refused
# by its size) and again while reading (a file that grows, a stream that never ends).

_MB = 1024 * 1024

#: Subtitle files (.srt, .vtt, .json3, .srv1/.srv3/.xml): a 10-hour json3 track is ~15 MB.
SUBTITLE_MAX_BYTES = 50 * _MB
#: yt-dlp `.info.json` sidecars: big ones (many formats, chapters, comments) are ~5 MB.
INFO_JSON_MAX_BYTES = 20 * _MB
#: URL lists (.txt, .urls, .list): 5 MB is some 50,000 URLs.
URL_LIST_MAX_BYTES = 5 * _MB
#: A caption track downloaded from a video site: the same cap as a subtitle file.
WEB_CAPTION_MAX_BYTES = SUBTITLE_MAX_BYTES
#: The longest a caption download may take in all, however slowly the bytes trickle in
#: (the per-request `WebSettings.timeout` only bounds each wait for the next bytes).
WEB_CAPTION_DEADLINE_S = 120.0
#: The audio of a web video without captions, downloaded to transcribe it (`stt.web_audio`):
#: some 10 hours of a site's best audio; `best` may be a whole video where there is no
#: audio-only format, and a bigger one is refused rather than filling the disk.
WEB_AUDIO_MAX_BYTES = 1024 * _MB


def size_text(size: int) -> str:
    """`52428800` -> `50 MB`, `2147483648` -> `2.0 GB`: a size as a message shows it."""
    if size >= 1024 * _MB:
        return f"{size / (1024 * _MB):.1f} GB"
    if size >= _MB:
        return f"{size / _MB:.0f} MB"
    return f"{max(1, size // 1024)} KB"
