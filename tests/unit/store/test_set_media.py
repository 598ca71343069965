"""A video imported from its subtitle file alone can be pointed at its media file later:
the path is checked, saved, published, kept after a restart and after a re-import."""

from __future__ import annotations

import asyncio
import wave
from pathlib import Path

import pytest

from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.changes import Change
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings

CUES = "1\n00:00:05,000 --> 00:00:09,000\nChlorophyll absorbs red and blue light.\n"


def subtitles_and_media(folder: Path) -> tuple[Path, Path]:
    """`talk.en.srt` alone in `subs/`, and a WAV in another folder."""
    (folder / "subs").mkdir(parents=True)
    (folder / "media").mkdir()
    srt = folder / "subs" / "talk.en.srt"
    srt.write_text(CUES, encoding="utf-8")
    media = folder / "media" / "recording.wav"
    with wave.open(str(media), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(4000)
        out.writeframes(b"\x80" * 4000)
    return srt, media


async def open_api(path: Path) -> CoreAPI:
    services = await asyncio.to_thread(
        Services.open, path, settings=Settings(), index_on_import=False
    )
    return CoreAPI(services)


def test_a_located_media_file_is_kept_after_a_restart_and_a_reimport(tmp_path: Path) -> None:
    srt, media = subtitles_and_media(tmp_path)
    library = tmp_path / "lib.duckdb"

    async def go() -> tuple[str, list[Change], str, str]:
        api = await open_api(library)
        seen: list[Change] = []

        async def listen() -> None:
            async for change in api.changes():
                seen.append(change)

        listener = asyncio.create_task(listen())
        try:
            await asyncio.sleep(0)
            (video_id,) = (await api.add([str(srt)])).changed_ids
            assert (await api.get_video(video_id)).video.source_path == str(srt.resolve())
            record = await api.set_media(video_id, str(media))
            assert record.video.source_path == str(media.resolve())
            async with asyncio.timeout(10):
                while Change("video", "updated", (video_id,)) not in seen:
                    await asyncio.sleep(0.01)
        finally:
            listener.cancel()
            await api.aclose()
        api = await open_api(library)  # a restart
        try:
            after_restart = (await api.get_video(video_id)).video.source_path
            again = await api.add([str(srt)], refresh=True)
            assert again.outcomes[0].status == "updated"
            after_reimport = (await api.get_video(video_id)).video.source_path
        finally:
            await api.aclose()
        return video_id, seen, after_restart, after_reimport

    video_id, seen, after_restart, after_reimport = run(go(), timeout=60)
    assert video_id.startswith("file:")
    assert Change("video", "updated", (video_id,)) in seen
    assert after_restart == after_reimport == str(media.resolve())


@pytest.mark.parametrize(
    ("name", "code"),
    [("talk.en.srt", "bad-request"), ("notes.txt", "bad-request"), ("gone.mp4", "not-found")],
)
def test_only_an_existing_media_file_is_accepted(tmp_path: Path, name: str, code: str) -> None:
    srt, _media = subtitles_and_media(tmp_path)
    target = srt if name == srt.name else tmp_path / name
    if name == "notes.txt":
        target.write_text("not media", encoding="utf-8")

    async def go() -> tuple[V2CError, str]:
        api = await open_api(tmp_path / "lib.duckdb")
        try:
            (video_id,) = (await api.add([str(srt)])).changed_ids
            with pytest.raises(V2CError) as refused:
                await api.set_media(video_id, str(target))
            return refused.value, (await api.get_video(video_id)).video.source_path
        finally:
            await api.aclose()

    error, source = run(go(), timeout=60)
    assert error.code == code and error.hint
    assert source == str(srt.resolve())  # nothing changed


def test_an_unknown_video_is_not_found(tmp_path: Path) -> None:
    _srt, media = subtitles_and_media(tmp_path)

    async def go() -> V2CError:
        api = await open_api(tmp_path / "lib.duckdb")
        try:
            with pytest.raises(V2CError) as refused:
                await api.set_media("file:0000000000000000", str(media))
            return refused.value
        finally:
            await api.aclose()

    assert run(go(), timeout=60).code == "not-found"
