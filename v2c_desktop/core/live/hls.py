"""Reading a live HLS stream as it grows: its media playlist polled, each new segment fetched once.

A live media playlist (RFC 8216) lists only the newest few segments and has no
`#EXT-X-ENDLIST` until the stream ends; `#EXT-X-MEDIA-SEQUENCE` numbers its first segment, so
a reload shows which segments are new and whether any slid out of the window unread. Reading
starts `START_BACK` segments from the live edge (as players do), reloads the playlist after
one target duration when it changed and after half of one when it did not (section 6.3.4),
and stops after the last segment of a playlist that has `#EXT-X-ENDLIST`.

Why this reads the playlist itself rather than handing its URL to FFmpeg: every request is
an httpx request on the event loop, so cancelling a watch stops it at once (FFmpeg's HLS
demuxer blocks in its own reload loop), and an agent's watch has every playlist, segment and
redirect URL checked by the host guard. The segments' bytes go on to one decoder (`audio.py`).

A playlist that fails to load a few times running means the stream went away: the reader
stops (`lost`) and the watch keeps what it heard, unless nothing was heard yet (the error).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urljoin

import httpx

from ..errors import V2CError
from ..importers.web.hosts import HostGuard
from .http import get_capped

#: Segments before the live edge where reading starts.
START_BACK = 3
PLAYLIST_MAX_BYTES = 2 * 1024 * 1024
SEGMENT_MAX_BYTES = 64 * 1024 * 1024
#: Playlist loads that may fail in a row before the stream counts as gone.
MAX_FAILURES = 4
#: Bounds on the wait between playlist reloads, whatever the playlist says.
MIN_RELOAD_S = 0.5
MAX_RELOAD_S = 10.0

_ATTRIBUTE = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')


def attributes(text: str) -> dict[str, str]:
    """An attribute list (`BANDWIDTH=64000,CODECS="mp4a.40.2"`) as a dict, quotes removed."""
    return {k: v.strip('"') for k, v in _ATTRIBUTE.findall(text)}


@dataclass(frozen=True, slots=True)
class HlsSegment:
    sequence: int
    url: str
    duration: float
    program_time: datetime | None = None  # `#EXT-X-PROGRAM-DATE-TIME`: its first sample
    init_url: str | None = None  # `#EXT-X-MAP`: the initialisation section (fMP4)


@dataclass(slots=True)
class Playlist:
    """A media playlist (`segments`), or a master playlist (`variants`: URL, attributes)."""

    target_duration: float = 6.0
    media_sequence: int = 0
    segments: list[HlsSegment] = field(default_factory=list)
    ended: bool = False
    encrypted: str = ""  # the `#EXT-X-KEY` method when not NONE
    variants: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    audio: list[tuple[str, dict[str, str]]] = field(default_factory=list)


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def parse_playlist(text: str, base: str) -> Playlist:
    """The playlist `text` read from `base` (relative URIs resolved against it)."""
    if not text.lstrip("\ufeff").startswith("#EXTM3U"):
        raise V2CError(
            "unsupported-input",
            "the stream's address did not give an HLS playlist",
            "Give the address of the live stream's page (or its .m3u8 playlist).",
        )
    out = Playlist()
    sequence: int | None = None
    duration: float | None = None
    program: datetime | None = None
    init: str | None = None
    stream_inf: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#EXT-X-TARGETDURATION:"):
            out.target_duration = float(line.split(":", 1)[1] or 6)
        elif line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            out.media_sequence = int(line.split(":", 1)[1] or 0)
        elif line.startswith("#EXTINF:"):
            duration = float(line.split(":", 1)[1].split(",", 1)[0] or 0)
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            program = _time(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-MAP:"):
            uri = attributes(line.split(":", 1)[1]).get("URI")
            init = urljoin(base, uri) if uri else None
        elif line.startswith("#EXT-X-KEY:"):
            method = attributes(line.split(":", 1)[1]).get("METHOD", "NONE")
            out.encrypted = "" if method == "NONE" else method
        elif line.startswith("#EXT-X-ENDLIST"):
            out.ended = True
        elif line.startswith("#EXT-X-STREAM-INF:"):
            stream_inf = attributes(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-MEDIA:"):
            media = attributes(line.split(":", 1)[1])
            if media.get("TYPE") == "AUDIO" and media.get("URI"):
                out.audio.append((urljoin(base, media["URI"]), media))
        elif line.startswith("#"):
            continue
        elif stream_inf is not None:
            out.variants.append((urljoin(base, line), stream_inf))
            stream_inf = None
        else:
            if sequence is None:
                sequence = out.media_sequence
            out.segments.append(
                HlsSegment(sequence, urljoin(base, line), duration or 0.0, program, init)
            )
            sequence += 1
            duration, program = None, None
    return out


def media_choice(playlist: Playlist) -> str | None:
    """In a master playlist, the rendition to listen to: its default audio rendition, else
    the variant with the least bandwidth (speech needs no picture). None when none."""
    if playlist.audio:
        return min(playlist.audio, key=lambda a: a[1].get("DEFAULT") != "YES")[0]
    if playlist.variants:
        return min(playlist.variants, key=lambda v: float(v[1].get("BANDWIDTH") or 0))[0]
    return None


@dataclass(frozen=True, slots=True)
class Fetched:
    """A segment's bytes; `init`: its initialisation section when it is new (fMP4)."""

    segment: HlsSegment
    data: bytes
    init: bytes | None = None


