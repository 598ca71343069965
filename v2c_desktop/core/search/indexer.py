"""Keeping the search index in step with the library, one video at a time.

A per-video manifest (transcript hash, chunk count, embedding model) says what is current:
an unchanged transcript keeps its chunks, unchanged chunks and model keep their vectors
(`reused`), and a different embedding model re-embeds the video and says so
(`reindexed_from`), because vectors of two models cannot be compared.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..models.types import EmbeddingModel
from ..store import LibraryStore
from ..store.search_index import ChunkRow, Manifest
from .chunker import chunk_transcript
from .text_tokens import tokenize
from .vectors import VectorIndex

VectorState = Literal["embedded", "reused", "disabled", "failed"]


@dataclass(frozen=True, slots=True)
class IndexResult:
    video_id: str
    chunks: int
    keyword: Literal["indexed", "reused"]
    vector: VectorState
    reindexed_from: str | None = None
    reason: str = ""


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


class SearchIndexer:
    """Builds and refreshes the keyword and vector index of single videos."""

    def __init__(
        self,
        store: LibraryStore,
        embedder: EmbeddingModel | None,
        vectors: VectorIndex | None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self._write_lock = asyncio.Lock()

    async def keyword_index(
        self, video_id: str, manifest: Manifest | None
    ) -> tuple[list[int], list[str], bool]:
        """Chunk ids and texts of the video, re-chunking only when its transcript changed."""
        current = await asyncio.to_thread(self.store.transcript_hash, video_id)
        if manifest is not None and manifest.transcript_hash == current:
            ids, texts = await asyncio.to_thread(self._chunks_of, video_id)
            if len(ids) == manifest.chunk_count:
                return ids, texts, False
        transcript_hash, rows = await asyncio.to_thread(build_chunk_rows, self.store, video_id)
        async with self._write_lock:
            ids = await asyncio.to_thread(
                self.store.write_keyword_index, video_id, transcript_hash, rows
            )
        if self.vectors is not None:
            self.vectors.drop_video(video_id)
        return ids, [r.text for r in rows], True

    def _chunks_of(self, video_id: str) -> tuple[list[int], list[str]]:
        reader = self.store.reader()
        try:
            rows = reader.execute(
                "SELECT id, text FROM chunks WHERE video_id = ? ORDER BY idx", [video_id]
            ).fetchall()
        finally:
            reader.close()
        return [int(r[0]) for r in rows], [str(r[1]) for r in rows]

    async def index_video(self, video_id: str, manifest: Manifest | None) -> IndexResult:
        ids, texts, rebuilt = await self.keyword_index(video_id, manifest)
        keyword: Literal["indexed", "reused"] = "indexed" if rebuilt else "reused"
        if self.embedder is None or self.vectors is None:
            return IndexResult(video_id, len(ids), keyword, "disabled", reason="no embedder")
        model = self.embedder.info.id
        transcript_hash = await asyncio.to_thread(self.store.transcript_hash, video_id)
        if (
            not rebuilt
            and manifest is not None
            and manifest.embed_model == model
            and manifest.vectors_hash == transcript_hash
        ):
            return IndexResult(video_id, len(ids), keyword, "reused")
        previous = manifest.embed_model if manifest is not None else None
        try:
            matrix = await self.embed(texts)
        except Exception as exc:  # any embedder failure leaves keyword search
            return IndexResult(video_id, len(ids), keyword, "failed", reason=str(exc)[:200])
        async with self._write_lock:
            await asyncio.to_thread(
                self.store.write_vectors, video_id, model, ids, matrix, transcript_hash or ""
            )
        self.vectors.replace_video(video_id, ids, matrix)
        reindexed = previous if previous and previous != model else None
        return IndexResult(video_id, len(ids), keyword, "embedded", reindexed_from=reindexed)

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        assert self.embedder is not None
        if not texts:
            dims = self.embedder.info.dimensions or 0
            return np.zeros((0, dims), dtype=np.float32)
        return await self.embedder.embed(list(texts))
