"""Keeping the search index in step with the library, one video at a time.

A per-video manifest (transcript hash, chunk count, embedding model) says what is current:
an unchanged transcript keeps its chunks, unchanged chunks and model keep their vectors
(`reused`), and a different embedding model re-embeds the video and says so
(`reindexed_from`), because vectors of two models cannot be compared.

Concurrency: a search brings stale videos' keyword index up to date while an import hook
may be indexing the same video, and a video may be saved again while its vectors are being
made. So the keyword step of one video runs under that video's lock and re-reads the
manifest inside it (the second caller reuses what the first wrote), embedding runs outside
any lock (a search never waits for it), and vectors are only written, on disk and in
memory, while the chunks they were made from are still the video's current chunks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..models.types import EmbeddingModel
from ..store import LibraryStore
from ..store.search_index import ChunkRow
from ..store.search_reads import ChunkRow as HitRow
from ..store.search_reads import SearchReads
from .chunk_memory import ChunkMemory
from .chunker import chunk_transcript
from .keyword_memory import KeywordMemory
from .text_tokens import tokenize
from .vectors import VectorIndex

VectorState = Literal["embedded", "reused", "disabled", "failed"]

#: Texts per embedder call while indexing. The embedder runs one call at a time, so a
#: search's query embedding waits for at most one such call (a quarter of a second here).
EMBED_BATCH = 32

_STALE_WHILE_EMBEDDING = "the transcript changed while it was embedded; the new version is indexed"


@dataclass(frozen=True, slots=True)
class IndexResult:
    video_id: str
    chunks: int
    keyword: Literal["indexed", "reused"]
    vector: VectorState
    reindexed_from: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class KeywordIndex:
    """A video's current chunks: ids and texts in order, and the transcript they came from."""

    video_id: str
    ids: list[int]
    texts: list[str]
    transcript_hash: str
    rebuilt: bool
    previous_model: str | None = None  # the embedding model of the vectors before this step


def build_chunk_rows(store: LibraryStore, video_id: str) -> tuple[str, list[ChunkRow]]:
    """Chunk and tokenize one saved transcript (CPU work: run it off the event loop)."""
    record = store.get_video(video_id)
    transcript_hash = store.transcript_hash(video_id) or ""
    chunks = chunk_transcript(record.transcript.segments, record.chapters)
    rows = [
        ChunkRow(
            c.index,
            c.start,
            c.end,
            c.first_segment,
            c.last_segment,
            c.chapter,
            c.text,
            tokenize(c.text),
        )
        for c in chunks
    ]
    return transcript_hash, rows


def hit_rows(video_id: str, ids: Sequence[int], rows: Sequence[ChunkRow]) -> list[HitRow]:
    """Chunks as written (`ids` in chunk order), as hits read them back from the table."""
    return [
        HitRow(cid, video_id, r.start, r.end, r.first_seg, r.last_seg, r.chapter, r.text)
        for cid, r in zip(ids, rows, strict=True)
    ]


