"""Key moments without a model: the video's chapters, else its topic shifts, else even steps.

Chapters are the creator's own key moments: when a video has two or more, they are the
answer (the longest ones when there are more than asked for), each snapped to the first
segment that starts in it. Without chapters, the search index's chunk embeddings say where
the subject changes: at each chunk boundary, the cosine similarity of the mean embedding of
the chunks before it to that of the chunks after it (`WINDOW` chunks, about one to two
minutes, each side); the largest drops (how far it falls below the peaks on both sides,
`drop_depths`) are the shifts. On the ten Crash Course videos imported without their
chapters, this ranks the boundaries nearest the creators' chapter starts above the others
with an AUC of about 0.71 (bench/moments_bench.py; random would be 0.5). A moment there
starts at the first segment the later chunk adds (chunks overlap by a few seconds) and is
titled with the first sentence of the transcript from there. A video with neither (its
vectors not computed yet) gets moments evenly spaced through it. Every start is a real
segment's, like a model's after `verify`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..domain.videos import VideoRecord
from .events import Basis
from .verify import (
    MIN_GAP_S,
    TITLE_CHARS,
    WHY_CHARS,
    Draft,
    SegmentStarts,
    first_sentence,
    spaced_out,
)
from .verify import plain as plain_text

WINDOW = 2


@dataclass(frozen=True)
class ChunkVectors:
    """A video's search chunks in order: their first and last segments, one vector each."""

    first_segments: Sequence[int]
    last_segments: Sequence[int]
    matrix: npt.NDArray[np.float32]


def extractive_moments(
    record: VideoRecord, count: int, vectors: ChunkVectors | None
) -> tuple[Basis, list[Draft]]:
    """The best extractive moments of `record` and what they are based on."""
    if len(record.chapters) >= 2:
        drafts = _chapters(record, count)
        if drafts:
            return "chapters", drafts
    if vectors is not None and len(vectors.first_segments) >= 3:
        drafts = _topic_shifts(record, count, vectors)
        if drafts:
            return "topic-shifts", drafts
    return "even", _even(record, count)


def _chapters(record: VideoRecord, count: int) -> list[Draft]:
    segments = record.transcript.segments
    starts = SegmentStarts(segments)
    chapters = record.chapters
    picked = sorted(
        range(len(chapters)), key=lambda i: (-(chapters[i].end - chapters[i].start), i)
    )[:count]
    drafts: list[Draft] = []
    for i in sorted(picked):
        chapter = chapters[i]
        segment = starts.at_or_after(chapter.start)
        if segment is None or segments[segment].start >= chapter.end:
            continue  # a chapter without a line of its own
        title = plain_text(chapter.title, TITLE_CHARS) or first_sentence(
            segments, segment, TITLE_CHARS
        )
        opening = first_sentence(segments, segment, WHY_CHARS - 40)
        why = f"Chapter {i + 1} of {len(chapters)}; it opens: “{opening}”"
        drafts.append(Draft(segment, segments[segment].start, title, why))
    return spaced_out(drafts)


def boundary_similarities(matrix: npt.NDArray[np.float32], window: int = WINDOW) -> list[float]:
    """For each chunk boundary (before chunk 1, 2, ...): the cosine similarity of the mean
    embedding of the `window` chunks before it to that of the `window` chunks after it."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms > 0, norms, 1.0)
    out: list[float] = []
    for i in range(1, len(unit)):
        before = unit[max(0, i - window) : i].mean(axis=0)
        after = unit[i : i + window].mean(axis=0)
        denominator = float(np.linalg.norm(before) * np.linalg.norm(after)) or 1.0
        out.append(float(before @ after) / denominator)
    return out


def drop_depths(similarities: Sequence[float]) -> list[float]:
    """How far the similarity drops at each boundary below the peaks on either side of it
    (TextTiling's depth score): a valley between two coherent passages scores high, a
    boundary inside a long slide of falling similarity scores low."""
    depths: list[float] = []
    for i, here in enumerate(similarities):
        left = right = here
        j = i
        while j > 0 and similarities[j - 1] >= left:
            j -= 1
            left = similarities[j]
        j = i
        while j < len(similarities) - 1 and similarities[j + 1] >= right:
            j += 1
            right = similarities[j]
        depths.append((left - here) + (right - here))
    return depths


def _topic_shifts(record: VideoRecord, count: int, vectors: ChunkVectors) -> list[Draft]:
    segments = record.transcript.segments
    similarities = boundary_similarities(np.asarray(vectors.matrix, dtype=np.float32))
    depths = drop_depths(similarities)
    order = sorted(range(len(depths)), key=lambda b: (-depths[b], b))
    chosen: list[Draft] = []
    for b in order:
        if len(chosen) == count:
            break
        segment = _new_segment(vectors, b + 1)
        if segment >= len(segments) or not segments[segment].text.strip():
            continue
        start = segments[segment].start
        if any(abs(start - d.start) < MIN_GAP_S for d in chosen):
            continue
        title = first_sentence(segments, segment, TITLE_CHARS)
        why = (
            f"The subject changes here: the {_ordinal(len(chosen) + 1)} largest change in the "
            f"video (similarity to the minute before: {similarities[b]:.2f})."
        )
        chosen.append(Draft(segment, start, title, why))
    return sorted(chosen, key=lambda d: d.start)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _new_segment(vectors: ChunkVectors, i: int) -> int:
    """The first segment chunk `i` adds after the previous chunk (chunks overlap)."""
    after_previous = vectors.last_segments[i - 1] + 1
    first = vectors.first_segments[i]
    return after_previous if first <= after_previous <= vectors.last_segments[i] else first


def _even(record: VideoRecord, count: int) -> list[Draft]:
    segments = record.transcript.segments
    starts = SegmentStarts(segments)
    duration = record.duration
    drafts: list[Draft] = []
    for k in range(count):
        segment = starts.at_or_after(duration * k / count)
        if segment is None:
            continue
        title = first_sentence(segments, segment, TITLE_CHARS)
        why = f"Part {k + 1} of {count}, evenly spaced through the video."
        drafts.append(Draft(segment, segments[segment].start, title, why))
    return spaced_out(drafts)
