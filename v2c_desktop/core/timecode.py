"""Reading and writing times the way people type and read them (`90`, `1:30`, `1:02:03`)."""

from __future__ import annotations

import re

from .errors import bad_request

_UNITS = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$")


def parse_time(value: str | float | int) -> float:
    """Seconds from `90`, `90.5`, `1:30`, `1:02:03`, `1h2m3s` or `90s`."""
    if isinstance(value, (int, float)):
        if value < 0:
            raise bad_request(f"time {value} is negative", "give a time of 0 or more")
        return float(value)
    text = value.strip()
    if not text:
        raise bad_request("empty time", "give a time such as 90, 1:30 or 1:02:03")
    if ":" in text:
        parts = text.split(":")
        if len(parts) > 3 or not all(re.fullmatch(r"\d+(?:\.\d+)?", p) for p in parts):
            raise bad_request(f"cannot read time {value!r}", "use 90, 1:30 or 1:02:03")
        seconds = 0.0
        for part in parts:
            seconds = seconds * 60 + float(part)
        return seconds
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    match = _UNITS.match(text.lower())
    if match and any(match.groups()):
        h, m, s = (float(g) if g else 0.0 for g in match.groups())
        return h * 3600 + m * 60 + s
    raise bad_request(f"cannot read time {value!r}", "use 90, 1:30 or 1:02:03")


def clock(seconds: float) -> str:
    """`m:ss` below an hour, `h:mm:ss` above; seconds are floored so a link never jumps late."""
    total = max(0, int(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def subtitle_clock(seconds: float, separator: str = ",") -> str:
    """`HH:MM:SS,mmm` for SRT (or `.` for WebVTT)."""
    millis = max(0, round(seconds * 1000))
    h, rest = divmod(millis, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{separator}{ms:03d}"
