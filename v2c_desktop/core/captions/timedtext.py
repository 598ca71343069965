"""YouTube timedtext XML (srv1, srv2 and srv3), read with defusedxml.

The XML comes from the network or from files users pick, so it is parsed with defusedxml
(no entity expansion bombs, no external entities). Hand-written: the walk over YouTube's
three dialects, which no library reads:

- srv1 (`fmt=srv1`, the legacy `/api/timedtext` default, youtube-transcript-api's input):
  `<transcript><text start="1.54" dur="4.16">this is &lt;i>not&lt;/i> ...</text>`, times in
  seconds. The text is escaped HTML: once the XML is decoded `<i>` is markup and `&amp;#39;`
  is an entity, which the shared text cleaner removes and unescapes.
- srv2: `<timedtext><text t="1540" d="4160">`, times in milliseconds.
- srv3 (`fmt=srv3`): `<timedtext format="3"><body><p t="160" d="4080"><s>hi</s><s t="160">
  everyone</s></p>`, times in milliseconds; `<w>` window elements carry no text and
  `<p a="1">` append paragraphs of auto-captions only break lines. Auto-caption lines stay on
  screen until they scroll away, so when appends are present the ends are clipped to the
  next line's start.
"""

from __future__ import annotations

import math
import re
from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.failures import broken, not_subtitles
from v2c_desktop.core.captions.finish import clip_overlaps

# expat's "line L, column C" counts from the stripped text; the message gives the file's line.
_POSITION = re.compile(r":? line \d+, column \d+")


def _number(element: Element, name: str, default: float | None = None) -> float | None:
    """A finite, non-negative attribute value, `default` when absent, None when bad."""
    raw = element.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _cue(element: Element, start_key: str, dur_key: str, scale: float) -> RawCue | None:
    """The element as a cue (times divided by `scale`), None when its times are unusable."""
    start = _number(element, start_key)
    duration = _number(element, dur_key, 0.0)
    if start is None or duration is None:
        return None
    text = "".join(element.itertext())
    return RawCue(start / scale, (start + duration) / scale, text.split("\n"))


def _read(elements: list[Element], keys: tuple[str, str, float], source_name: str) -> list[RawCue]:
    cues: list[RawCue] = []
    for number, element in enumerate(elements, start=1):
        cue = _cue(element, *keys)
        if cue is None:
            raise broken(
                source_name,
                "timedtext",
                f"<{element.tag}> has no usable {keys[0]!r}/{keys[1]!r} time",
                where=f"<{element.tag}> number {number}",
            )
        cues.append(cue)
    return cues


def parse_timedtext(text: str, source_name: str) -> list[RawCue]:
    """The cues of a srv1/srv2/srv3 document."""
    stripped = text.lstrip()
    skipped_lines = text.count("\n", 0, len(text) - len(stripped))
    try:
        root = fromstring(stripped)
    except ParseError as error:
        line = error.position[0] + skipped_lines if error.position else None
        problem = _POSITION.sub("", str(error))
        raise broken(source_name, "timedtext", f"invalid XML ({problem})", line=line) from error
    except DefusedXmlException as error:
        raise broken(
            source_name, "timedtext", f"it declares XML entities or a DTD, refused ({error})"
        ) from error

    if root.tag == "transcript":
        return _read(root.findall("text"), ("start", "dur", 1.0), source_name)
    if root.tag != "timedtext":
        # the root's name is not quoted: the file may be anything
        raise not_subtitles(source_name, "its XML root is not <transcript> or <timedtext>")
    body = root.find("body")
    if body is None:
        return _read(root.findall("text"), ("t", "d", 1000.0), source_name)
    paragraphs = body.findall("p")
    cues = _read(paragraphs, ("t", "d", 1000.0), source_name)
    if any(p.get("a") for p in paragraphs):
        cues = [cue for cue in cues if "".join(cue.lines).strip()]
        cues.sort(key=lambda cue: cue.start)
        clip_overlaps(cues)
    return cues
