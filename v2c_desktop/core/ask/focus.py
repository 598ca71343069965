"""The sources a local model reads: the few excerpts that answer, not whole passages.

On a CPU the time to a local answer's first word is the prompt's prefill: about 150 tokens
a second for the 135M test model on 2 cores, twenty times slower for a 3B model. Whole
search passages fill a 2,500-token budget in one video and keep the reader waiting for ten
seconds or more, while the sentences that answer are a few of them. So a local model gets
the excerpts the extractive answer would quote (each sentence scored by meaning, shared
words and its passage's search rank, grown with the neighbours that belong to it, near
duplicates dropped, each video with a strong excerpt first), best first, cut to a small
budget: fewer tokens to read, and the answer in the first of them for most questions
(`tests/eval/run_ask_eval.py --model ... --source-tokens ...` measures both).

Each excerpt becomes a numbered `Source` over exactly the segments it lies on, so a
citation of it is checked against those segments and opens the video at their second.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

from ..domain.videos import VideoRecord
from ..ids import timestamp_url
from ..models.types import EmbeddingModel
from .extractive import best_excerpts, embed_sentences
from .retrieval import RankedSpan, segments_tokens
from .sources import Source, source_text

log = logging.getLogger(__name__)

MAX_EXCERPTS = 6
"""A small model follows a handful of numbered sources; more only dilute the best."""


async def focused_sources(
    question: str,
    sources: Sequence[Source],
    embedder: EmbeddingModel | None,
    hits: Sequence[RankedSpan],
    budget: int,
) -> list[Source]:
    """The best excerpts of `sources` for `question` within `budget` tokens, numbered 1..k
    best first. The best excerpt is always kept, even over the budget: a source to read
    matters more than a token; a later one that does not fit is skipped."""
    embedded = None
    if embedder is not None and sources:
        try:
            embedded = await embed_sentences(embedder, question, sources, windows=False)
        except Exception as exc:  # ranked by words and search rank alone, as extractive is
            log.warning("excerpts for the model chosen without the embedder: %s", exc)
    chosen = best_excerpts(question, sources, max_points=MAX_EXCERPTS, hits=hits, embedded=embedded)
    out: list[Source] = []
    used = 0
    for source, segments, _score in chosen:
        cost = segments_tokens(segments)
        if out and used + cost > budget:
            continue
        used += cost
        start, end = segments[0].start, segments[-1].end
        out.append(
            Source(
                n=len(out) + 1,
                video_id=source.video_id,
                title=source.title,
                url=timestamp_url(source.video, start) if source.video else source.url,
                start=start,
                end=max(start, end),
                text=source_text(segments),
                segments=list(segments),
                channel=source.channel,
                video=source.video,
            )
        )
    return out


def scope_fingerprint(records: Sequence[VideoRecord]) -> str:
    """A hash of the scope's videos and every segment of their transcripts: excerpts chosen
    for one version of a transcript are never reused for another."""
    digest = hashlib.blake2b(digest_size=16)
    for record in records:
        digest.update(f"{record.video.id}\n".encode())
        for seg in record.transcript.segments:
            digest.update(f"{seg.start:.3f} {seg.end:.3f} {seg.text}\n".encode())
    return digest.hexdigest()