class SearchIndexer:
    """Builds and refreshes the keyword and vector index of single videos."""

    def __init__(
        self,
        store: LibraryStore,
        embedder: EmbeddingModel | None,
        vectors: VectorIndex | None,
        reads: SearchReads | None = None,
        keywords: KeywordMemory | None = None,
        chunks: ChunkMemory | None = None,
    ) -> None:
        """`reads` are the engine's (its per-thread cursors); without them the indexer
        keeps its own. Writes go through the store's one worker, in order with the rest."""
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self.reads = reads or SearchReads(store)
        self.keywords = keywords
        self.chunks = chunks
        self._write_lock = asyncio.Lock()
        self._keyword_locks: dict[str, asyncio.Lock] = {}

    # -- keyword side ---------------------------------------------------------------------------
    async def keyword_index(self, video_id: str) -> KeywordIndex:
        """The video's chunks, re-chunked (and its vectors dropped) only when its transcript
        changed since it was last indexed."""
        lock = self._keyword_locks.setdefault(video_id, asyncio.Lock())
        async with lock:
            current, manifest = await asyncio.to_thread(self.reads.manifest, video_id)
            previous = manifest.embed_model if manifest is not None else None
            if current is None:  # deleted meanwhile: nothing to index
                await self.drop(video_id)
                return KeywordIndex(video_id, [], [], "", False, previous)
            if manifest is not None and manifest.transcript_hash == current:
                ids, texts = await asyncio.to_thread(self.reads.video_chunks, video_id)
                if len(ids) == manifest.chunk_count:
                    return KeywordIndex(video_id, ids, texts, current, False, previous)
            transcript_hash, rows = await asyncio.to_thread(build_chunk_rows, self.store, video_id)
            async with self._write_lock:
                ids = await self.store.run(self._write_keywords, video_id, transcript_hash, rows)
            if self.vectors is not None:
                self.vectors.drop_video(video_id)
            return KeywordIndex(
                video_id, ids, [r.text for r in rows], transcript_hash, True, previous
            )

    def _write_keywords(
        self, video_id: str, transcript_hash: str, rows: Sequence[ChunkRow]
    ) -> list[int]:
        """Write a video's chunks and postings, then (on the same thread, right after the
        commit) the in-memory postings and chunk rows: a search sees them apart only for
        that instant."""
        if self.keywords is None:
            ids = self.store.write_keyword_index(video_id, transcript_hash, list(rows))
        else:
            with self.keywords.writing():
                ids = self.store.write_keyword_index(video_id, transcript_hash, list(rows))
                self.keywords.replace_video(video_id, ids, [r.terms for r in rows])
        if self.chunks is not None:
            self.chunks.replace_video(video_id, hit_rows(video_id, ids, rows))
        return ids

    def _drop_keywords(self, video_id: str) -> None:
        if self.keywords is None:
            self.store.drop_video_index(video_id)
        else:
            with self.keywords.writing():
                self.store.drop_video_index(video_id)
                self.keywords.drop_video(video_id)
        if self.chunks is not None:
            self.chunks.drop_video(video_id)

    async def drop(self, video_id: str) -> None:
        """Forget a video's chunks, postings, vectors and manifest (it left the library)."""
        async with self._write_lock:
            await self.store.run(self._drop_keywords, video_id)
        if self.vectors is not None:
            self.vectors.drop_video(video_id)

    # -- vector side ----------------------------------------------------------------------------
    async def index_video(self, video_id: str) -> IndexResult:
        return await self.vectors_for(await self.keyword_index(video_id))

    async def index_videos(
        self, video_ids: Sequence[str], report: Callable[[int, str], None] | None = None
    ) -> list[IndexResult]:
        """Index several videos; each video is chunked while the previous one is embedded."""
        results: list[IndexResult] = []
        inflight: asyncio.Task[IndexResult] | None = None
        try:
            for done, vid in enumerate(video_ids):
                if report is not None:
                    report(done, vid)
                keyword = await self.keyword_index(vid)
                if inflight is not None:
                    results.append(await inflight)
                inflight = asyncio.create_task(self.vectors_for(keyword))
            if inflight is not None:
                results.append(await inflight)
                inflight = None
        finally:
            if inflight is not None and not inflight.done():
                inflight.cancel()
        return results

    async def vectors_for(self, keyword: KeywordIndex) -> IndexResult:
        """Make (or reuse) the vectors of the chunks `keyword_index` returned."""
        video_id, ids = keyword.video_id, keyword.ids
        state: Literal["indexed", "reused"] = "indexed" if keyword.rebuilt else "reused"
        if self.embedder is None or self.vectors is None:
            return IndexResult(video_id, len(ids), state, "disabled", reason="no embedder")
        model = self.embedder.info.id
        _, manifest = await asyncio.to_thread(self.reads.manifest, video_id)
        if manifest is None or manifest.transcript_hash != keyword.transcript_hash:
            return IndexResult(video_id, len(ids), state, "failed", reason=_STALE_WHILE_EMBEDDING)
        if manifest.embed_model == model and manifest.vectors_hash == keyword.transcript_hash:
            return IndexResult(video_id, len(ids), state, "reused")
        previous = manifest.embed_model or keyword.previous_model
        try:
            matrix = await self.embed(keyword.texts)
        except Exception as exc:  # any embedder failure leaves keyword search
            return IndexResult(video_id, len(ids), state, "failed", reason=str(exc)[:200])
        async with self._write_lock:
            written = await self.store.run(self._store_vectors, keyword, model, matrix)
        if not written:
            return IndexResult(video_id, len(ids), state, "failed", reason=_STALE_WHILE_EMBEDDING)
        reindexed = previous if previous and previous != model else None
        return IndexResult(video_id, len(ids), state, "embedded", reindexed_from=reindexed)

    def _store_vectors(
        self, keyword: KeywordIndex, model: str, matrix: npt.NDArray[np.float32]
    ) -> bool:
        """Write the vectors; keep them in memory only if the write took (the store refuses
        vectors of chunks that were replaced or deleted while they were being made)."""
        assert self.vectors is not None
        self.store.write_vectors(
            keyword.video_id, model, keyword.ids, matrix, keyword.transcript_hash
        )
        _, manifest = self.store.index_manifest(keyword.video_id)
        if (
            manifest is None
            or manifest.embed_model != model
            or manifest.vectors_hash != keyword.transcript_hash
        ):
            return False
        self.vectors.replace_video(keyword.video_id, keyword.ids, matrix)
        return True

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        assert self.embedder is not None
        if not texts:
            dims = self.embedder.info.dimensions or 0
            return np.zeros((0, dims), dtype=np.float32)
        parts = [
            await self.embedder.embed(list(texts[i : i + EMBED_BATCH]))
            for i in range(0, len(texts), EMBED_BATCH)
        ]
        return parts[0] if len(parts) == 1 else np.concatenate(parts).astype(np.float32)
