"""The three ways reading captions can fail, worded the same for every format.

Every surface shows `V2CError` as message + hint, so the parsers never let a library
exception through: they say which file, which format and where (line or cue), and what the
user can do about it.
"""

from __future__ import annotations

from v2c_desktop.core.errors import V2CError

FORMAT_LABELS = {
    "vtt": "WebVTT",
    "srt": "SRT",
    "json3": "YouTube json3",
    "timedtext": "YouTube timedtext XML",
}


def shown_name(source_name: str) -> str:
    """How a file is named in messages: its name, or a generic phrase for pasted text."""
    return source_name or "the caption data"


def snippet(text: str, limit: int = 50) -> str:
    """A short, single-spaced quote of file content for a message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def broken(
    source_name: str, fmt: str, problem: str, *, line: int | None = None, where: str = ""
) -> V2CError:
    """A recognised caption file that cannot be read as it is ("bad-request").

    `line` (1-based) points the user at the place to look; `where` names it otherwise
    (an event number, an element).
    """
    label = FORMAT_LABELS.get(fmt, fmt)
    name = shown_name(source_name)
    place = f"line {line}" if line is not None else where
    at = f" at {place}" if place else ""
    look = f"check {place}" if place else "check it"
    details: dict[str, object] = {"source": source_name, "format": fmt}
    if line is not None:
        details["line"] = line
    return V2CError(
        "bad-request",
        f"{name} looks like {label} captions but is broken{at}: {problem}",
        f"Re-download the subtitles, or open {name} to {look}.",
        details,
    )


def not_subtitles(source_name: str, problem: str, hint: str = "") -> V2CError:
    """Input that is not any caption format we read ("unsupported-input")."""
    name = shown_name(source_name)
    return V2CError(
        "unsupported-input",
        f"{name} is not a subtitle file we can read: {problem}",
        hint or "Use WebVTT (.vtt), SRT (.srt), YouTube json3 or YouTube timedtext XML captions.",
        {"source": source_name},
    )


def no_text(source_name: str, problem: str) -> V2CError:
    """A readable caption file that holds no words ("no-transcript")."""
    name = shown_name(source_name)
    return V2CError(
        "no-transcript",
        f"{name} has no caption text: {problem}",
        "Pick another subtitle track or language, or transcribe the audio instead.",
        {"source": source_name},
    )
