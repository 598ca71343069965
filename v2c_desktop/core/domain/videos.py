"""Domain objects shared by every layer: videos, transcripts, segments, chapters, collections.

They are plain dataclasses so the store, the renderers, the CLI and the MCP server can pass
them around without knowing where they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..wire import wire

Origin = Literal["creator-captions", "auto-captions", "subtitle-file", "stt"]
ORIGINS: tuple[Origin, ...] = ("creator-captions", "auto-captions", "subtitle-file", "stt")


@wire
@dataclass(frozen=True, slots=True)
class Segment:
    """One caption line: seconds from the start of the video and its text."""

    start: float
    end: float
    text: str


@wire
@dataclass(frozen=True, slots=True)
class Chapter:
    """A titled span of the video; `end` is the next chapter's start or the video's end."""

    title: str
    start: float
    end: float


@wire
@dataclass(slots=True)
class Transcript:
    """The text of a video and where it came from.

    `origin` says how trustworthy the words are (creator captions beat auto captions);
    `producer` names who made them (a platform, a file, a speech recogniser) and
    `translated_from` is set when the platform machine-translated another track.
    A web video's transcript records which caption track it was read from (`track`, a key
    of `core.domain.captions`: `creator:en`, `auto:en>de`) and how many tracks the site
    offered then (`track_count`; None where not known, e.g. a file or an older import), so
    a face can show it and offer the others.
    """

    origin: Origin
    language: str
    segments: list[Segment]
    producer: str = ""
    track_name: str = ""
    translated_from: str | None = None
    track: str = ""
    track_count: int | None = None


@wire
@dataclass(slots=True)
class Video:
    """A video (or audio file) in the library.

    `id` is stable across re-imports: `youtube:<id>`, `file:<sha256 prefix>` or
    `<extractor>:<id>` for the other sites yt-dlp supports.
    """

    id: str
    title: str
    platform: str
    native_id: str
    channel: str = ""
    url: str = ""
    duration: float | None = None
    published: str | None = None  # ISO date, YYYY-MM-DD
    description: str = ""
    thumbnail_url: str = ""
    source_path: str = ""  # local media or subtitle file, when there is one
    channel_id: str = ""


@wire
@dataclass(slots=True)
class VideoRecord:
    """Everything an import saves for one video, and what the store gives back."""

    video: Video
    transcript: Transcript
    chapters: list[Chapter] = field(default_factory=list)
    added_at: str = ""
    updated_at: str = ""

    @property
    def duration(self) -> float:
        """The known duration, else the end of the last caption."""
        if self.video.duration:
            return float(self.video.duration)
        return max((s.end for s in self.transcript.segments), default=0.0)


@wire
@dataclass(slots=True)
class VideoSummary:
    """A library row: enough to list, sort and filter without loading segments."""

    id: str
    title: str
    channel: str
    url: str
    duration: float
    origin: Origin
    language: str
    source_path: str
    published: str | None
    added_at: str
    segment_count: int
    chapter_count: int


@wire
@dataclass(slots=True)
class Collection:
    """A named group of videos; `sources` are the inputs (URLs, folders) it was filled from."""

    id: str
    name: str
    description: str = ""
    sources: list[str] = field(default_factory=list)
    video_ids: list[str] = field(default_factory=list)
    created_at: str = ""


@wire
@dataclass(frozen=True, slots=True)
class CollectionItem:
    """A video as a collection holds it: `added_at` is when it joined the collection (not
    when it entered the library), so a collection's newest items are the ones added last."""

    video_id: str
    title: str
    channel: str
    url: str
    duration: float
    added_at: str
    published: str | None = None
