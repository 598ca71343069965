"""Importing the real corpus end to end: every INDEX.json item, the yt-dlp archive folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS, corpus_path
from v2c_desktop.core.library import Library
from v2c_desktop.core.render import outline
from v2c_desktop.core.store import open_library

pytestmark = pytest.mark.corpus


def index_items() -> list[dict[str, object]]:
    index = CORPUS / "transcripts" / "INDEX.json"
    if not index.exists():
        return []
    return list(json.loads(index.read_text(encoding="utf-8")))


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


@pytest.mark.parametrize("item", index_items(), ids=lambda i: str(i["path"]).split("/")[-1][:50])
def test_every_index_item_imports_with_its_duration(
    item: dict[str, object], tmp_path: Path
) -> None:
    path = corpus_path(str(item["path"]))

    async def go() -> tuple[str, float, int, str]:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            result = await library.add([str(path)])
            assert result.count("failed") == 0, result.to_dict()
            (vid,) = result.changed_ids
            record = await library.get_video(vid)
            return vid, record.duration, len(record.transcript.segments), record.video.title
        finally:
            await library.aclose()
            store.close()

    vid, duration, segments, title = run(go())
    expected = float(item["duration_s"])  # type: ignore[arg-type]
    assert abs(duration - expected) <= 0.03 * expected, (duration, expected)
    assert segments > 20
    assert title
    if "crashcourse" in str(item["path"]):
        assert vid == f"youtube:{item['video_id']}"  # the info.json sidecar gave the real id
    else:
        assert vid.startswith("file:")


def test_ytdlp_archive_folder_imports_with_real_metadata_and_chapters(tmp_path: Path) -> None:
    folder = corpus_path("transcripts/crashcourse-psychology")

    async def go() -> None:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            result = await library.add([str(folder)], collection="Crash Course Psychology")
            assert result.count("added") == 10, result.to_dict()
            assert result.count("failed") == 0
            homunculus = await library.get_video("youtube:fxZWtc0mYpQ")
            assert homunculus.video.title == "Homunculus: Crash Course Psychology #6"
            assert homunculus.video.channel == "CrashCourse"
            assert homunculus.video.published == "2014-03-10"
            assert homunculus.video.duration == 623
            assert homunculus.video.url == "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
            assert [c.title for c in homunculus.chapters][:3] == [
                "Introduction: HOMUNCULUS",
                "Sensation vs. Perception",
                "Sound Waves",
            ]
            assert homunculus.chapters[-1].end == 623
            assert homunculus.transcript.language == "en"
            assert outline(homunculus).kind == "chapters"
            collection = await library.get_collection("crash-course-psychology")
            assert len(collection.video_ids) == 10
            assert collection.sources == [str(folder)]
            # importing the same folder again changes nothing and says so
            again = await library.add([str(folder)])
            assert again.count("skipped") == 10
            # --refresh replaces in place: same ids, same count
            refreshed = await library.add([str(folder)], refresh=True)
            assert refreshed.count("updated") == 10
            assert len(await library.list_videos()) == 10
        finally:
            await library.aclose()
            store.close()

    run(go())


def test_one_bad_input_never_stops_the_batch(tmp_path: Path) -> None:
    good = corpus_path("transcripts/3blue1brown/2017_bitcoin/captions.en.srt")
    garbage = tmp_path / "broken.srt"
    garbage.write_text("1\n00:00:01,000 --> nonsense\nhello\n")
    binary = tmp_path / "photo.vtt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    missing = tmp_path / "nowhere.srt"
    video_only = tmp_path / "holiday.mp4"
    video_only.write_bytes(b"\x00\x00\x00\x18ftypmp42")

    async def go() -> dict[str, object]:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            result = await library.add(
                [str(garbage), str(binary), str(missing), "not a url", str(video_only), str(good)]
            )
            return result.to_dict()
        finally:
            await library.aclose()
            store.close()

    out = run(go())
    assert out["added"] == 1 and out["failed"] == 5, out
    items = {str(i["source"]).split("/")[-1]: i for i in out["items"]}  # type: ignore[union-attr]
    assert items["broken.srt"]["error"]["error"] == "bad-request"
    assert "line 1" in items["broken.srt"]["error"]["message"]
    assert items["photo.vtt"]["error"]["error"] == "unsupported-input"
    assert items["not a url"]["error"]["error"] == "unsupported-input"
    assert items["nowhere.srt"]["error"]["error"] == "unsupported-input"
    assert items["holiday.mp4"]["error"]["error"] == "no-transcript"
    assert "holiday.srt" in items["holiday.mp4"]["error"]["hint"]
    assert items["captions.en.srt"]["status"] == "added"
