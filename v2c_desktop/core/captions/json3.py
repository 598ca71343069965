"""YouTube json3 captions (`fmt=json3`, yt-dlp `--sub-format json3`), hand-written.

Hand-written because no maintained library reads json3; the format is plain JSON (read with
the stdlib) in this shape:

    {"wireMagic": "pb3", "pens": [...], "wsWinStyles": [...], "wpWinPositions": [...],
     "events": [
       {"tStartMs": 0, "dDurationMs": 60000, "id": 1, "wpWinPosId": 1, "wsWinStyleId": 1},
       {"tStartMs": 160, "dDurationMs": 4080, "wWinId": 1,
        "segs": [{"utf8": "hi", "acAsrConf": 0}, {"utf8": " everyone", "tOffsetMs": 160}]},
       {"tStartMs": 2270, "dDurationMs": 1970, "wWinId": 1, "aAppend": 1,
        "segs": [{"utf8": "\\n"}]},
       ...]}

Events without `segs` only set up windows and are skipped; a cue's text is its segs' `utf8`
joined (`tOffsetMs` word offsets are not needed for line-level segments). Auto-captions
(recognisable by `aAppend` events) keep each line on screen until it scrolls away two lines
later, so their ends are clipped to the next line's start.
"""

from __future__ import annotations

import json
import math
from typing import Any

from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.failures import broken
from v2c_desktop.core.captions.finish import clip_overlaps


def _milliseconds(event: dict[str, Any], key: str, default: float | None) -> float | None:
    """A non-negative finite number of milliseconds, `default` when absent, None when bad."""
    value = event.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return float(value)


def _event_text(segs: list[Any]) -> str | None:
    """The event's text, None when a seg is not shaped like a json3 seg."""
    parts: list[str] = []
    for seg in segs:
        if not isinstance(seg, dict):
            return None
        text = seg.get("utf8", "")
        if not isinstance(text, str):
            return None
        parts.append(text)
    return "".join(parts)


def parse_json3(text: str, source_name: str) -> list[RawCue]:
    """The cues of a json3 document."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise broken(
            source_name, "json3", f"invalid JSON ({error.msg})", line=error.lineno
        ) from error
    except RecursionError:
        raise broken(
            source_name, "json3", "its JSON is nested too deeply", where="the top level"
        ) from None
    events = document.get("events") if isinstance(document, dict) else None
    if not isinstance(events, list):
        raise broken(source_name, "json3", 'there is no "events" list', where="the top level")

    cues: list[RawCue] = []
    appends = False
    for number, event in enumerate(events, start=1):
        where = f"event {number}"
        if not isinstance(event, dict):
            raise broken(source_name, "json3", "an event is not an object", where=where)
        segs = event.get("segs")
        if not segs:
            continue
        appends = appends or bool(event.get("aAppend"))
        start = _milliseconds(event, "tStartMs", None)
        duration = _milliseconds(event, "dDurationMs", 0)
        content = _event_text(segs) if isinstance(segs, list) else None
        if start is None or duration is None:
            raise broken(
                source_name, "json3", "tStartMs/dDurationMs is missing or not a time", where=where
            )
        if content is None:
            raise broken(source_name, "json3", 'its "segs" are not text segments', where=where)
        if content.strip():
            cues.append(RawCue(start / 1000, (start + duration) / 1000, content.split("\n")))
    if appends:
        cues.sort(key=lambda cue: cue.start)
        clip_overlaps(cues)
    return cues
