"""Hybrid transcript search: BM25 and vectors, fused by reciprocal rank, as time ranges.

The engine keeps the index in step with the library (`index_pending`), answers searches
with both sides running concurrently (DuckDB on one thread, the embedder and numpy on
others), and reports in `meta` exactly what ran and why, so a keyword-only answer never
poses as a hybrid one.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt

from ..errors import bad_request
from ..ids import timestamp_url
from ..model import Video
from ..models.types import ChatModel, EmbeddingModel
from ..progress import Progress, ProgressCallback, ignore_progress
from ..store import LibraryStore
from .bm25 import bm25_top
from .filters import allowed_videos
from .fusion import FusionSettings, rrf
from .hits import ChunkHit, MergedRange, merge_ranges, snippet
from .indexer import IndexResult, SearchIndexer
from .query import ParsedQuery, parse_query, satisfies
from .request import MODES, SearchHit, SearchRequest, SearchResult
from .rerank import rerank_hits
from .text_tokens import query_terms
from .vectors import VectorIndex

Vector = npt.NDArray[np.float32]
SIDE_LIMIT = 50
CANDIDATES = 200
PHRASE_CANDIDATES = 1000
QUERY_CACHE = 256


class SearchEngine:
    """One engine per open library; pass the same instance around to keep it warm."""

    def __init__(
        self,
        store: LibraryStore,
        embedder: EmbeddingModel | None,
        *,
        fusion: FusionSettings | None = None,
        rerank_chain: Callable[[], Sequence[ChatModel]] | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.fusion = fusion or FusionSettings()
        self.rerank_chain = rerank_chain
        self.vectors = VectorIndex(embedder.info.id) if embedder is not None else None
        self.indexer = SearchIndexer(store, embedder, self.vectors)
        self._loaded = False
        self._local = threading.local()
        self._query_vectors: OrderedDict[str, Vector] = OrderedDict()
        self._reindexed: list[dict[str, str]] = []

    # -- index --------------------------------------------------------------------------------
    async def _ensure_loaded(self) -> None:
        if self._loaded or self.vectors is None:
            self._loaded = True
            return
        ids, videos, matrix = await asyncio.to_thread(self.store.load_vectors, self.vectors.model)
        self.vectors.load(ids, videos, matrix)
        self._loaded = True

    async def pending(self, *, vectors: bool = True) -> list[str]:
        """Videos whose keyword index (or, with `vectors`, whose vectors) are missing or stale."""
        await self._ensure_loaded()
        manifests = await asyncio.to_thread(self.store.index_manifests)
        hashes = await asyncio.to_thread(self._transcript_hashes)
        model = self.embedder.info.id if self.embedder is not None else None
        out = []
        for vid, current in hashes.items():
            m = manifests.get(vid)
            stale = m is None or m.transcript_hash != current
            if stale or (
                vectors
                and model
                and (m is None or m.embed_model != model or m.vectors_hash != current)
            ):
                out.append(vid)
        for gone in set(manifests) - set(hashes):
            await asyncio.to_thread(self.store.drop_video_index, gone)
            if self.vectors is not None:
                self.vectors.drop_video(gone)
        return out

    def _transcript_hashes(self) -> dict[str, str]:
        rows = self._reader().execute("SELECT video_id, content_hash FROM transcripts").fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    async def index_video(self, video_id: str) -> IndexResult:
        await self._ensure_loaded()
        manifests = await asyncio.to_thread(self.store.index_manifests)
        result = await self.indexer.index_video(video_id, manifests.get(video_id))
        if result.reindexed_from:
            self._reindexed.append({"video_id": video_id, "from": result.reindexed_from})
        return result

    async def index_pending(
        self, *, vectors: bool = True, progress: ProgressCallback = ignore_progress
    ) -> list[IndexResult]:
        """Bring every library video's index up to date (keyword only when `vectors` is off)."""
        todo = await self.pending(vectors=vectors)
        results: list[IndexResult] = []
        manifests = await asyncio.to_thread(self.store.index_manifests)
        for done, vid in enumerate(todo):
            progress(Progress("index", done, len(todo), vid))
            if vectors:
                results.append(await self.index_video(vid))
            else:
                ids, _, rebuilt = await self.indexer.keyword_index(vid, manifests.get(vid))
                results.append(
                    IndexResult(
                        vid,
                        len(ids),
                        "indexed" if rebuilt else "reused",
                        "disabled",
                        reason="keyword pass",
                    )
                )
        progress(Progress("index", len(todo), len(todo), "index up to date"))
        return results

    def drop_video(self, video_id: str) -> None:
        if self.vectors is not None:
            self.vectors.drop_video(video_id)

    # -- search -------------------------------------------------------------------------------
    def _reader(self) -> duckdb.DuckDBPyConnection:
        cursor: duckdb.DuckDBPyConnection | None = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self.store.reader()
            self._local.cursor = cursor
        return cursor

    async def search(self, request: SearchRequest) -> SearchResult:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        if request.mode not in MODES:
            raise bad_request(f"unknown mode {request.mode!r}", "use hybrid, keyword or vector")
        if not 1 <= request.limit <= 100:
            raise bad_request("limit must be between 1 and 100", "try --limit 10")
        parsed = parse_query(request.query)
        timings["parse"] = _ms(started)
        await self._ensure_loaded()
        # keyword index must be current before a search; vectors may lag (never block)
        await self.index_pending(vectors=False)
        t = time.perf_counter()
        allowed = await asyncio.to_thread(allowed_videos, self._reader(), request)
        timings["filter"] = _ms(t)
        sides: dict[str, list[int]] = {}
        meta: dict[str, Any] = {"query": parsed.to_dict(), "mode": request.mode}
        vector_state = await self._vector_state(request.mode, allowed)
        keyword_task = None
        if request.mode in ("hybrid", "keyword"):
            keyword_task = asyncio.create_task(self._keyword_side(parsed, allowed, timings))
        if vector_state["status"] in ("ok", "partial"):
            try:
                sides["vector"] = await self._vector_side(parsed, allowed, timings)
            except Exception as exc:  # a failed embedder leaves keyword search
                vector_state = {"status": "failed", "reason": str(exc)[:200]}
        if keyword_task is not None:
            sides["keyword"] = await keyword_task
        t = time.perf_counter()
        fused = rrf({k: v for k, v in sides.items()}, self.fusion)
        timings["fuse"] = _ms(t)
        t = time.perf_counter()
        hits = await asyncio.to_thread(self._build_hits, fused, parsed, request.limit)
        timings["hits"] = _ms(t)
        if request.rerank:
            hits, meta["rerank"] = await rerank_hits(
                request.query, hits, self.rerank_chain() if self.rerank_chain else []
            )
            hits = hits[: request.limit]
        timings["total"] = _ms(started)
        meta.update(await self._meta(sides, vector_state, allowed, timings))
        return SearchResult(hits, meta)

    async def _vector_state(self, mode: str, allowed: list[str] | None) -> dict[str, Any]:
        if mode == "keyword":
            return {"status": "off", "reason": "keyword mode"}
        if self.embedder is None or self.vectors is None:
            return {"status": "disabled", "reason": "no embedding model is configured"}
        scope = await asyncio.to_thread(self._transcript_hashes)
        wanted = set(scope) if allowed is None else set(allowed) & set(scope)
        have = self.vectors.video_ids() & wanted
        if not have and wanted:
            return {
                "status": "partial",
                "reason": "no video has vectors yet",
                "covered": 0,
                "videos": len(wanted),
            }
        status = "ok" if have == wanted else "partial"
        state: dict[str, Any] = {"status": status, "covered": len(have), "videos": len(wanted)}
        if status == "partial":
            state["reason"] = "some videos are still being embedded; they are keyword-only"
        return state

    async def _keyword_side(
        self, parsed: ParsedQuery, allowed: list[str] | None, timings: dict[str, float]
    ) -> list[int]:
        t = time.perf_counter()
        terms = parsed.terms
        limit = (
            PHRASE_CANDIDATES
            if (parsed.phrases or parsed.excluded_terms or parsed.excluded_phrases)
            else CANDIDATES
        )
        ranked = await asyncio.to_thread(self._bm25, terms, limit, allowed)
        kept = await asyncio.to_thread(self._satisfying, [cid for cid, _ in ranked], parsed)
        timings["keyword"] = _ms(t)
        return kept[:SIDE_LIMIT]

    def _bm25(
        self, terms: list[str], limit: int, allowed: list[str] | None
    ) -> list[tuple[int, float]]:
        return bm25_top(self._reader(), terms, limit=limit, videos=allowed)

    async def _vector_side(
        self, parsed: ParsedQuery, allowed: list[str] | None, timings: dict[str, float]
    ) -> list[int]:
        assert self.vectors is not None
        t = time.perf_counter()
        query_vector = await self._embed_query(parsed.text_for_embedding)
        timings["embed_query"] = _ms(t)
        t = time.perf_counter()
        needs_filter = bool(parsed.phrases or parsed.excluded_terms or parsed.excluded_phrases)
        limit = PHRASE_CANDIDATES if needs_filter else SIDE_LIMIT
        videos = set(allowed) if allowed is not None else None
        ranked = await asyncio.to_thread(self.vectors.top, query_vector, limit=limit, videos=videos)
        ids = [cid for cid, _ in ranked]
        if needs_filter:
            ids = await asyncio.to_thread(self._satisfying, ids, parsed)
        timings["vector"] = _ms(t)
        return ids[:SIDE_LIMIT]

    async def _embed_query(self, text: str) -> Vector:
        cached = self._query_vectors.get(text)
        if cached is not None:
            self._query_vectors.move_to_end(text)
            return cached
        assert self.embedder is not None
        vector: Vector = (await self.embedder.embed([text]))[0]
        self._query_vectors[text] = vector
        if len(self._query_vectors) > QUERY_CACHE:
            self._query_vectors.popitem(last=False)
        return vector

    def _satisfying(self, ids: list[int], parsed: ParsedQuery) -> list[int]:
        """Keep chunks that contain every phrase and none of the exclusions, in order."""
        if not (parsed.phrases or parsed.excluded_terms or parsed.excluded_phrases) or not ids:
            return ids
        rows = (
            self._reader()
            .execute("SELECT id, text FROM chunks WHERE id IN (SELECT unnest(?::BIGINT[]))", [ids])
            .fetchall()
        )
        texts = {int(r[0]): str(r[1]) for r in rows}
        return [cid for cid in ids if cid in texts and satisfies(parsed, texts[cid])]

    def _build_hits(self, fused: list[Any], parsed: ParsedQuery, limit: int) -> list[SearchHit]:
        if not fused:
            return []
        reader = self._reader()
        ids = [f.chunk_id for f in fused]
        rows = reader.execute(
            'SELECT id, video_id, start, "end", first_seg, last_seg, chapter FROM chunks'
            " WHERE id IN (SELECT unnest(?::BIGINT[]))",
            [ids],
        ).fetchall()
        info = {int(r[0]): r for r in rows}
        chunk_hits = [
            ChunkHit(
                f.chunk_id,
                str(info[f.chunk_id][1]),
                float(info[f.chunk_id][2]),
                float(info[f.chunk_id][3]),
                int(info[f.chunk_id][4]),
                int(info[f.chunk_id][5]),
                info[f.chunk_id][6],
                f.score,
                dict(f.ranks),
            )
            for f in fused
            if f.chunk_id in info
        ]
        merged = merge_ranges(chunk_hits)[:limit]
        terms = set(parsed.terms) | set(query_terms(" ".join(parsed.phrases)))
        return [self._hit(reader, m, terms) for m in merged]

    def _hit(self, reader: duckdb.DuckDBPyConnection, m: MergedRange, terms: set[str]) -> SearchHit:
        v = reader.execute(
            "SELECT title, channel, platform, native_id, url, source_path FROM videos WHERE id = ?",
            [m.video_id],
        ).fetchall()[0]
        video = Video(
            id=m.video_id,
            title=v[0],
            channel=v[1],
            platform=v[2],
            native_id=v[3],
            url=v[4],
            source_path=v[5],
        )
        segs = reader.execute(
            "SELECT text FROM segments WHERE video_id = ? AND idx BETWEEN ? AND ? ORDER BY idx",
            [m.video_id, m.first_seg, m.last_seg],
        ).fetchall()
        text = range_text_from_rows(segs)
        chapter = None
        if m.chapter is not None:
            rows = reader.execute(
                "SELECT title FROM chapters WHERE video_id = ? AND idx = ?", [m.video_id, m.chapter]
            ).fetchall()
            chapter = str(rows[0][0]) if rows else None
        return SearchHit(
            video_id=m.video_id,
            title=video.title,
            channel=video.channel,
            start=m.start,
            end=m.end,
            url=timestamp_url(video, m.start),
            snippet=snippet(text, terms),
            text=text,
            chapter=chapter,
            sources=m.sources,
            score=m.score,
            ranks=dict(m.ranks),
        )

    async def _meta(
        self,
        sides: dict[str, list[int]],
        vector_state: dict[str, Any],
        allowed: list[str] | None,
        timings: dict[str, float],
    ) -> dict[str, Any]:
        counts = await asyncio.to_thread(
            lambda: (
                self._reader()
                .execute(
                    "SELECT (SELECT count(*) FROM index_manifest), (SELECT count(*) FROM chunks)"
                )
                .fetchall()[0]
            )
        )
        meta: dict[str, Any] = {
            "sides": sorted(sides),
            "keyword_backend": "duckdb-bm25",
            "embedding_model": self.embedder.info.id if self.embedder else None,
            "vector": vector_state,
            "fusion": {"k": self.fusion.k, "weights": dict(self.fusion.weights)},
            "index": {
                "videos": int(counts[0]),
                "chunks": int(counts[1]),
                "vectors": len(self.vectors) if self.vectors is not None else 0,
            },
            "filtered_videos": None if allowed is None else len(allowed),
            "timings_ms": {k: round(v, 2) for k, v in timings.items()},
        }
        if self._reindexed:
            meta["reindexed"] = list(self._reindexed)
            self._reindexed.clear()
        return meta

    async def aclose(self) -> None:
        cursor = getattr(self._local, "cursor", None)
        if cursor is not None:
            cursor.close()


def range_text_from_rows(rows: Sequence[tuple[Any, ...]]) -> str:
    return " ".join(str(r[0]) for r in rows)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000
