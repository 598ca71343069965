"""Titles of local imports: info.json, else a metadata file beside the subtitle, else the name.

The metadata file is untrusted input: only plain, well-shaped fields are taken from it. Ids
never depend on the title, so a re-import replaces the video instead of adding a second one.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.conftest import CORPUS, FIXTURES, corpus_path
from v2c_desktop.core.domain.imports import BatchResult
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.ids import file_video_id
from v2c_desktop.core.importers.local import (
    folder_metadata,
    item_for_file,
    read_local,
    readable_name,
)
from v2c_desktop.core.library import Library
from v2c_desktop.core.store import open_library

TINY = FIXTURES / "captions" / "folder-meta" / "2023_tiny-talk"
TINY_META = json.loads((TINY / "meta.json").read_text(encoding="utf-8"))
T = TypeVar("T")


def with_library(tmp_path: Path, work: Callable[[Library], Awaitable[T]]) -> T:
    async def go() -> T:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            return await work(library)
        finally:
            await library.aclose()
            store.close()

    return asyncio.run(go())


def import_one(tmp_path: Path, source: Path) -> tuple[BatchResult, VideoRecord]:
    async def work(library: Library) -> tuple[BatchResult, VideoRecord]:
        result = await library.add([str(source)])
        (vid,) = result.changed_ids
        return result, await library.get_video(vid)

    return with_library(tmp_path, work)


def tiny_copy(tmp_path: Path, meta: Any = None, name: str = "2023_tiny-talk") -> Path:
    """The tiny fixture folder copied, with `meta` as its meta.json (None: no meta.json)."""
    folder = tmp_path / "videos" / name
    folder.mkdir(parents=True)
    shutil.copy(TINY / "captions.en.srt", folder / "captions.en.srt")
    if isinstance(meta, bytes):
        (folder / "meta.json").write_bytes(meta)
    elif meta is not None:
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def test_the_metadata_file_gives_title_url_and_duration(tmp_path: Path) -> None:
    result, record = import_one(tmp_path, TINY)
    assert result.outcomes[0].title == "A Tiny Talk | Subtitles, Explained"
    assert record.video.title == "A Tiny Talk | Subtitles, Explained"
    assert record.video.url == "https://youtu.be/aaaaaaaaaaa"
    assert record.video.duration == 12.5
    # the id is still the subtitle file's hash: re-imports replace, whatever the title
    assert record.video.id == file_video_id(TINY / "captions.en.srt")
    assert record.video.platform == "file"
    assert result.outcomes[0].warnings == []


def test_the_same_file_named_directly_gets_the_same_video(tmp_path: Path) -> None:
    async def work(library: Library) -> tuple[list[str], int]:
        first = await library.add([str(TINY)])
        again = await library.add([str(TINY / "captions.en.srt")], refresh=True)
        statuses = [o.status for o in first.outcomes + again.outcomes]
        return statuses, len(await library.list_videos())

    statuses, count = with_library(tmp_path, work)
    assert statuses == ["added", "updated"]
    assert count == 1


def test_a_new_title_replaces_the_old_one_on_refresh(tmp_path: Path) -> None:
    folder = tiny_copy(tmp_path, TINY_META)

    async def work(library: Library) -> tuple[str, list[tuple[str, str]]]:
        first = await library.add([str(folder)])
        (folder / "meta.json").write_text(json.dumps({"title": "Renamed"}), encoding="utf-8")
        await library.add([str(folder)], refresh=True)
        videos = await library.list_videos()
        return first.changed_ids[0], [(v.id, v.title) for v in videos]

    vid, videos = with_library(tmp_path, work)
    assert videos == [(vid, "Renamed")]


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("2024_attention", "Attention (2024)"),
        ("2017_backpropagation-calculus", "Backpropagation calculus (2017)"),
        ("2023_tiny-talk", "Tiny talk (2023)"),
        ("my_talk", "My talk"),
        ("Interview with Bob", "Interview with Bob"),
        ("PyCon_Keynote", "PyCon Keynote"),
        ("lecture-01", "Lecture 01"),
        ("2024", "2024"),
    ],
)
def test_readable_names(name: str, title: str) -> None:
    assert readable_name(name) == title


def test_a_generic_file_name_uses_the_folder_name(tmp_path: Path) -> None:
    _, record = import_one(tmp_path, tiny_copy(tmp_path))
    assert record.video.title == "Tiny talk (2023)"
    assert record.video.url == ""
    assert record.video.duration == 9.9  # the end of the last caption


def test_a_named_file_uses_its_own_name(tmp_path: Path) -> None:
    folder = tmp_path / "talks"
    folder.mkdir()
    shutil.copy(TINY / "captions.en.srt", folder / "subtitle_basics.en.srt")
    _, record = import_one(tmp_path, folder / "subtitle_basics.en.srt")
    assert record.video.title == "Subtitle basics"


def test_the_info_json_wins_over_the_metadata_file(tmp_path: Path) -> None:
    folder = tiny_copy(tmp_path, TINY_META)
    info = {"id": "bbbbbbbbbbb", "title": "From yt-dlp", "extractor": "youtube"}
    (folder / "captions.info.json").write_text(json.dumps(info), encoding="utf-8")
    _, record = import_one(tmp_path, folder)
    assert (record.video.id, record.video.title) == ("youtube:bbbbbbbbbbb", "From yt-dlp")


def test_a_metadata_file_shared_by_several_videos_is_not_used(tmp_path: Path) -> None:
    folder = tiny_copy(tmp_path, TINY_META)
    shutil.copy(TINY / "captions.en.srt", folder / "second_talk.srt")
    (folder / "second_talk.srt").write_text(
        (folder / "second_talk.srt").read_text(encoding="utf-8") + "\n", encoding="utf-8"
    )

    async def work(library: Library) -> list[str]:
        result = await library.add([str(folder)])
        return sorted(o.title for o in result.outcomes)

    assert with_library(tmp_path, work) == ["Second talk", "Tiny talk (2023)"]


def test_metadata_json_is_read_too(tmp_path: Path) -> None:
    folder = tiny_copy(tmp_path)
    (folder / "metadata.json").write_text(json.dumps({"title": "Other name"}), encoding="utf-8")
    assert read_local(item_for_file(folder / "captions.en.srt")).record.video.title == "Other name"


FALLBACK = "Tiny talk (2023)"
CAPTIONS_END = 9.9


@pytest.mark.parametrize(
    ("meta", "title", "url", "duration"),
    [
        ({"title": "Ok", "url": "javascript:alert(1)"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": "file:///etc/passwd"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": "https://user:pw@evil.example/x"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": "https://exa mple.com/"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": "https://example.com/\u0000x"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": "ftp://example.com/talk"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": "https:///no-host"}, "Ok", "", CAPTIONS_END),
        ({"title": "Ok", "url": ["https://example.com"]}, "Ok", "", CAPTIONS_END),
        ({"url": "http://example.com/talk?id=1"}, FALLBACK, "http://example.com/talk?id=1", 9.9),
        (
            {"url": "https://youtu.be/bbbbbbbbbbb", "video_id": "aaaaaaaaaaa"},  # disagree
            FALLBACK,
            "",
            CAPTIONS_END,
        ),
        ({"title": "\u202eevil\u202c\nname\ttab  end"}, "evil name tab end", "", CAPTIONS_END),
        ({"title": "x" * 1000}, "x" * 300, "", CAPTIONS_END),
        ({"title": 42}, FALLBACK, "", CAPTIONS_END),
        ({"title": " \n "}, FALLBACK, "", CAPTIONS_END),
        ({"title": {"en": "nested"}}, FALLBACK, "", CAPTIONS_END),
        ({"duration_s": True}, FALLBACK, "", CAPTIONS_END),
        ({"duration_s": -5}, FALLBACK, "", CAPTIONS_END),
        ({"duration_s": "100"}, FALLBACK, "", CAPTIONS_END),
        ({"duration_s": 1e400}, FALLBACK, "", CAPTIONS_END),
        ({"duration_s": 5}, FALLBACK, "", CAPTIONS_END),  # shorter than the captions
        ({"duration_s": 3600}, FALLBACK, "", 3600.0),
    ],
)
def test_untrusted_metadata_fields_are_taken_only_when_plain(
    tmp_path: Path, meta: dict[str, Any], title: str, url: str, duration: float
) -> None:
    folder = tiny_copy(tmp_path, meta)
    read = read_local(item_for_file(folder / "captions.en.srt"))
    assert (read.record.video.title, read.record.video.url) == (title, url)
    assert read.record.video.duration == duration
    assert read.warnings == []


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"{not json", "not readable JSON"),
        (b"\xff\xfe\x00garbage", "not readable JSON"),
        (b'["a list"]', "not a JSON object"),
        (b'{"title": "big", "pad": "' + b"x" * 300_000 + b'"}', "larger than 256 KB"),
        (b"[" * 50_000 + b"]" * 50_000, "not readable JSON"),  # nested too deep to read
    ],
)
def test_a_broken_metadata_file_is_reported_and_ignored(
    tmp_path: Path, content: bytes, why: str
) -> None:
    folder = tiny_copy(tmp_path, content)
    read = read_local(item_for_file(folder / "captions.en.srt"))
    assert read.record.video.title == FALLBACK
    (warning,) = read.warnings
    assert warning.startswith("meta.json was ignored") and why in warning
    assert folder_metadata(item_for_file(folder / "captions.en.srt")).title == ""


@pytest.mark.corpus
def test_3blue1brown_folder_gets_its_real_title(tmp_path: Path) -> None:
    folder = corpus_path("transcripts/3blue1brown/2024_attention")
    result, record = import_one(tmp_path, folder)
    assert (
        record.video.title
        == "Visualizing Attention, a Transformer's Heart | Chapter 6, Deep Learning"
    )
    assert record.video.url == "https://youtu.be/eMlx5fFNoYc"
    assert record.video.duration == 1569.2
    assert record.video.id == file_video_id(folder / "captions.en.srt")
    assert [o.status for o in result.outcomes] == ["added"]  # meta.json and timings: no lines


@pytest.mark.corpus
def test_every_3blue1brown_folder_is_titled_from_its_meta_json(tmp_path: Path) -> None:
    root = corpus_path("transcripts/3blue1brown")

    async def work(library: Library) -> dict[str, str]:
        result = await library.add([str(root)])
        assert result.count("failed") == 0, result.to_dict()
        return {Path(o.source).parent.name: o.title for o in result.outcomes}

    titles = with_library(tmp_path, work)
    folders = sorted(p for p in root.iterdir() if (p / "meta.json").exists())
    assert len(folders) == len(titles) >= 15
    for folder in folders:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        assert titles[folder.name] == " ".join(meta["title"].split()), folder.name
    assert CORPUS in root.parents
