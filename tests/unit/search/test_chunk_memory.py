"""The in-memory chunk rows (issue 18): exactly the table's rows, and never a stale video's.

Hits are built from these rows, so any difference from what `SearchReads.chunk_rows` reads
would change a hit; they are compared with the table on real transcripts (many compressed
blocks, non-ASCII text, chapters and none). The fill runs on a thread while the engine
indexes, so what a fill read must never overwrite what the engine told the memory since.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tests.unit.search.test_engine_caches import Harness, record
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Transcript, Video, VideoRecord
from v2c_desktop.core.search.chunk_memory import BLOCK, ChunkMemory
from v2c_desktop.core.search.engine import SearchEngine
from v2c_desktop.core.search.request import SearchRequest
from v2c_desktop.core.store.search_reads import ChunkRow


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(tmp_path / "lib.duckdb")
    yield harness
    harness.close()


def corpus_record(entry: dict[str, str]) -> VideoRecord:
    path = corpus_path(entry["path"])
    segments = parse_captions(path.read_bytes(), source_name=path.name)
    native = entry["video_id"]
    return VideoRecord(
        Video(
            id=f"youtube:{native}",
            title=entry["title"],
            platform="youtube",
            native_id=native,
            url=f"https://www.youtube.com/watch?v={native}",
            duration=segments[-1].end,
        ),
        Transcript("creator-captions", "en", segments, producer="youtube"),
        [],
    )


def all_ids(lib: Harness) -> list[int]:
    rows = lib.store.reader().execute("SELECT id FROM chunks ORDER BY id").fetchall()
    return [int(r[0]) for r in rows]


@pytest.mark.corpus
def test_held_rows_are_the_tables_rows_on_real_transcripts(lib: Harness) -> None:
    index = json.loads(corpus_path("transcripts/INDEX.json").read_text(encoding="utf-8"))
    for entry in index[:4]:
        lib.save(corpus_record(entry))
    lib.save(record("aaaaaaaaaaa", "Café crème, naïve – ‘quoted’"))  # chapters, non-ASCII
    lib.runner.run(lib.engine.chunk_rows_held())
    ids = all_ids(lib)
    assert len(ids) > 4 * BLOCK  # many compressed blocks
    table = lib.engine.reads.chunk_rows(ids)
    held = lib.engine.chunks.rows(ids)
    assert held == table
    assert lib.engine.chunks.texts(ids) == {cid: row.text for cid, row in table.items()}
    places = lib.engine.chunks.rows(ids, texts=False)
    assert {cid: row.start for cid, row in places.items()} == {c: r.start for c, r in table.items()}
    assert all(row.text == "" for row in places.values())
    raw = sum(len(row.text.encode()) for row in table.values())
    assert lib.engine.chunks.memory_bytes() < raw  # compressed, arrays included


def test_a_fresh_memory_fills_from_the_table_and_holds_what_it_is_asked_only(
    lib: Harness,
) -> None:
    lib.save(record("aaaaaaaaaaa", "One"))
    lib.save(record("bbbbbbbbbbb", "Two"))
    memory = ChunkMemory()
    assert memory.rows(all_ids(lib)) == {}
    assert memory.fill(lib.engine.reads.each_video_chunks) == 2
    ids = all_ids(lib)
    assert memory.rows(ids) == lib.engine.reads.chunk_rows(ids)
    assert memory.rows([max(ids) + 1, -5]) == {}  # not held: absent, never invented


def test_a_video_the_engine_changes_during_a_fill_keeps_what_the_engine_said(
    lib: Harness,
) -> None:
    lib.save(record("aaaaaaaaaaa", "One"))
    lib.save(record("bbbbbbbbbbb", "Two"))
    lib.save(record("ccccccccccc", "Three"))
    stored = list(lib.engine.reads.each_video_chunks(lambda: True))
    memory = ChunkMemory()
    told = [ChunkRow(9001, "youtube:bbbbbbbbbbb", 0.0, 5.0, 0, 0, None, "newer text")]

    def streaming(keep_going: Callable[[], bool]) -> Iterator[tuple[str, list[ChunkRow]]]:
        for n, (video, rows) in enumerate(stored):
            if n == 1:  # the engine re-indexes b and drops c while the fill reads
                memory.replace_video("youtube:bbbbbbbbbbb", told)
                memory.drop_video("youtube:ccccccccccc")
            yield video, rows

    assert memory.fill(streaming) == 1  # only a: b and c were changed meanwhile
    assert memory.rows([9001]) == {9001: told[0]}
    old_b = [r.id for r in dict(stored)["youtube:bbbbbbbbbbb"]]
    old_c = [r.id for r in dict(stored)["youtube:ccccccccccc"]]
    assert memory.rows(old_b + old_c) == {}
    a_ids = [r.id for r in dict(stored)["youtube:aaaaaaaaaaa"]]
    assert set(memory.rows(a_ids)) == set(a_ids)


def test_a_stopped_fill_ends_between_whole_videos(lib: Harness) -> None:
    lib.save(record("aaaaaaaaaaa", "One", ["line"] * 400))
    lib.save(record("bbbbbbbbbbb", "Two", ["line"] * 400))
    memory = ChunkMemory()
    memory.stop()
    assert memory.fill(lib.engine.reads.each_video_chunks) == 0
    assert len(memory) == 0
    checks: list[int] = []

    def stop_after_one_query() -> bool:
        checks.append(1)
        return len(checks) < 2

    videos = list(lib.engine.reads.each_video_chunks(stop_after_one_query, videos_per_query=1))
    assert [video for video, _ in videos] == ["youtube:aaaaaaaaaaa"]  # then it stopped
    ids = [row.id for row in videos[0][1]]
    assert ids == sorted(ids) and len(ids) > BLOCK
    stored = lib.engine.reads.chunk_rows(all_ids(lib))
    assert ids == sorted(c for c, row in stored.items() if row.video_id == "youtube:aaaaaaaaaaa")


def test_forgotten_videos_are_not_held_and_a_dropped_video_leaves(lib: Harness) -> None:
    lib.save(record("aaaaaaaaaaa", "One"))
    lib.save(record("bbbbbbbbbbb", "Two"))
    lib.runner.run(lib.engine.chunk_rows_held())
    memory = lib.engine.chunks
    before = len(memory)
    memory.forget(["youtube:aaaaaaaaaaa"])
    assert 0 < len(memory) < before
    lib.store.delete_video("youtube:bbbbbbbbbbb")
    lib.search("memory")  # the engine notices the deletion and drops the video's index
    assert len(memory) == 0


def test_rows_stay_found_through_many_replacements_and_drops() -> None:
    """Videos re-indexed in any order get new, higher ids; the lookup must find every held
    row and none of a replaced or dropped version."""
    rng = random.Random(5)
    memory = ChunkMemory()
    next_id = 1
    held: dict[str, list[ChunkRow]] = {}
    for _ in range(300):
        video = f"file:v{rng.randrange(25)}"
        if rng.random() < 0.2:
            memory.drop_video(video)
            held.pop(video, None)
            continue
        n = rng.randrange(1, 3 * BLOCK)
        rows = [
            ChunkRow(
                next_id + i, video, i * 30.0, i * 30.0 + 35.0, i, i + 1, None, f"{video} {i} é"
            )
            for i in range(n)
        ]
        next_id += n
        memory.replace_video(video, rows)
        held[video] = rows
    expected = {row.id: row for rows in held.values() for row in rows}
    assert memory.rows(range(next_id)) == expected
    assert len(memory) == len(expected)


def test_closing_the_engine_ends_a_running_fill_before_its_reads_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library closed right after opening must not wait for, or break under, the fill."""
    lib = Harness(tmp_path / "lib.duckdb")
    lib.save(record("aaaaaaaaaaa", "One"))
    engine = SearchEngine(lib.store, None)  # a fresh engine: its fill starts on first use
    started, streamed = threading.Event(), []
    read = engine.reads.each_video_chunks

    def slow(keep_going: Callable[[], bool]) -> Iterator[tuple[str, list[ChunkRow]]]:
        for video, rows in read(lambda: True):
            started.set()
            while keep_going() and len(streamed) < 1000:  # a large library, slowly read
                streamed.append(1)
                time.sleep(0.01)
            yield video, rows

    monkeypatch.setattr(engine.reads, "each_video_chunks", slow)
    lib.runner.run(engine.search(SearchRequest(query="memory", mode="keyword")))
    assert started.wait(5)
    lib.runner.run(engine.aclose())  # stops the fill and joins it
    assert engine._chunk_fill is not None and not engine._chunk_fill.is_alive()
    assert len(streamed) < 1000  # it stopped when asked, not at the end
    lib.close()  # the store then closes without a busy cursor under it
