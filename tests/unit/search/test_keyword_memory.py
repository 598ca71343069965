"""The in-memory BM25 postings answer exactly what the SQL path over DuckDB answers.

Real transcripts from ../shared/corpus, real DuckDB library files, keyword-only engines (no
embedder: the keyword side is what is checked). After every change (an import, a removal,
a change made by another engine on the same library) the memory's answers are compared
with `store.bm25`'s over the tables as they are then: ids in order, scores to 1e-9.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import corpus_path
from tests.unit.search.test_engine import THREE_B1B, crashcourse_files
from v2c_desktop.core.library import Library
from v2c_desktop.core.search.engine import SearchEngine, indexed_phrase_terms
from v2c_desktop.core.search.keyword_memory import KeywordMemory
from v2c_desktop.core.search.query import parse_query
from v2c_desktop.core.search.request import SearchRequest
from v2c_desktop.core.search.text_tokens import tokenize
from v2c_desktop.core.store import LibraryStore, open_library

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(600)]

QUERIES = Path(__file__).resolve().parents[2] / "eval" / "queries.json"
EXTRA = ["eigenvalue eigenvector", "sleep stages REM", "memory", "the brain", "zzzz-none"]


def eval_queries() -> list[str]:
    data = json.loads(QUERIES.read_text(encoding="utf-8"))
    return [q["query"] for q in data["queries"]] + EXTRA


class KeywordLibrary:
    def __init__(self, path: Path) -> None:
        self.runner = asyncio.Runner()
        self.store: LibraryStore = open_library(path)
        self.engine = SearchEngine(self.store, None)
        self.library = Library(
            self.store, on_saved=self.engine.index_video, on_removed=self.engine.drop_video
        )

    def run(self, coro: Any) -> Any:
        return self.runner.run(coro)

    def add(self, *paths: Path | str) -> list[str]:
        batch = self.run(self.library.add([str(p) for p in paths]))
        return [o.video_id for o in batch.outcomes if o.video_id]

    def search(self, query: str, **fields: Any) -> Any:
        return self.run(self.engine.search(SearchRequest(query=query, mode="keyword", **fields)))

    def close(self) -> None:
        async def go() -> None:
            await self.library.aclose()
            await self.engine.aclose()

        try:
            self.run(go())
        finally:
            self.runner.close()
            self.store.close()


def assert_same_as_sql(
    engine: SearchEngine, queries: list[str], videos: list[str] | None = None
) -> int:
    """Memory and SQL agree on every query; returns how many had results."""
    reads = engine.reads
    stats = reads.corpus_stats()
    assert engine.keywords.fingerprint() == reads.chunk_fingerprint()
    answered = 0
    for query in queries:
        terms = parse_query(query).terms
        for limit in (50, 1000):
            sql = reads.bm25_top(terms, limit=limit, videos=videos, stats=stats)
            mem = engine.keywords.top(terms, limit=limit, videos=videos)
            assert [c for c, _ in mem] == [c for c, _ in sql], query
            for (_, a), (_, b) in zip(mem, sql, strict=True):
                assert a == pytest.approx(b, rel=1e-9, abs=1e-12), query
        answered += bool(sql)
        phrase_terms = sorted(indexed_phrase_terms(query))
        if phrase_terms:
            assert engine.keywords.chunks_with_all_terms(
                phrase_terms
            ) == reads.chunks_with_all_terms(phrase_terms)
    return answered


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[KeywordLibrary]:
    corpus_path(THREE_B1B[0])
    library = KeywordLibrary(tmp_path / "lib.duckdb")
    try:
        yield library
    finally:
        library.close()


def test_memory_equals_sql_and_follows_imports_and_removals(lib: KeywordLibrary) -> None:
    crash = lib.add(*crashcourse_files()[:6])
    lib.search("warm up")  # loads the memory from the tables
    assert lib.engine.keywords.loaded
    queries = eval_queries()
    assert assert_same_as_sql(lib.engine, queries) > 10
    assert_same_as_sql(lib.engine, queries[:20], videos=crash[:2])

    three = lib.add(*[corpus_path(p) for p in THREE_B1B])  # pushed by the indexer
    assert set(three) <= lib.engine.keywords.video_ids()
    assert_same_as_sql(lib.engine, queries)

    lib.run(lib.library.remove(crash[0]))
    lib.run(lib.library.remove(three[1]))
    lib.search("warm up")  # the search drops the removed videos' index
    assert crash[0] not in lib.engine.keywords.video_ids()
    assert_same_as_sql(lib.engine, queries)
    assert_same_as_sql(lib.engine, queries[:20], videos=[three[0], crash[1]])


def test_a_change_by_another_engine_is_reconciled_at_the_next_search(
    lib: KeywordLibrary,
) -> None:
    first = lib.add(*crashcourse_files()[:3])
    lib.search("warm up")
    other = SearchEngine(lib.store, None)  # writes the tables; `lib.engine` is not told
    try:
        record = lib.store.get_video(first[0])
        lib.run(other.indexer.drop(first[0]))
        assert first[0] in lib.engine.keywords.video_ids()
        lib.store.save_video(record)
        lib.run(other.indexer.keyword_index(first[0]))
        lib.search("warm up")
        assert_same_as_sql(lib.engine, eval_queries())
        lib.store.delete_video(first[1])  # deleted, and its index dropped by `other`:
        lib.run(other.indexer.drop(first[1]))  # nothing stale or gone for `lib.engine`
        lib.search("warm up")
        assert first[1] not in lib.engine.keywords.video_ids()
        assert_same_as_sql(lib.engine, eval_queries())
    finally:
        lib.run(other.aclose())


def test_segments_merge_and_dead_rows_compact_without_changing_answers(
    lib: KeywordLibrary,
) -> None:
    """Re-indexing videos over and over (dead rows, many small segments, compactions) gives
    the answers of a memory freshly built from the tables."""
    videos = lib.add(*crashcourse_files()[:5])
    lib.search("warm up")
    memory = lib.engine.keywords
    for _ in range(3):
        for vid in videos:
            record = lib.store.get_video(vid)
            lib.store.delete_video(vid)
            lib.search("warm up")  # gone: dropped
            lib.store.save_video(record)
            lib.search("warm up")  # stale: indexed again, pushed
    fresh = KeywordMemory()
    data = lib.engine.reads.keyword_postings()
    fresh.load(
        data["vocab"],
        data["chunk_ids"],
        data["videos"],
        data["lengths"],
        data["tids"],
        data["posting_chunks"],
        data["tfs"],
    )
    assert memory.fingerprint() == fresh.fingerprint()
    for query in eval_queries():
        terms = parse_query(query).terms
        assert memory.top(terms, limit=200) == fresh.top(terms, limit=200), query
    assert_same_as_sql(lib.engine, eval_queries())


def test_coverage_is_the_share_of_the_query_idf_mass_a_chunk_holds() -> None:
    """`top_covered` ranks as `top` does; a chunk's coverage is the IDF of the query terms
    it holds over the IDF of all of them, a term no chunk holds counting as one held once."""
    memory = KeywordMemory()
    memory.load(
        ["common", "rare", "other"],
        np.asarray([1, 2, 3, 4], dtype=np.int64),
        ["v", "v", "v", "v"],
        np.asarray([2, 1, 1, 1], dtype=np.int32),
        np.asarray([0, 1, 0, 0, 2], dtype=np.int32),  # common: 1, 2, 3; rare: 1; other: 4
        np.asarray([1, 1, 2, 3, 4], dtype=np.int64),
        np.asarray([1, 1, 1, 1, 1], dtype=np.int32),
    )

    def idf(df: int) -> float:
        return math.log(1 + (4 - df + 0.5) / (df + 0.5))

    covered = memory.top_covered(["common", "rare"], limit=10)
    assert [(c, s) for c, s, _ in covered] == memory.top(["common", "rare"], limit=10)
    share = dict((c, cov) for c, _, cov in covered)
    assert share[1] == pytest.approx(1.0)
    assert share[2] == pytest.approx(idf(3) / (idf(3) + idf(1)))
    unknown = dict((c, cov) for c, _, cov in memory.top_covered(["rare", "zzz"], limit=10))
    assert unknown == {1: pytest.approx(0.5)}  # "zzz" weighs as much as a term held once


def test_coverage_matches_top_on_real_transcripts(lib: KeywordLibrary) -> None:
    """On several segments and dead rows (videos imported one by one, one removed), each
    returned chunk's coverage is what its own text's terms give."""
    lib.search("warm up")  # loads the memory: from here on every import adds a segment
    lib.add(*crashcourse_files("consciousness", "memory"))
    three = [lib.add(corpus_path(p))[0] for p in THREE_B1B]  # the short one last
    lib.run(lib.library.remove(three[1]))
    lib.search("warm up")  # drops the removed video's rows
    memory = lib.engine.keywords
    snap = memory._snap
    assert snap is not None and len(snap.segments) > 1 and snap.dead  # what is under test
    n = memory.fingerprint()[0]
    for query in eval_queries():
        terms = sorted(set(parse_query(query).terms))
        covered = memory.top_covered(terms, limit=50)
        assert [(c, s) for c, s, _ in covered] == memory.top(terms, limit=50), query
        if not covered:
            continue
        texts = lib.engine.reads.chunk_texts([c for c, _, _ in covered])
        df = {t: len(memory.chunks_with_all_terms([t])) for t in terms}
        idf = {t: math.log(1 + (n - max(df[t], 1) + 0.5) / (max(df[t], 1) + 0.5)) for t in terms}
        for cid, _, share in covered:
            held = set(tokenize(texts[cid]))
            expected = sum(idf[t] for t in terms if t in held) / sum(idf.values())
            assert share == pytest.approx(expected, rel=1e-9), (query, cid)
