"""The videos a brief reads: numbered, duplicates counted once, cut into model-sized chunks.

Two uploads of one talk (a re-upload, a mirror, the same lecture on two channels) must never
make a "consensus": near-identical transcripts become one source that lists its copies (the
detector is `core.duplicates`, the one `find_duplicates` reports with). The
model sees each source as numbered, timestamped lines (about 10 s each, cut at segment
boundaries), fenced as untrusted text by the prompts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..domain.videos import Segment, VideoRecord
from ..duplicates import cluster, shingles
from ..ids import timestamp_url
from ..render.tokens import estimate_tokens
from ..timecode import clock
from .verify import TranscriptIndex

LINE_SECONDS = 10.0
ORIGIN_RANK = {"creator-captions": 0, "subtitle-file": 1, "stt": 2, "auto-captions": 3}


@dataclass(frozen=True, slots=True)
class Line:
    """About 10 s of transcript: where it starts, its text (segments joined)."""

    start: float
    end: float
    text: str

    def render(self) -> str:
        return f"[{clock(self.start)}] {self.text}"


@dataclass
class BriefSource:
    """One video as the brief reads it (`n` is the number the model cites)."""

    n: int
    record: VideoRecord
    index: TranscriptIndex
    lines: list[Line]
    copies: list[str] = field(default_factory=list)

    @property
    def video_id(self) -> str:
        return self.record.video.id

    @property
    def title(self) -> str:
        return self.record.video.title or self.record.video.id

    def url_at(self, seconds: float) -> str:
        return timestamp_url(self.record.video, seconds) or self.record.video.url or ""

    def transcript_key(self) -> str:
        """Changes whenever the transcript's words or times change (the map cache's key)."""
        digest = hashlib.sha256()
        for segment in self.record.transcript.segments:
            digest.update(f"{segment.start:.2f}|{segment.end:.2f}|{segment.text}\n".encode())
        return digest.hexdigest()[:32]

    def tokens(self) -> int:
        return sum(estimate_tokens(line.render()) + 1 for line in self.lines)


def lines_of(segments: Sequence[Segment], seconds: float = LINE_SECONDS) -> list[Line]:
    """Segments joined into lines of about `seconds`, never splitting a segment."""
    lines: list[Line] = []
    current: list[Segment] = []
    for segment in segments:
        if current and segment.start - current[0].start >= seconds:
            lines.append(_line(current))
            current = []
        current.append(segment)
    if current:
        lines.append(_line(current))
    return lines


def _line(segments: Sequence[Segment]) -> Line:
    text = " ".join(" ".join(s.text.split()) for s in segments if s.text.strip())
    return Line(segments[0].start, segments[-1].end, text)


def number_sources(records: Sequence[VideoRecord]) -> list[BriefSource]:
    """Number the videos 1..k, merging near-identical transcripts into one source.

    Of a group of copies the best transcript is kept (creator captions over subtitle files
    over speech-to-text over auto-captions, then the longer one); the others are listed as
    its copies and never read again.
    """
    ranked = sorted(
        records,
        key=lambda r: (ORIGIN_RANK.get(r.transcript.origin, 9), -len(r.transcript.segments)),
    )
    kept = [
        (record, [c.video.id for c in copies])
        for record, copies in cluster(ranked, lambda r: shingles(r.transcript.segments))
    ]
    order = {r.video.id: i for i, r in enumerate(records)}  # the caller's order, for numbers
    kept.sort(key=lambda k: order[k[0].video.id])
    return [
        BriefSource(
            n,
            record,
            TranscriptIndex(record.transcript.segments),
            lines_of(record.transcript.segments),
            copies,
        )
        for n, (record, copies) in enumerate(kept, start=1)
    ]


@dataclass(frozen=True, slots=True)
class Chunk:
    """Lines of one source that fit one map call."""

    source: BriefSource
    index: int
    lines: tuple[Line, ...]

    def text(self) -> str:
        return "\n".join(line.render() for line in self.lines)


def chunks_of(source: BriefSource, max_tokens: int) -> list[Chunk]:
    """The source cut at line boundaries into chunks of at most `max_tokens` (about)."""
    chunks: list[Chunk] = []
    current: list[Line] = []
    size = 0
    for line in source.lines:
        cost = estimate_tokens(line.render()) + 1
        if current and size + cost > max_tokens:
            chunks.append(Chunk(source, len(chunks), tuple(current)))
            current, size = [], 0
        current.append(line)
        size += cost
    if current:
        chunks.append(Chunk(source, len(chunks), tuple(current)))
    return chunks
