"""Links that play: timestamp URLs, block ids per transcript line, wikilinks to them, and
the media property Media Extended reads.

A brief's citation links to `[[Video#^t-83]]`, so the block id of a transcript line must be
computable from the citation's time alone, the same way the video note computed it: the
id is the line's whole second (`t-83`), and a second line starting in the same second gets
a letter (`t-83-b`). A citation's time was snapped to a segment start, so it lands on its
line; any other time lands on the line that was playing then.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Player:
    """How a video's moments are linked in a note."""

    video: Video
    in_vault: str  # the media file inside the vault, else ""

    def link(self, seconds: float, text: str | None = None) -> str:
        """`[m:ss](url)`, or `[[clip.mp4#t=83.5|m:ss]]` for a file inside the vault."""
        shown = text if text is not None else clock(seconds)
        if self.in_vault:
            return f"[[{self.in_vault}#t={seconds:g}|{label(shown)}]]"
        url = safe_url(timestamp_url(self.video, seconds))
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
