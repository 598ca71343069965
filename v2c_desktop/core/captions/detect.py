"""Tell which caption format a text is in: by content first, by file extension second.

Content wins because extensions lie (yt-dlp names json3 files `.json3` but users rename
them, converters write VTT into `.srt`). Content that is clearly something else (HTML, TTML,
JSON without caption events, binary data) is refused even when the extension says
otherwise, so the user gets "this is not a subtitle file" rather than a parse error deep in
a format they never had.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Literal

from v2c_desktop.core.captions.decode import looks_binary
from v2c_desktop.core.captions.failures import not_subtitles

CaptionFormat = Literal["vtt", "srt", "json3", "timedtext"]

_EXTENSIONS: dict[str, CaptionFormat] = {
    ".vtt": "vtt",
    ".webvtt": "vtt",
    ".srt": "srt",
    ".json3": "json3",
    ".srv1": "timedtext",
    ".srv2": "timedtext",
    ".srv3": "timedtext",
    ".xml": "timedtext",
}

_HEAD = 4096
_TS = r"(?:\d+:)?\d{1,2}:\d{1,2}[,.]\d{1,3}"
# An SRT file opens with a cue number and then a timing line.
_SRT_OPENING = re.compile(rf"\A\d+[ \t]*\n[ \t]*{_TS}[ \t]*-->")
_TIMING_LINE = re.compile(r"^[ \t]*(?:\d+:)?\d{1,2}:\d{1,2}([,.])\d{1,3}[ \t]*-->", re.M)
_TIMEDTEXT_ROOT = re.compile(r"<(?:transcript|timedtext)\b")
_TTML_ROOT = re.compile(r"<(?:tt|tt:tt)\b")
_HTML = re.compile(r"<(?:!doctype\s+html|html)\b", re.I)
_JSON_EVENTS = re.compile(r'"events"\s*:')

_FORMATS_HINT = (
    "Use WebVTT (.vtt), SRT (.srt), YouTube json3 (.json3) or YouTube timedtext XML "
    "(.srv1/.srv3/.xml) captions; yt-dlp writes them with --write-subs --sub-format vtt."
)


def _by_content(text: str, source_name: str) -> CaptionFormat | None:
    """The format the text itself declares, None when it doesn't say."""
    head = text[:_HEAD]
    if head.startswith("WEBVTT"):
        return "vtt"
    if head.startswith(("{", "[")):
        if _JSON_EVENTS.search(text):
            return "json3"
        raise not_subtitles(
            source_name,
            'it is JSON but has no "events" list, so it is not YouTube json3 captions',
            _FORMATS_HINT,
        )
    if head.startswith("<"):
        if _TIMEDTEXT_ROOT.search(head):
            return "timedtext"
        if _HTML.search(head):
            raise not_subtitles(
                source_name,
                "it is a web page (HTML), not captions",
                "If you saved a video page, import the video's URL instead.",
            )
        if _TTML_ROOT.search(head):
            raise not_subtitles(
                source_name,
                "it is TTML/DFXP captions, which are not supported",
                "Convert them to SRT or WebVTT first (yt-dlp: --convert-subs srt).",
            )
        raise not_subtitles(source_name, "it is an XML document but not YouTube timedtext")
    if _SRT_OPENING.match(head):
        return "srt"
    timing = _TIMING_LINE.search(head)
    if timing:
        # No header and no cue number: the millisecond separator tells SRT (",") from
        # WebVTT (".").
        return "srt" if timing.group(1) == "," else "vtt"
    return None


def detect_format(data: str, filename: str = "") -> CaptionFormat:
    """Which caption format `data` is in; raises V2CError "unsupported-input" when unknown."""
    text = data.lstrip("\ufeff \t\r\n").replace("\r\n", "\n")
    if looks_binary(text):
        raise not_subtitles(filename, "it holds binary data, not text", _FORMATS_HINT)
    found = _by_content(text, filename)
    if found:
        return found
    extension = PurePath(filename).suffix.lower() if filename else ""
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension]
    problem = "it is empty" if not text else "neither its content nor its name says which format"
    raise not_subtitles(filename, problem, _FORMATS_HINT)
