"""Hybrid transcript search: BM25 and vectors, fused by reciprocal rank, as time ranges.

The engine keeps the index in step with the library (`index_pending`), answers searches
with both sides running concurrently (DuckDB on one thread, the embedder and numpy on
others), and reports in `meta` exactly what ran and why, so a keyword-only answer never
poses as a hybrid one.

Where the time of a search goes, and what keeps it short:

- the query embedding starts right after parsing, so it runs while the library state is
  read, filters resolve and BM25 runs (two worker threads besides the event loop);
- one SQL query tells which videos are new, changed or gone (the keyword index is brought
  up to date before any search; vectors may lag and are never waited for);
- phrase and exclusion checks read candidate texts in rank order and stop once a side has
  its 50 chunks;
- the hits of a page are built with three queries in all (chunks, segments, videos and
  their chapters), not three per hit, and chunk rows and video cards already read are
  kept until the next write, so a repeated or refined query often reads none;
- snippets are marked from each text's distinct spellings, found again with `str.find`
  (`match_spans`), not by analysing every word of every hit in Python;
- all reads go through per-thread DuckDB cursors, never the store's lock, so a search does
  not wait behind an import's transaction; the SQL lives in `store/search_reads.py`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache, partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ..domain.videos import Video
from ..errors import bad_request
from ..ids import timestamp_url
from ..lru import LRU
from ..models.types import ChatModel, EmbeddingModel
from ..progress import Progress, ProgressCallback, ignore_progress
from ..store import LibraryStore
from ..store.search_reads import LibraryState, SearchReads, VideoFilter
from ..store.until_write import UntilWrite
from .chunk_memory import ChunkMemory
from .cutoff import Cutoff, keyword_cut, vector_cut
from .fusion import Fused, FusionSettings, RankWeights, fused_score, rrf
from .hit_rows import ChunkRows
from .hits import ChunkHit, join_chunk_texts, merge_ranges, segment_text, snippet
from .indexer import IndexResult, KeywordIndex, SearchIndexer
from .keyword_memory import KeywordMemory
from .query import ParsedQuery, parse_query, satisfies
from .request import MODES, SearchHit, SearchRequest, SearchResult
from .rerank import rerank_hits
from .text_tokens import (
    FILLER,
    STOP_WORDS,
    phrase_tokens,
    query_terms,
    snippet_terms,
    tokenize,
)
from .vectors import VectorIndex
from .video_cards import VideoCards

log = logging.getLogger(__name__)
Vector = npt.NDArray[np.float32]
SIDE_LIMIT = 50
CANDIDATES = 200
PHRASE_CANDIDATES = 1000
SATISFY_BATCH = 100
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
        cutoff: Cutoff | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.fusion = fusion or FusionSettings()
        self.cutoff = cutoff or Cutoff()
        self.rerank_chain = rerank_chain
        self.vectors = VectorIndex(embedder.info.id) if embedder is not None else None
        self.reads = SearchReads(store)
        self.keywords = KeywordMemory()
        self.chunks = ChunkMemory()
        self.indexer = SearchIndexer(
            store, embedder, self.vectors, self.reads, self.keywords, self.chunks
        )
        self._loaded = False
        self._load_lock = asyncio.Lock()
        self._query_vectors: LRU[str, Vector] = LRU(QUERY_CACHE)
        self._reindexed: list[dict[str, str]] = []
        self._clean_state: UntilWrite[LibraryState | None] = UntilWrite(store)
        self._chunk_fingerprint: UntilWrite[tuple[int, int]] = UntilWrite(store)
        self._cards = VideoCards(store, self.reads)
        self._hit_rows = ChunkRows(store, self.reads, memory=self.chunks)
        self._chunk_fill: threading.Thread | None = None

    # -- index --------------------------------------------------------------------------------
    async def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        async with self._load_lock:
            if self._loaded:
                return
            if self.vectors is not None:
                ids, videos, matrix = await asyncio.to_thread(
                    self.store.load_vectors, self.vectors.model
                )
                self.vectors.load(ids, videos, matrix)
            await asyncio.to_thread(self._load_keywords)
            self._loaded = True
            self._chunk_fill = threading.Thread(
                target=self._fill_chunks, name="v2c-chunk-rows", daemon=True
            )
            self._chunk_fill.start()

    def _fill_chunks(self) -> None:
        """Hold every chunk's row in memory (`ChunkMemory`), off the event loop and off the
        first search's path: until a video is held, its rows are read from the table."""
        try:
            self.chunks.fill(self.reads.each_video_chunks)
        except Exception:  # the library closed under it, or a read failed: the table serves
            log.debug("chunk rows not held in memory", exc_info=True)

    async def chunk_rows_held(self) -> None:
        """Wait until the first fill of the chunk memory has ended (tests and benchmarks:
        a search never waits for it)."""
        await self._ensure_loaded()
        if self._chunk_fill is not None:
            await asyncio.to_thread(self._chunk_fill.join)

    def _load_keywords(self) -> None:
        """Build the in-memory postings from the tables (under the memory's lock, so no
        change the indexer pushes meanwhile is lost: it waits, then applies on top)."""
        with self.keywords.lock:
            data = self.reads.keyword_postings()
            self.keywords.load(
                data["vocab"],
                data["chunk_ids"],
                data["videos"],
                data["lengths"],
                data["tids"],
                data["posting_chunks"],
                data["tfs"],
            )

    def _sync_keywords(self) -> None:
        """Bring the in-memory postings in step with the chunks table when its fingerprint
        says they are not (a change this engine did not make). Changes this engine makes
        reach the memory right after their write, so this almost never reads more than
        the fingerprint, and that only once per write."""
        if self.keywords.being_written:
            return  # this engine's own write: the memory follows it as soon as it lands
        if self._chunk_fingerprint.get(self.reads.chunk_fingerprint) == self.keywords.fingerprint():
            return
        with self.keywords.lock:  # a change being pushed finishes first
            if self.reads.chunk_fingerprint() == self.keywords.fingerprint():
                return
            stored = self.reads.chunk_fingerprints()
            held = self.keywords.video_fingerprints()
            differ = sorted(v for v in stored.keys() | held.keys() if stored.get(v) != held.get(v))
            self.chunks.forget(differ)
            changed = sum(stored[v][0] for v in differ if v in stored)
            if changed * 4 > max(1, sum(n for n, _ in stored.values())):
                self._load_keywords()
                return
            self.keywords.replace_from(self.reads.keyword_postings(differ), differ)

    def _state(self, *, list_vectors: bool = False) -> LibraryState:
        """Sizes and staleness of the index; a fully indexed library's counts are kept
        until the store's next write, so most searches read no table for them."""
        model = self.embedder.info.id if self.embedder is not None else None
        if not list_vectors:
            state = self._clean_state.get(
                lambda: self.reads.clean_state(model), keep=lambda found: found is not None
            )
            if state is not None:
                return state
        return self.reads.library_state(model, list_vectors=list_vectors)

    def _reconcile_vectors(self, state: LibraryState) -> None:
        """Drop in-memory vectors of videos the library no longer holds (deleted without
        this engine being told), so they neither take top-k places nor count as covered."""
        if self.vectors is None or len(self.vectors.video_ids()) <= state.with_vectors:
            return
        assert self.embedder is not None
        current = self.reads.videos_with_current_vectors(self.embedder.info.id)
        for vid in self.vectors.video_ids() - current:
            self.vectors.drop_video(vid)

    async def pending(self, *, vectors: bool = True) -> list[str]:
        """Videos whose keyword index (or, with `vectors`, whose vectors) are missing or stale.

        Index entries of videos no longer in the library are dropped on the way.
        """
        await self._ensure_loaded()
        with_vectors = vectors and self.embedder is not None
        state = await asyncio.to_thread(lambda: self._state(list_vectors=with_vectors))
        await self._drop_gone(state.gone)
        if with_vectors:
            return sorted(state.keyword_stale + state.vectors_stale)
        return list(state.keyword_stale)

    async def _drop_gone(self, gone: Sequence[str]) -> None:
        for vid in gone:
            await self.indexer.drop(vid)

    async def index_video(self, video_id: str) -> IndexResult:
        await self._ensure_loaded()
        result = await self.indexer.index_video(video_id)
        self._note(result)
        return result

    def _note(self, result: IndexResult) -> None:
        if result.reindexed_from:
            self._reindexed.append({"video_id": result.video_id, "from": result.reindexed_from})

    async def index_pending(
        self, *, vectors: bool = True, progress: ProgressCallback = ignore_progress
    ) -> list[IndexResult]:
        """Bring every library video's index up to date (keyword only when `vectors` is off).

        With vectors, each video is chunked and written while the previous one is being
        embedded, in embedder calls of bounded size, so a search's query embedding never
        queues behind a whole video.
        """
        todo = await self.pending(vectors=vectors)
        total = len(todo)
        if not vectors or self.embedder is None:
            results: list[IndexResult] = []
            for done, vid in enumerate(todo):
                progress(Progress("index", done, total, vid))
                keyword = await self.indexer.keyword_index(vid)
                results.append(
                    IndexResult(
                        vid,
                        len(keyword.ids),
                        "indexed" if keyword.rebuilt else "reused",
                        "disabled",
                        reason="keyword pass" if not vectors else "no embedder",
                    )
                )
            progress(Progress("index", total, total, "index up to date"))
            return results

        def report(done: int, vid: str) -> None:
            progress(Progress("index", done, total, vid))

        results = await self.indexer.index_videos(todo, report)
        for result in results:
            self._note(result)
        progress(Progress("index", total, total, "index up to date"))
        return results

    def video(self, video_id: str) -> Video | None:
        """A video's metadata from the cards hits are built from, without reading its
        transcript (None when it is not in the library); call it from a worker thread."""
        card = self._cards.get([video_id]).get(video_id)
        return card.video if card is not None else None

    def drop_video(self, video_id: str) -> None:
        if self.vectors is not None:
            self.vectors.drop_video(video_id)

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (benchmarks measure the query embedding this way)."""
        self._query_vectors.clear()

    # -- search -------------------------------------------------------------------------------
    async def search(self, request: SearchRequest) -> SearchResult:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        if request.mode not in MODES:
            raise bad_request(f"unknown mode {request.mode!r}", "use hybrid, keyword or vector")
        if not 1 <= request.limit <= 100:
            raise bad_request("limit must be between 1 and 100", "try --limit 10")
        parsed = parse_query(request.query)
        timings["parse"] = _ms(started)
        embed_task: asyncio.Task[Vector] | None = None
        if request.mode != "keyword" and self.embedder is not None:
            # the query embedding runs while the state is read, filters resolve and BM25 runs
            embed_task = asyncio.create_task(self._timed_embed(parsed.text_for_embedding, timings))
        try:
            return await self._search(request, parsed, embed_task, timings, started)
        finally:
            if embed_task is not None:
                if not embed_task.done():
                    embed_task.cancel()
                elif not embed_task.cancelled():
                    embed_task.exception()  # retrieved: reported as `vector: failed`

    async def _search(
        self,
        request: SearchRequest,
        parsed: ParsedQuery,
        embed_task: asyncio.Task[Vector] | None,
        timings: dict[str, float],
        started: float,
    ) -> SearchResult:
        await self._ensure_loaded()
        t = time.perf_counter()
        state, allowed, undated = await asyncio.to_thread(self._prepare, request)
        timings["filter"] = _ms(t)
        if state.keyword_stale or state.gone:
            # the keyword index must be current before a search; vectors may lag
            t = time.perf_counter()
            await self._drop_gone(state.gone)
            for vid in state.keyword_stale:
                await self.indexer.keyword_index(vid)
            state = await asyncio.to_thread(self._state)
            timings["sync"] = _ms(t)
        sides: dict[str, list[int]] = {}
        meta: dict[str, Any] = {"query": parsed.to_dict(), "mode": request.mode}
        vector_state = self._vector_state(request.mode, allowed, state)
        candidates: set[int] | None = None
        checked: dict[int, bool] = {}  # phrase and exclusion verdicts, shared by both sides
        coverage: dict[int, float] = {}  # keyword hits' share of the query's IDF mass
        cutoff = self.cutoff if request.cutoff else None
        dropped: dict[str, int] = {}  # what the cut-off left out, per side
        if parsed.phrases:
            t = time.perf_counter()
            candidates = await asyncio.to_thread(self._phrase_candidates, parsed)
            timings["phrases"] = _ms(t)
        keyword_task = None
        if request.mode in ("hybrid", "keyword"):
            keyword_task = asyncio.create_task(
                self._keyword_side(
                    parsed, allowed, candidates, checked, timings, cutoff, dropped, coverage
                )
            )
        try:
            if embed_task is not None and vector_state["status"] in ("ok", "partial"):
                try:
                    sides["vector"] = await self._vector_side(
                        parsed, allowed, candidates, checked, embed_task, timings, cutoff, dropped
                    )
                except Exception as exc:  # a failed embedder leaves keyword search
                    vector_state = {"status": "failed", "reason": str(exc)[:200]}
            if keyword_task is not None:
                sides["keyword"] = await keyword_task
        finally:
            if keyword_task is not None and not keyword_task.done():
                keyword_task.cancel()
        t = time.perf_counter()
        per_rank = (
            None
            if request.plain_fusion
            else self._rank_weights(sides, coverage, vector_state.get("status") == "partial")
        )
        fused = rrf(dict(sides), self.fusion, per_rank)
        timings["fuse"] = _ms(t)
        t = time.perf_counter()
        hits = await asyncio.to_thread(self._build_hits, fused, parsed, request.limit, per_rank)
        timings["hits"] = _ms(t)
        if request.rerank:
            hits, meta["rerank"] = await rerank_hits(
                request.query, hits, self.rerank_chain() if self.rerank_chain else []
            )
            hits = hits[: request.limit]
        timings["total"] = _ms(started)
        meta.update(self._meta(sides, vector_state, allowed, state, timings))
        if request.plain_fusion:
            meta["fusion"]["keyword_coverage"] = False
        if cutoff is not None:
            meta["cutoff"] = {side: dropped.get(side, 0) for side in sorted(sides)}
        if undated is not None:
            meta["undated_left_out"] = undated
        return SearchResult(hits, meta)

    def _rank_weights(
        self, sides: dict[str, list[int]], coverage: dict[int, float], partial: bool = False
    ) -> RankWeights | None:
        """Each keyword hit weighted by its coverage, when both sides ran (see `fusion`).

        Only hybrid: keyword mode keeps BM25's own order, and without a vector side there
        is nothing for a weak keyword hit to give way to. The same holds for one chunk:
        while the vector side is `partial`, a keyword hit whose chunk has no vector keeps
        full weight, since no vector rank can ever speak for it (weighted, even a video's
        best passage fell below the vector side's unrelated tail and out of the results).
        """
        if not self.fusion.keyword_coverage or "keyword" not in sides or "vector" not in sides:
            return None
        keyword = sides["keyword"]
        unembedded = (
            self.vectors.without_vectors(keyword) if partial and self.vectors is not None else set()
        )
        return {
            "keyword": [1.0 if cid in unembedded else coverage.get(cid, 1.0) for cid in keyword]
        }

    def _prepare(self, request: SearchRequest) -> tuple[LibraryState, list[str] | None, int | None]:
        """The index state, the videos the filters allow, and how many videos a date filter
        left out only for having no date (None without a date filter)."""
        state = self._state()
        self._reconcile_vectors(state)
        self._sync_keywords()
        where = video_filter(request)
        allowed = self.reads.allowed_videos(where)
        dated = request.published_after or request.published_before
        undated = None
        if dated and not request.include_undated:
            undated = self.reads.undated_videos(where)
        return state, allowed, undated

    def _phrase_candidates(self, parsed: ParsedQuery) -> set[int] | None:
        """Chunks that may hold every required phrase, from the postings; None: any chunk.

        A chunk holding a phrase holds each of its words, and a word whose term no stop word
        or filler shares is always indexed, so the chunk has a posting for that term. Only
        such terms are required here: the set never misses a chunk `satisfies` would keep,
        and it spares tokenizing hundreds of candidates when the phrase is rare.
        """
        terms = sorted({t for phrase in parsed.phrases for t in indexed_phrase_terms(phrase)})
        if not terms:
            return None
        return self.keywords.chunks_with_all_terms(terms)

    def _vector_state(
        self, mode: str, allowed: list[str] | None, state: LibraryState
    ) -> dict[str, Any]:
        if mode == "keyword":
            return {"status": "off", "reason": "keyword mode"}
        if self.embedder is None or self.vectors is None:
            return {"status": "disabled", "reason": "no embedding model is configured"}
        have = self.vectors.video_ids()
        if allowed is None:
            wanted, covered = state.videos, min(len(have), state.videos)
        else:
            wanted, covered = len(allowed), len(have.intersection(allowed))
        if not covered and wanted:
            return {
                "status": "partial",
                "reason": "no video has vectors yet",
                "covered": 0,
                "videos": wanted,
            }
        status = "ok" if covered == wanted else "partial"
        result: dict[str, Any] = {"status": status, "covered": covered, "videos": wanted}
        if status == "partial":
            result["reason"] = "some videos are still being embedded; they are keyword-only"
        return result

    async def _keyword_side(
        self,
        parsed: ParsedQuery,
        allowed: list[str] | None,
        candidates: set[int] | None,
        checked: dict[int, bool],
        timings: dict[str, float],
        cutoff: Cutoff | None = None,
        dropped: dict[str, int] | None = None,
        coverage: dict[int, float] | None = None,
    ) -> list[int]:
        t = time.perf_counter()
        kept = await asyncio.to_thread(
            self._keyword_ids, parsed, allowed, candidates, checked, cutoff, dropped, coverage
        )
        timings["keyword"] = _ms(t)
        return kept

    def _keyword_ids(
        self,
        parsed: ParsedQuery,
        allowed: list[str] | None,
        candidates: set[int] | None = None,
        checked: dict[int, bool] | None = None,
        cutoff: Cutoff | None = None,
        dropped: dict[str, int] | None = None,
        coverage: dict[int, float] | None = None,
    ) -> list[int]:
        """The keyword side's chunks, best first; `coverage` (when given) gets each
        candidate's share of the query's IDF mass (`KeywordMemory.top_covered`)."""
        limit = PHRASE_CANDIDATES if _needs_filter(parsed) else CANDIDATES
        covered = self.keywords.top_covered(parsed.terms, limit=limit, videos=allowed)
        ranked = [(cid, score) for cid, score, _ in covered]
        if coverage is not None:
            coverage.update((cid, share) for cid, _, share in covered)
        kept = self._satisfying([cid for cid, _ in ranked], parsed, candidates, checked)
        if cutoff is None:
            return kept
        good = keyword_cut(kept, dict(ranked), cutoff)
        if dropped is not None:
            dropped["keyword"] = len(kept) - len(good)
        return good

    async def _vector_side(
        self,
        parsed: ParsedQuery,
        allowed: list[str] | None,
        candidates: set[int] | None,
        checked: dict[int, bool],
        embed_task: asyncio.Task[Vector],
        timings: dict[str, float],
        cutoff: Cutoff | None = None,
        dropped: dict[str, int] | None = None,
    ) -> list[int]:
        query_vector = await embed_task
        t = time.perf_counter()
        ids = await asyncio.to_thread(
            self._vector_ids, query_vector, parsed, allowed, candidates, checked, cutoff, dropped
        )
        timings["vector"] = _ms(t)
        return ids

    def _vector_ids(
        self,
        query_vector: Vector,
        parsed: ParsedQuery,
        allowed: list[str] | None,
        candidates: set[int] | None = None,
        checked: dict[int, bool] | None = None,
        cutoff: Cutoff | None = None,
        dropped: dict[str, int] | None = None,
    ) -> list[int]:
        assert self.vectors is not None
        limit = PHRASE_CANDIDATES if _needs_filter(parsed) else SIDE_LIMIT
        videos = set(allowed) if allowed is not None else None
        ranked = self.vectors.top(query_vector, limit=limit, videos=videos)
        kept = self._satisfying([cid for cid, _ in ranked], parsed, candidates, checked)
        if cutoff is None:
            return kept
        good = vector_cut(kept, dict(ranked), cutoff)
        if dropped is not None:
            dropped["vector"] = len(kept) - len(good)
        return good

    async def _timed_embed(self, text: str, timings: dict[str, float]) -> Vector:
        t = time.perf_counter()
        vector = await self._embed_query(text)
        timings["embed_query"] = _ms(t)
        return vector

    async def _embed_query(self, text: str) -> Vector:
        cached = self._query_vectors.get(text)
        if cached is not None:
            return cached
        assert self.embedder is not None
        vector: Vector = (await self.embedder.embed([text]))[0]
        self._query_vectors[text] = vector
        return vector

    def _satisfying(
        self,
        ids: list[int],
        parsed: ParsedQuery,
        candidates: set[int] | None = None,
        checked: dict[int, bool] | None = None,
    ) -> list[int]:
        """The first SIDE_LIMIT chunks, in order, holding every phrase and no exclusion.

        Chunks outside `candidates` (see `_phrase_candidates`) cannot hold the phrases and
        are skipped unread; the others are read in rank order, a batch at a time, until
        enough pass. `checked` remembers verdicts across the two sides of one search (they
        run at once and share many candidates).
        """
        if not _needs_filter(parsed):
            return ids[:SIDE_LIMIT]
        if candidates is not None:
            ids = [cid for cid in ids if cid in candidates]
        verdicts = {} if checked is None else checked
        kept: list[int] = []
        start, batch = 0, SATISFY_BATCH
        while start < len(ids) and len(kept) < SIDE_LIMIT:
            part = ids[start : start + batch]
            start += len(part)
            batch *= 2
            unread = [cid for cid in part if cid not in verdicts]
            texts = self._hit_rows.texts(unread) if unread else {}
            for cid in part:
                verdict = verdicts.get(cid)
                if verdict is None:
                    text = texts.get(cid)
                    verdict = text is not None and satisfies(parsed, text)
                    verdicts[cid] = verdict
                if verdict:
                    kept.append(cid)
                    if len(kept) == SIDE_LIMIT:
                        break
        return kept

    def _build_hits(
        self,
        fused: list[Fused],
        parsed: ParsedQuery,
        limit: int,
        per_rank: RankWeights | None = None,
    ) -> list[SearchHit]:
        """Merged, titled, linked hits: the places of the fused chunks, then the texts of
        only those in the page's ranges, from memory or the table (`ChunkRows`); titles,
        links and chapter names from the video cards (read once per video until the
        library changes).

        A range's text is rebuilt from its chunks' texts (each is its segments joined), with
        the overlap of neighbouring chunks said once; only when that cannot be done for
        sure does it come from the raw segments (one more query for all such ranges).
        """
        if not fused:
            return []
        info = self._hit_rows.get([f.chunk_id for f in fused])
        chunk_hits = [
            ChunkHit(
                f.chunk_id,
                row.video_id,
                row.start,
                row.end,
                row.first_seg,
                row.last_seg,
                row.chapter,
                f.score,
                dict(f.ranks),
            )
            for f in fused
            if (row := info.get(f.chunk_id)) is not None
        ]
        rescore = partial(fused_score, settings=self.fusion, per_rank=per_rank)
        merged = merge_ranges(chunk_hits, rescore=rescore)[:limit]
        # rows read from the table came with their text; the memory's, only with places
        chunk_text = {c: info[c].text for m in merged for c in m.chunk_ids if info[c].text}
        untexted = [c for m in merged for c in m.chunk_ids if c not in chunk_text]
        chunk_text |= self._hit_rows.texts(untexted) if untexted else {}
        texts: list[str | None] = [
            join_chunk_texts(
                sorted(
                    (info[c].first_seg, info[c].last_seg, chunk_text.get(c, ""))
                    for c in m.chunk_ids
                )
            )
            for m in merged
        ]
        missing = [m for m, text in zip(merged, texts, strict=True) if text is None]
        if missing:
            ranges = [(m.video_id, m.first_seg, m.last_seg) for m in missing]
            rebuilt = iter(segment_text(part) for part in self.reads.segment_texts(ranges))
            texts = [next(rebuilt) if text is None else text for text in texts]
        terms = hit_terms(parsed)
        cards = self._cards.get(m.video_id for m in merged)
        out: list[SearchHit] = []
        for m, text in zip(merged, texts, strict=True):
            card = cards.get(m.video_id)
            if card is None:  # deleted since the chunks were read: not a hit any more
                continue
            text = text or ""
            out.append(
                SearchHit(
                    video_id=m.video_id,
                    title=card.video.title,
                    channel=card.video.channel,
                    start=m.start,
                    end=m.end,
                    url=timestamp_url(card.video, m.start),
                    snippet=snippet(text, terms),
                    text=text,
                    chapter=card.chapter_title(m.chapter),
                    sources=m.sources,
                    score=m.score,
                    ranks=dict(m.ranks),
                )
            )
        return out

    def _meta(
        self,
        sides: dict[str, list[int]],
        vector_state: dict[str, Any],
        allowed: list[str] | None,
        state: LibraryState,
        timings: dict[str, float],
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "sides": sorted(sides),
            "keyword_backend": "memory-bm25",
            "embedding_model": self.embedder.info.id if self.embedder else None,
            "vector": vector_state,
            "fusion": {
                "k": self.fusion.k,
                "weights": dict(self.fusion.weights),
                "keyword_coverage": self.fusion.keyword_coverage,
            },
            "index": {
                "videos": state.indexed_videos,
                "chunks": state.chunks,
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
        self.chunks.stop()
        if self._chunk_fill is not None:
            await asyncio.to_thread(self._chunk_fill.join)
        self.reads.close()


def video_filter(request: SearchRequest) -> VideoFilter:
    """The request's filters, as the store reads them."""
    return VideoFilter(
        collection=request.collection,
        video_ids=request.video_ids,
        channel=request.channel,
        origins=request.origins,
        published_after=request.published_after,
        published_before=request.published_before,
        include_undated=request.include_undated,
    )


def hit_terms(parsed: ParsedQuery) -> set[str]:
    """The terms a hit's snippet bolds: the query's terms and its phrases' words."""
    return set(parsed.terms) | set(query_terms(" ".join(parsed.phrases)))


def _needs_filter(parsed: ParsedQuery) -> bool:
    return bool(parsed.phrases or parsed.excluded_terms or parsed.excluded_phrases)


@cache
def _unindexed_terms() -> frozenset[str]:
    """Phrase terms a stop word or filler can have: a text word with such a term may have
    no posting, so such terms never serve to narrow phrase candidates."""
    return frozenset(t for word in STOP_WORDS | FILLER for t in phrase_tokens(word))


def indexed_phrase_terms(phrase: str) -> set[str]:
    """Terms that every chunk holding `phrase` has a posting for (see `_phrase_candidates`).

    A word qualifies when its own phrase term is among its BM25 terms (plain words and model
    codes, not stop words or filler) and no stop word or filler shares that term.
    """
    out: set[str] = set()
    for word in snippet_terms(phrase):
        if word.term in _unindexed_terms():
            continue
        if word.term in tokenize(phrase[word.start : word.end]):
            out.add(word.term)
    return out


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


__all__ = [
    "IndexResult",
    "KeywordIndex",
    "LibraryState",
    "SearchEngine",
    "SearchRequest",
    "SearchResult",
]
