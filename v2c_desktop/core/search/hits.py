"""Turning fused chunks into what a person reads: merged time ranges, clean text, snippets.

Chunks overlap by design (8 s of repeated segments), so neighbouring hits of one video are
merged into one range (at most 150 s) and their text is rebuilt from the raw segments, so
nothing is repeated and every range maps to exact transcript times.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..domain.videos import Segment
from .text_tokens import match_spans

MAX_RANGE_S = 150.0
SNIPPET_CHARS = 320
MARK_OPEN, MARK_CLOSE = "**", "**"


@dataclass(slots=True)
class ChunkHit:
    """A fused chunk with what the post-processing needs to know about it."""

    chunk_id: int
    video_id: str
    start: float
    end: float
    first_seg: int
    last_seg: int
    chapter: int | None
    score: float
    ranks: dict[str, int]


@dataclass(slots=True)
class MergedRange:
    video_id: str
    start: float
    end: float
    first_seg: int
    last_seg: int
    chapter: int | None
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    chunk_ids: list[int] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        return sorted(self.ranks)


def merge_ranges(
    hits: Sequence[ChunkHit],
    max_range_s: float = MAX_RANGE_S,
    rescore: Callable[[dict[str, int]], float] | None = None,
) -> list[MergedRange]:
    """Merge overlapping or touching chunks of one video, best first, never over 150 s.

    Chunks of different chapters stay apart: a hit shows one chapter's title, so it must
    not run on into the next chapter.

    A range keeps each side's best rank among its chunks. With `rescore` its score is
    computed again from those ranks, so the range - what the user sees - is fused, not its
    chunks one by one: chunks overlap by up to 8 s, and a passage that keyword search
    finds in one chunk and vector search in its neighbour is found by both sides. Scored
    by its best chunk alone it would rank below a weak passage both sides found through
    one chunk. Only the best rank per side counts, so a long range gains nothing from
    holding many chunks.
    """
    by_video: dict[str, list[ChunkHit]] = {}
    for hit in hits:
        by_video.setdefault(hit.video_id, []).append(hit)
    merged: list[MergedRange] = []
    for video_hits in by_video.values():
        current: MergedRange | None = None
        for hit in sorted(video_hits, key=lambda h: (h.start, h.first_seg)):
            touching = current is not None and hit.first_seg <= current.last_seg + 1
            if (
                current is not None
                and touching
                and hit.chapter == current.chapter  # a hit belongs to one chapter
                and max(current.end, hit.end) - current.start <= max_range_s
            ):
                current.end = max(current.end, hit.end)
                current.last_seg = max(current.last_seg, hit.last_seg)
                current.score = max(current.score, hit.score)
                for side, rank in hit.ranks.items():
                    current.ranks[side] = min(rank, current.ranks.get(side, rank))
                current.chunk_ids.append(hit.chunk_id)
                continue
            current = MergedRange(
                hit.video_id,
                hit.start,
                hit.end,
                hit.first_seg,
                hit.last_seg,
                hit.chapter,
                hit.score,
                dict(hit.ranks),
                [hit.chunk_id],
            )
            merged.append(current)
    if rescore is not None:
        for each in merged:
            each.score = rescore(each.ranks)
    # a tie goes to the words, as in `fusion.rrf`
    return sorted(
        merged,
        key=lambda m: (
            -m.score,
            min(m.ranks.values()),
            "keyword" not in m.ranks,
            m.video_id,
            m.start,
        ),
    )


def range_text(segments: Iterable[Segment]) -> str:
    """A range's text: its segments' texts joined by single spaces, as chunk texts are."""
    return segment_text(s.text for s in segments)


def segment_text(texts: Iterable[str]) -> str:
    """Segment texts joined the way the chunker joins them (trimmed, blanks skipped)."""
    return " ".join(t for t in (text.strip() for text in texts) if t)


def join_chunk_texts(chunks: Sequence[tuple[int, int, str]]) -> str | None:
    """The text of overlapping or touching chunks of one video, overlap said once.

    `chunks` are (first segment, last segment, text), sorted by first segment. A chunk's
    text is its segments joined by single spaces, so where two chunks overlap, the later
    one starts with the same segments the earlier one ends with. Segment boundaries are not
    known here, so the overlap is the run of whole words that ends the text so far and
    starts the next chunk; when more than one such run exists (a repeated phrase), the
    answer could be wrong, and None says: rebuild it from the segments instead.
    """
    text, last = "", -1
    for first_seg, last_seg, chunk in chunks:
        if not chunk:
            return None
        if not text:
            text, last = chunk, last_seg
            continue
        if last_seg <= last:  # inside what the text already holds
            continue
        overlap = last - first_seg + 1
        if overlap < 0:
            return None  # a gap: not one range
        if overlap == 0:
            text = f"{text} {chunk}"
        else:
            cut = _unique_overlap(text, chunk)
            if cut is None:
                return None
            text += chunk[cut:]
        last = last_seg
    return text


def _unique_overlap(text: str, chunk: str) -> int | None:
    """The length of the only whole-word prefix of `chunk` that `text` ends with, if one.

    Such a prefix starts with the chunk's first word, so only the places where that word
    starts a word of `text` are tried (`str.find`, in C) instead of every word prefix of
    the chunk: the same prefixes are found, far fewer are compared.
    """
    if not chunk or chunk[0] == " ":
        return _unique_overlap_walk(text, chunk)  # an empty first word: try every prefix
    space = chunk.find(" ")
    first = chunk if space < 0 else chunk[:space]
    found: int | None = None
    pos = text.find(first)
    while pos >= 0:
        end = len(text) - pos  # the prefix `text[pos:]` would be
        if (
            (pos == 0 or text[pos - 1] == " ")
            and (end == len(chunk) or (end < len(chunk) and chunk[end] == " "))
            and chunk.startswith(text[pos:])
        ):
            if found is not None:
                return None
            found = end
        pos = text.find(first, pos + 1)
    return found


def _unique_overlap_walk(text: str, chunk: str) -> int | None:
    """`_unique_overlap` trying every whole-word prefix of `chunk`, shortest first."""
    found: int | None = None
    cut = chunk.find(" ")
    while True:
        end = len(chunk) if cut < 0 else cut
        head = chunk[:end]
        if text.endswith(head) and (len(text) == end or text[-end - 1] == " "):
            if found is not None:
                return None
            found = end
        if cut < 0:
            return found
        cut = chunk.find(" ", cut + 1)


def snippet(text: str, terms: set[str], max_chars: int = SNIPPET_CHARS) -> str:
    """At most `max_chars` characters around the densest run of matched words, marked.

    The window is chosen on the plain text, then words whose stemmed term is in `terms`
    are wrapped in `**`; the window shrinks until the marked result fits the limit.
    """
    spans = match_spans(text, terms)
    budget = max_chars
    while True:
        start, end = _window(text, spans, budget)
        marked = _mark(text, start, end, [(s, e) for s, e in spans if s >= start and e <= end])
        if len(marked) <= max_chars or budget <= 40:
            return marked[:max_chars] if len(marked) > max_chars else marked
        budget -= len(marked) - max_chars + 4


def _window(text: str, spans: Sequence[tuple[int, int]], width: int) -> tuple[int, int]:
    if len(text) <= width:
        return 0, len(text)
    if not spans:
        return 0, _word_end(text, width)
    best_start, best_count = spans[0][0], 0
    j = 0
    for i, (s, _) in enumerate(spans):  # the window of `width` chars holding most matches
        while j < len(spans) and spans[j][1] - s <= width:
            j += 1
        if j - i > best_count:
            best_start, best_count = s, j - i
    lead = min(best_start, width // 4)
    start = _word_start(text, best_start - lead)
    end = _word_end(text, min(len(text), start + width))
    return start, end


def _word_start(text: str, pos: int) -> int:
    pos = max(0, pos)
    while pos > 0 and not text[pos - 1].isspace():
        pos -= 1
    return pos


def _word_end(text: str, limit: int) -> int:
    if limit >= len(text):
        return len(text)
    cut = text.rfind(" ", 0, limit)
    return cut if cut > 0 else limit


def _mark(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> str:
    out: list[str] = ["…" if start > 0 else ""]
    pos = start
    for s, e in spans:
        out.append(text[pos:s])
        out.append(f"{MARK_OPEN}{text[s:e]}{MARK_CLOSE}")
        pos = e
    out.append(text[pos:end])
    out.append("…" if end < len(text) else "")
    return "".join(out).strip()


SegmentLoader = Callable[[str, int, int], list[Segment]]
