"""Links that play: timestamp URLs, block ids per transcript line, wikilinks to them, and
the media property Media Extended reads.

A brief's citation links to `[[Video#^t-83]]`, so the block id of a transcript line must be
computable from the citation's time alone, the same way the video note computed it: the
id is the line's whole second (`t-83`), and a further line starting in the same second gets
a counter (`t-83-2`, `t-83-3`). A citation's time was snapped to a segment start, so it lands on its
line; any other time lands on the line that was playing then.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from ..domain.videos import Segment, Video
from ..file_kinds import is_media
from ..ids import is_web, timestamp_url
from ..timecode import clock
from .frontmatter import Link
from .inert import label

BLOCK_ID = re.compile(r"^[A-Za-z0-9-]+$")
_AUDIO = {".mp3", ".m4a", ".aac", ".wav", ".flac", ".ogg", ".oga", ".opus", ".wma"}
#: Characters that would end or break a Markdown link destination.
_UNSAFE_URL = re.compile(r"[\s()<>\[\]\\`]")


def block_ids(segments: list[Segment]) -> list[str]:
    """One id per segment: `t-<second>`, then `t-<second>-2`, `-3`, ... for repeats."""
    ids: list[str] = []
    seen: dict[int, int] = {}
    for segment in segments:
        second = max(0, int(segment.start))
        n = seen.get(second, 0) + 1
        seen[second] = n
        ids.append(f"t-{second}" if n == 1 else f"t-{second}-{n}")
    return ids


def block_at(segments: list[Segment], ids: list[str], seconds: float) -> str:
    """The id of the line playing at `seconds` (the first line before any starts)."""
    if not segments:
        return f"t-{max(0, int(seconds))}"
    starts = [s.start for s in segments]
    index = max(0, bisect.bisect_right(starts, seconds + 1e-6) - 1)
    return ids[index]


def safe_url(url: str) -> str:
    """`url` if it is a web or file URL, with characters that would break `[x](url)`
    percent-encoded; else "" (no `javascript:` or app links from untrusted metadata)."""
    if not (is_web(url) or url.startswith("file://")):
        return ""
    return _UNSAFE_URL.sub(lambda m: quote(m.group(0), safe=""), url)


def vault_media(video: Video, vault: Path) -> str:
    """The media file's path inside the vault (`/` separated), or "" when it is elsewhere."""
    if not video.source_path or not is_media(video.source_path):
        return ""
    try:
        return Path(video.source_path).resolve().relative_to(vault).as_posix()
    except ValueError:
        return ""


#: A time no caption starts at, to find where a video's timestamp URL writes the time.
_PROBE = 4321.5
_CHECK = 98.25


def _swap(head: str, tail: str, exact: bool) -> Callable[[float], str]:
    """The URL with the time between `head` and `tail`: as `83.5` (a file's media
    fragment) or as whole seconds (`&t=83s`), the way `timestamp_url` writes it."""
    if exact:
        return lambda seconds: f"{head}{seconds:g}{tail}"
    return lambda seconds: f"{head}{max(0, int(seconds))}{tail}"


def _url_maker(video: Video) -> Callable[[float], str]:
    """`seconds -> safe timestamp URL` for `video`, with the URL's checks done once.

    A video's link differs from second to second only in the number (`&t=83s`, `#t=83.5`),
    so the URL is made once at a probe time and the number swapped: an export links every
    transcript line, and parsing the same URL thousands of times was most of its time. A
    form where the probe does not show exactly once (Twitch's `1h12m1s`) is made each time.
    """

    def slow(seconds: float) -> str:
        return safe_url(timestamp_url(video, seconds))

    probe = slow(_PROBE)
    if not probe:
        return lambda seconds: ""
    for text, exact in ((f"{_PROBE:g}", True), (str(int(_PROBE)), False)):
        if probe.count(text) == 1:
            head, tail = probe.split(text)
            fast = _swap(head, tail, exact)
            if fast(_CHECK) == slow(_CHECK):  # the number was the time, not part of the URL
                return fast
    return slow


@dataclass(frozen=True, slots=True)
class Player:
    """How a video's moments are linked in a note."""

    video: Video
    in_vault: str  # the media file inside the vault, else ""
    url_at: Callable[[float], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "url_at", _url_maker(self.video))

    def link(self, seconds: float, text: str | None = None) -> str:
        """`[m:ss](url)`, or `[[clip.mp4#t=83.5|m:ss]]` for a file inside the vault."""
        shown = text if text is not None else clock(seconds)
        if self.in_vault:
            return f"[[{self.in_vault}#t={seconds:g}|{label(shown)}]]"
        url = self.url_at(seconds)
        return f"[{shown}]({url})" if url else shown

    def media_property(self) -> tuple[str, Link | str] | None:
        """(`video`/`audio`, `[[file]]`) inside the vault, else (`media`, URL), else None."""
        if self.in_vault:
            kind = "audio" if Path(self.in_vault).suffix.lower() in _AUDIO else "video"
            return kind, Link(self.in_vault)
        url = timestamp_url(self.video, 0)
        if self.video.platform.lower() == "youtube":
            url = f"https://www.youtube.com/watch?v={self.video.native_id}"
        url = url.split("#")[0]
        return ("media", url) if (is_web(url) or url.startswith("file://")) else None


def wikilink(target: str, block: str = "", text: str = "") -> str:
    """`[[target#^block|text]]` (target: a vault path without `.md`)."""
    anchor = f"#^{block}" if block else ""
    shown = f"|{label(text)}" if text else ""
    return f"[[{target}{anchor}{shown}]]"


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a brief links for one exported video: its note and its lines' block ids."""

    target: str  # the video note's vault path without `.md`
    title: str
    segments: list[Segment]
    ids: list[str]

    def block(self, seconds: float) -> str:
        return block_at(self.segments, self.ids, seconds)


def obsidian_uri(vault: str | Path, relative: str) -> str:
    """`obsidian://open?vault=NAME&file=PATH`: Obsidian opens the note (or folder) in the
    vault it knows by that folder's name; the path is relative, without `.md`."""
    name = Path(vault).name
    path = relative[:-3] if relative.endswith(".md") else relative
    return f"obsidian://open?vault={quote(name, safe='')}&file={quote(path, safe='')}"
