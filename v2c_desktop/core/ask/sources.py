"""The numbered sources an answer cites: time ranges of videos, numbered `1..k`.

The model only ever sees numbers, so the numbering is the contract between the prompt, the
answer and the citations: it must be stable and readable (all of one video together, in
time order), and each source must keep its raw segments so a citation can later be narrowed
to the exact caption line that supports a sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..domain.videos import Segment, Video
from ..ids import timestamp_url


@dataclass(slots=True)
class Source:
    """One numbered time range of one video, as the model sees it and a citation links it.

    `url` opens the video at `start`. `video` is kept (when known) so a citation narrowed to
    a later second can build its own deep link with `url_at` instead of rewriting `url`
    (each platform spells the time differently: `&t=42s`, `#t=42`, `?t=0h0m42s`...).
    """

    n: int
    video_id: str
    title: str
    url: str
    start: float
    end: float
    text: str
    segments: list[Segment]
    channel: str = ""
    video: Video | None = field(default=None, repr=False, compare=False)

    def url_at(self, seconds: float) -> str:
        """A link that opens this source's video at `seconds`.

        Without the `Video` the exact deep link cannot be built for every platform, so the
        source's own `url` (its start, at most a few minutes early) is the honest fallback.
        """
        if self.video is not None:
            return timestamp_url(self.video, seconds)
        return self.url


@dataclass(slots=True)
class SourceRange:
    """What retrieval hands over: a time range of a video and the segments inside it.

    `start`/`end` default to the first segment's start and the last segment's end.
    """

    video: Video
    segments: Sequence[Segment]
    start: float | None = None
    end: float | None = None


def source_text(segments: Iterable[Segment]) -> str:
    """The raw caption text of segments, one space between lines (what quotes are checked
    against)."""
    return " ".join(s.text.strip() for s in segments if s.text.strip())


def number_sources(ranges: Iterable[SourceRange]) -> list[Source]:
    """Number ranges `1..k`: videos in order of first appearance, each video's ranges by time.

    Ranges without segments are dropped: there is nothing in them a sentence could cite.
    """
    by_video: dict[str, list[SourceRange]] = {}
    for item in ranges:
        if item.segments:
            by_video.setdefault(item.video.id, []).append(item)
    out: list[Source] = []
    for group in by_video.values():
        ordered = sorted(group, key=lambda r: _start(r))
        for item in ordered:
            segments = sorted(item.segments, key=lambda s: s.start)
            start = _start(item)
            end = item.end if item.end is not None else max(s.end for s in segments)
            out.append(
                Source(
                    n=len(out) + 1,
                    video_id=item.video.id,
                    title=item.video.title,
                    url=timestamp_url(item.video, start),
                    start=start,
                    end=max(start, end),
                    text=source_text(segments),
                    segments=segments,
                    channel=item.video.channel,
                    video=item.video,
                )
            )
    return out


def _start(item: SourceRange) -> float:
    if item.start is not None:
        return item.start
    return min(s.start for s in item.segments)
