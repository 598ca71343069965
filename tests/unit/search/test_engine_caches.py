"""What the engine keeps between searches is dropped the moment the library changes.

A search reads the index state, BM25's corpus figures and the videos' titles and chapters
once, then keeps them until `LibraryStore.generation` moves. These tests change the library
in each way a user can and check that the very next search sees it. Keyword-only engine on a
real DuckDB file: the caches do not involve the embedder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np
import pytest

from v2c_desktop.core.domain.videos import Chapter, Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.search.engine import SearchEngine
from v2c_desktop.core.search.request import SearchRequest, SearchResult
from v2c_desktop.core.search.vectors import PARALLEL_ROWS, VectorIndex, _quantised
from v2c_desktop.core.store import LibraryStore, open_library
from v2c_desktop.core.store.bm25 import bm25_top, corpus_stats
from v2c_desktop.core.store.migrations import MIGRATIONS, migrate
from v2c_desktop.core.store.until_write import UntilWrite

LINES = [
    "Welcome to the workshop on sourdough bread and wild yeast.",
    "A starter is flour and water that wild yeast and bacteria colonise.",
    "Feed the starter twice a day until it doubles within six hours.",
    "Hydration is the weight of water divided by the weight of flour.",
    "Stretch and fold the dough every half hour during bulk fermentation.",
    "Shape the loaf, proof it overnight in the fridge, then bake it hot.",
]


def record(native: str, title: str, lines: list[str] = LINES) -> VideoRecord:
    segments = [Segment(i * 20.0, i * 20.0 + 19.0, text) for i, text in enumerate(lines)]
    end = len(lines) * 20.0
    return VideoRecord(
        Video(
            id=f"youtube:{native}",
            title=title,
            platform="youtube",
            native_id=native,
            channel="Bakery",
            url=f"https://www.youtube.com/watch?v={native}",
            duration=end,
        ),
        Transcript("creator-captions", "en", segments, producer="youtube"),
        [Chapter("Starter", 0.0, 60.0), Chapter("Dough", 60.0, end)],
    )


class Harness:
    def __init__(self, path: Path) -> None:
        self.runner = asyncio.Runner()
        self.store: LibraryStore = open_library(path)
        self.engine = SearchEngine(self.store, None)

    def save(self, rec: VideoRecord) -> None:
        self.store.save_video(rec)
        self.runner.run(self.engine.index_video(rec.video.id))

    def search(self, query: str) -> SearchResult:
        return self.runner.run(self.engine.search(SearchRequest(query=query, mode="keyword")))

    def close(self) -> None:
        self.runner.run(self.engine.aclose())
        self.runner.close()
        self.store.close()


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(tmp_path / "lib.duckdb")
    yield harness
    harness.close()


def test_the_store_generation_moves_on_every_write_and_only_then(lib: Harness) -> None:
    start = lib.store.generation
    lib.store.list_videos()
    lib.store.reader().execute("SELECT count(*) FROM videos").fetchall()
    assert lib.store.generation == start
    lib.store.create_collection("Bread")
    assert lib.store.generation == start + 1

    def failing_write() -> None:  # on the store's worker, where every write runs
        with lib.store._transaction() as conn:
            conn.execute("INSERT INTO no_such_table VALUES (1)")

    with pytest.raises(duckdb.Error):
        lib.runner.run(lib.store.run(failing_write))
    assert lib.store.generation == start + 2  # a failed write may have touched something


def test_a_retitled_video_shows_its_new_title_and_chapters_at_once(lib: Harness) -> None:
    lib.save(record("aaaaaaaaaaa", "Sourdough basics"))
    first = lib.search("hydration flour water")
    assert first.hits[0].title == "Sourdough basics"
    assert first.hits[0].chapter == "Dough"
    renamed = record("aaaaaaaaaaa", "Sourdough, properly")
    renamed = replace(renamed, chapters=[Chapter("Levain", 0.0, 60.0), Chapter("Mix", 60.0, 120.0)])
    lib.save(renamed)
    again = lib.search("hydration flour water")
    assert (again.hits[0].title, again.hits[0].chapter) == ("Sourdough, properly", "Mix")


def test_counts_follow_imports_and_deletes(lib: Harness) -> None:
    lib.save(record("aaaaaaaaaaa", "One"))
    assert lib.search("starter").meta["index"]["videos"] == 1
    lib.save(record("bbbbbbbbbbb", "Two"))
    both = lib.search("starter")
    assert both.meta["index"]["videos"] == 2
    assert {h.title for h in both.hits} == {"One", "Two"}
    lib.store.delete_video("youtube:aaaaaaaaaaa")
    after = lib.search("starter")
    assert after.meta["index"]["videos"] == 1
    assert {h.title for h in after.hits} == {"Two"}


def test_bm25_scores_the_same_with_kept_or_fresh_corpus_figures(lib: Harness) -> None:
    lib.save(record("aaaaaaaaaaa", "One"))
    lib.save(record("bbbbbbbbbbb", "Two", [*LINES[3:], "Bake the bread hot with steam."]))
    reader = lib.store.reader()
    for terms in (["water", "flour"], ["bread"], ["starter", "yeast", "wild"]):
        fresh = bm25_top(reader, terms, limit=10)
        kept = bm25_top(reader, terms, limit=10, stats=corpus_stats(reader))
        assert [c for c, _ in fresh] == [c for c, _ in kept]
        np.testing.assert_allclose([s for _, s in fresh], [s for _, s in kept], rtol=1e-12)
    total = reader.execute("SELECT count(*) FROM chunks").fetchall()[0][0]
    assert corpus_stats(reader).chunks == total


def test_the_postings_length_migration_backfills_and_sorts(tmp_path: Path) -> None:
    """A library indexed before 0005 gets each posting's chunk length, in term order."""
    path = tmp_path / "old.duckdb"
    conn = duckdb.connect(str(path))
    before = MIGRATIONS[[m.name for m in MIGRATIONS].index("0005_postings_length") - 1].name
    migrate(conn, upto=before)
    conn.execute(
        "INSERT INTO chunks VALUES (1, 'youtube:x', 0, 0, 30, 0, 2, NULL, 3, 'a b c'),"
        " (2, 'youtube:x', 1, 30, 60, 3, 5, NULL, 2, 'd e')"
    )
    conn.execute(
        "INSERT INTO postings VALUES ('zebra', 1, 1), ('apple', 2, 2), ('apple', 1, 1),"
        " ('orphan', 99, 1)"
    )
    conn.close()
    with open_library(path) as store:
        rows = store.reader().execute("SELECT term, chunk_id, tf, length FROM postings").fetchall()
    assert rows == [("apple", 1, 1, 3), ("apple", 2, 2, 2), ("zebra", 1, 1, 3)]


