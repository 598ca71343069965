"""The DuckDB library: replace-on-reimport, deletes, collections, migrations, one owner."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO
from v2c_desktop.core.domain.videos import Chapter, Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.store import open_library
from v2c_desktop.core.store.migrations import MIGRATIONS


def make_record(native: str = "abcdefghijk", words: str = "hello there", n: int = 3) -> VideoRecord:
    segments = [Segment(i * 2.0, i * 2.0 + 1.5, f"{words} {i}") for i in range(n)]
    return VideoRecord(
        Video(
            id=f"youtube:{native}",
            title=f"Video {native}",
            platform="youtube",
            native_id=native,
            channel="Chan",
            url=f"https://www.youtube.com/watch?v={native}",
            duration=n * 2.0,
            published="2020-02-29",
        ),
        Transcript("creator-captions", "en", segments, producer="youtube"),
        [Chapter("Intro", 0.0, 2.0), Chapter("Rest", 2.0, n * 2.0)],
    )


@pytest.fixture
def library_file(tmp_path: Path) -> Path:
    return tmp_path / "lib.duckdb"


def test_save_and_load_round_trip(library_file: Path) -> None:
    with open_library(library_file) as store:
        assert store.save_video(make_record()) is True
        loaded = store.get_video("youtube:abcdefghijk")
    assert loaded.video.title == "Video abcdefghijk"
    assert loaded.video.published == "2020-02-29"
    assert [s.text for s in loaded.transcript.segments] == [
        "hello there 0",
        "hello there 1",
        "hello there 2",
    ]
    assert [c.title for c in loaded.chapters] == ["Intro", "Rest"]
    assert loaded.transcript.origin == "creator-captions"


def test_reimport_replaces_and_keeps_added_at(library_file: Path) -> None:
    with open_library(library_file) as store:
        store.save_video(make_record(n=5))
        first = store.get_video("youtube:abcdefghijk")
        assert store.save_video(make_record(words="new words", n=2)) is False
        again = store.get_video("youtube:abcdefghijk")
        assert [s.text for s in again.transcript.segments] == ["new words 0", "new words 1"]
        assert again.added_at == first.added_at
        assert len(store.list_videos()) == 1


def test_delete_removes_segments_chapters_and_memberships(library_file: Path) -> None:
    with open_library(library_file) as store:
        store.save_video(make_record("aaaaaaaaaaa"))
        store.save_video(make_record("bbbbbbbbbbb"))
        coll = store.create_collection("Talks")
        store.add_to_collection(coll.id, ["youtube:aaaaaaaaaaa", "youtube:bbbbbbbbbbb"])
        store.delete_video("youtube:aaaaaaaaaaa")
        assert store.get_collection(coll.id).video_ids == ["youtube:bbbbbbbbbbb"]
        conn = store._conn
        for table in ("segments", "chapters", "transcripts", "collection_videos"):
            column = "video_id"
            left = conn.execute(
                f"SELECT count(*) FROM {table} WHERE {column} = 'youtube:aaaaaaaaaaa'"
            ).fetchall()
            assert left == [(0,)], table
        with pytest.raises(V2CError) as err:
            store.get_video("youtube:aaaaaaaaaaa")
        assert err.value.code == "not-found"


def test_collections_create_rename_add_and_sources(library_file: Path) -> None:
    with open_library(library_file) as store:
        store.save_video(make_record())
        coll = store.create_collection("Neural Networks!", "deep learning talks")
        assert coll.id == "neural-networks"
        assert store.add_to_collection(
            coll.id, ["youtube:abcdefghijk"], ["https://example.org/list"]
        ) == ["youtube:abcdefghijk"]
        assert store.add_to_collection(coll.id, ["youtube:abcdefghijk"]) == []
        renamed = store.rename_collection(coll.id, "Nets")
        assert renamed.id == "neural-networks" and renamed.name == "Nets"
        assert store.get_collection("nets").sources == ["https://example.org/list"]
        with pytest.raises(V2CError) as err:
            store.create_collection("nets")
        assert err.value.code == "bad-request"
        with pytest.raises(V2CError) as err:
            store.add_to_collection(coll.id, ["youtube:missing0000"])
        assert err.value.code == "not-found"


def test_resolve_by_id_native_id_url_and_title(library_file: Path) -> None:
    with open_library(library_file) as store:
        store.save_video(make_record())
        for ref in (
            "youtube:abcdefghijk",
            "abcdefghijk",
            "https://youtu.be/abcdefghijk",
            "https://www.youtube.com/watch?v=abcdefghijk&t=10s",
            "video ABCDEFGHIJK",
        ):
            assert store.resolve_video(ref) == "youtube:abcdefghijk", ref
        with pytest.raises(V2CError) as err:
            store.resolve_video("nothing like it")
        assert err.value.code == "not-found" and "v2c list" in err.value.hint


def test_old_schema_library_is_migrated_and_keeps_its_videos(tmp_path: Path) -> None:
    old = tmp_path / "old.duckdb"
    shutil.copy(FIXTURES / "libraries" / "schema-0001.duckdb", old)
    with open_library(old) as store:
        assert store.schema_migrations() == [m.name for m in MIGRATIONS]
        record = store.get_video("youtube:spCOYV4KyPA")
        assert record.transcript.segments[0].text == "Can you hear me?"
        assert store.list_collections() == []
        store.create_collection("After upgrade")
    with open_library(old) as store:  # a second open applies nothing twice
        assert [c.name for c in store.list_collections()] == ["After upgrade"]


def test_newer_schema_is_refused(library_file: Path) -> None:
    with open_library(library_file) as store:
        store._conn.execute("INSERT INTO schema_migrations VALUES ('9999_future', now())")
    with pytest.raises(V2CError) as err:
        open_library(library_file)
    assert err.value.code == "bad-request" and "newer" in err.value.message


def test_not_a_library_file(tmp_path: Path) -> None:
    junk = tmp_path / "notes.duckdb"
    junk.write_text("this is a text file, not a database\n" * 100)
    with pytest.raises(V2CError) as err:
        open_library(junk)
    assert err.value.code == "bad-request"
    assert junk.read_text().startswith("this is a text file")  # nothing was overwritten


def test_second_process_gets_library_in_use_with_pid(library_file: Path) -> None:
    script = textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, {str(REPO)!r})
        from v2c_desktop.core.errors import V2CError
        from v2c_desktop.core.store import open_library
        try:
            open_library(__import__('pathlib').Path({str(library_file)!r}))
        except V2CError as e:
            print(json.dumps(e.to_dict()))
        """
    )
    with open_library(library_file) as store:
        store.save_video(make_record())
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
        )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    import json

    error = json.loads(out.stdout)
    assert error["error"] == "library-in-use"
    assert error["details"]["pid"] == __import__("os").getpid()
    assert str(__import__("os").getpid()) in error["message"]
    # once the owner closed, the next process takes over
    with open_library(library_file) as store:
        assert store.has_video("youtube:abcdefghijk")