Note = Callable[[str], None]


@dataclass
class LiveReader:
    """Reads one live media playlist; see the module docstring. `what` names the stream in
    errors ("the live captions", "the stream's audio")."""

    http: httpx.AsyncClient
    url: str
    what: str
    timeout: float = 30.0
    guard: HostGuard | None = None
    note: Note = lambda _message: None
    ended: bool = False
    lost: str = ""  # why the stream counts as gone, once it does
    missed: int = 0  # segments that slid out of the window unread
    _init_url: str | None = None

    async def _playlist(self, url: str) -> tuple[str, Playlist]:
        final, body = await get_capped(
            self.http,
            url,
            what=f"the playlist of {self.what}",
            max_bytes=PLAYLIST_MAX_BYTES,
            timeout=self.timeout,
            guard=self.guard,
        )
        playlist = parse_playlist(body.decode("utf-8", errors="replace"), final)
        if playlist.encrypted:
            raise V2CError(
                "unsupported-input",
                f"{self.what} is encrypted ({playlist.encrypted}), so it cannot be read",
                "Watch a stream that is not protected, or one that offers live captions.",
            )
        return final, playlist

    async def _media(self) -> Playlist:
        """The media playlist, following one master playlist to its chosen rendition."""
        _, playlist = await self._playlist(self.url)
        if playlist.variants or playlist.audio:
            chosen = media_choice(playlist)
            if chosen is None:
                raise V2CError("unsupported-input", f"{self.what} lists no playable rendition")
            self.url = chosen
            _, playlist = await self._playlist(chosen)
        return playlist

    async def segments(self) -> AsyncIterator[Fetched]:
        """Each new segment's bytes, oldest first, until the stream ends or is lost."""
        last: int | None = None
        failures = 0
        while True:
            loaded_at = time.monotonic()
            try:
                playlist = await self._media()
                failures = 0
            except V2CError as error:
                if last is None or error.code == "bad-request":
                    raise  # nothing read yet, or refused: the watch fails with this error
                failures += 1
                if failures >= MAX_FAILURES:
                    self.lost = error.message
                    return
                await asyncio.sleep(_reload_wait(None, changed=False) * failures)
                continue
            fresh = [s for s in playlist.segments if last is None or s.sequence > last]
            if last is None:
                fresh = fresh[-START_BACK:]
            elif fresh and fresh[0].sequence > last + 1:
                gap = fresh[0].sequence - last - 1
                self.missed += gap
                self.note(f"{gap} segment(s) of {self.what} went by unread (reading too slowly)")
            for segment in fresh:
                fetched = await self._fetch(segment)
                last = segment.sequence
                if fetched is not None:
                    yield fetched
            if playlist.ended:
                self.ended = True
                return
            elapsed = time.monotonic() - loaded_at
            await asyncio.sleep(max(0.0, _reload_wait(playlist, changed=bool(fresh)) - elapsed))

    async def _fetch(self, segment: HlsSegment) -> Fetched | None:
        """The segment's bytes (and its new init section), None when it is gone already."""
        init: bytes | None = None
        try:
            if segment.init_url and segment.init_url != self._init_url:
                _, init = await self._get(segment.init_url, "the stream's initialisation")
                self._init_url = segment.init_url
            _, data = await self._get(segment.url, f"a segment of {self.what}")
        except V2CError as error:
            if error.code == "bad-request":
                raise
            self.missed += 1
            self.note(f"a segment of {self.what} could not be read ({error.message})")
            return None
        return Fetched(segment, data, init)

    async def _get(self, url: str, what: str) -> tuple[str, bytes]:
        return await get_capped(
            self.http,
            url,
            what=what,
            max_bytes=SEGMENT_MAX_BYTES,
            timeout=self.timeout,
            guard=self.guard,
        )


def _reload_wait(playlist: Playlist | None, *, changed: bool) -> float:
    target = playlist.target_duration if playlist is not None else 2.0
    wait = target if changed else target / 2
    return min(MAX_RELOAD_S, max(MIN_RELOAD_S, wait))