def test_the_sliced_similarity_product_ranks_like_one_product() -> None:
    rng = np.random.default_rng(7)
    rows = PARALLEL_ROWS * 2 + 123
    matrix = rng.standard_normal((rows, 16)).astype(np.float32)
    index = VectorIndex("test-model")
    index.load(np.arange(rows, dtype=np.int64), ["v"] * rows, matrix)
    query = rng.standard_normal(16).astype(np.float32)
    codes, scales = _quantised(matrix / np.linalg.norm(matrix, axis=1, keepdims=True))
    held = codes.astype(np.float32) * scales[:, None]  # what the index holds, in float32
    expected = np.argsort(-(held @ (query / np.linalg.norm(query))), kind="stable")[:20]
    assert [cid for cid, _ in index.top(query, limit=20)] == [int(i) for i in expected]


def test_vectors_are_held_as_int8_a_quarter_of_float32_with_cosines_kept() -> None:
    """The index keeps int8 codes and a scale per row; a cosine moves by at most half a
    code step per component (about 0.002 for 384 dimensions), and the top of a ranking is
    the float32 one wherever the float32 scores are further apart than that."""
    rng = np.random.default_rng(11)
    matrix = rng.standard_normal((5000, 384)).astype(np.float32)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    index = VectorIndex("test-model")
    index.load(np.arange(5000, dtype=np.int64), ["v"] * 5000, matrix)
    assert index.memory_bytes() == 5000 * (384 + 4)  # float32 would take 5000 * 1536
    query = unit[42] + 0.05 * rng.standard_normal(384).astype(np.float32)
    exact = unit @ (query / np.linalg.norm(query))
    held = dict(index.top(query, limit=5000))
    assert max(abs(held[i] - float(exact[i])) for i in range(5000)) < 0.003
    assert index.top(query, limit=1)[0][0] == int(np.argmax(exact)) == 42


def test_chunks_without_vectors_are_those_of_videos_not_embedded_or_dropped() -> None:
    index = VectorIndex("test-model")
    matrix = np.eye(4, dtype=np.float32)
    index.load(np.arange(4, dtype=np.int64), ["a", "a", "b", "b"], matrix)
    assert index.without_vectors([0, 3, 9]) == {9}
    index.drop_video("a")
    assert index.without_vectors([0, 1, 2, 9]) == {0, 1, 9}
    assert index.without_vectors([]) == set()


def test_until_write_recomputes_after_a_write_and_keeps_only_what_it_may(lib: Harness) -> None:
    calls: list[int] = []

    def compute() -> int:
        calls.append(lib.store.generation)
        return len(calls)

    kept = UntilWrite[int](lib.store)
    assert (kept.get(compute), kept.get(compute)) == (1, 1)
    lib.store.create_collection("Loaves")
    assert kept.get(compute) == 2
    refused = UntilWrite[int](lib.store)
    assert refused.get(compute, keep=lambda _: False) == 3
    assert refused.get(compute, keep=lambda _: False) == 4  # never kept: computed each time
