"""Gathering several videos over a real library: input rules, failures kept, collections filled.

Each test opens a real DuckDB library through `CoreAPI` and imports small subtitle files
written to the temp dir (no network: a URL would be refused by the guard). `Recorder` is a
real `BatchProgress` that keeps what it is told, as a face's progress would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.gather import (
    BatchProgress,
    InputResolver,
    absolute_input,
    fill_collection,
    gather_pack,
    gather_videos,
    import_source,
    importable,
    load_records,
)
from v2c_desktop.core.progress import Progress, ProgressCallback
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings

LINES = {
    "ferry": ["The ferry leaves the harbour at nine.", "Tickets cost twelve euros."],
    "tram": ["The tram runs every ten minutes.", "It stops at the old market."],
    "bike": ["Bikes can be rented by the station.", "A day costs eight euros."],
}


@dataclass
class Recorder:
    """Progress as a face would keep it: steps advanced, import events heard, drains."""

    total: int
    steps: list[tuple[float, int, str]] = field(default_factory=list)
    heard: list[tuple[int, Progress]] = field(default_factory=list)
    drains: int = 0

    def listener(self, base: int) -> ProgressCallback:
        return lambda event: self.heard.append((base, event))

    async def advance(self, done: float, message: str) -> None:
        self.steps.append((done, self.total, message))

    async def drain(self) -> None:
        self.drains += 1


def subtitle(folder: Path, name: str) -> Path:
    cues = [
        f"{i}\n00:00:0{2 * i - 2},000 --> 00:00:0{2 * i - 1},500\n{line}\n"
        for i, line in enumerate(LINES[name], start=1)
    ]
    path = folder / f"{name}.srt"
    path.write_text("\n".join(cues), encoding="utf-8")
    return path


@asynccontextmanager
async def library(tmp_path: Path, *names: str) -> AsyncIterator[tuple[CoreAPI, dict[str, str]]]:
    """A library holding the named subtitle files; their ids by name."""
    services = await asyncio.to_thread(
        Services.open, tmp_path / "lib.duckdb", settings=Settings(), index_on_import=False
    )
    api = CoreAPI(services)
    try:
        ids: dict[str, str] = {}
        for name in names:
            result = await api.add([str(subtitle(tmp_path, name))])
            ids[name] = next(o.video_id for o in result.outcomes if o.video_id)
        yield api, ids
    finally:
        await api.aclose()


def test_the_input_rules(tmp_path: Path) -> None:
    talk = subtitle(tmp_path, "ferry")
    assert absolute_input("ferry.srt", tmp_path) == str(talk.resolve())
    assert absolute_input("  missing.srt ", tmp_path) == "missing.srt"
    assert absolute_input("https://example.org/v/1", tmp_path) == "https://example.org/v/1"
    assert absolute_input("x" * 5000, tmp_path) == "x" * 5000  # too long to be a path
    assert import_source("aircAruvnKk") == "https://www.youtube.com/watch?v=aircAruvnKk"
    assert import_source(str(talk)) == str(talk)
    assert import_source("An exact title") is None
    assert importable("file:///anything") and not importable("youtube:aircAruvnKk")


def test_the_resolver_uses_what_it_holds_and_imports_what_is_new(tmp_path: Path) -> None:
    async def go() -> None:
        async with library(tmp_path, "ferry") as (api, ids):
            resolver = InputResolver(api, tmp_path, missing_hint="see `v2c list`")
            assert await resolver.video_id("ferry.srt") == ids["ferry"]  # relative to cwd
            assert await resolver.known("tram.srt") is None
            subtitle(tmp_path, "tram")
            tram = await resolver.video_id("tram.srt")
            assert tram != ids["ferry"] and len(await api.list_videos()) == 2
            with pytest.raises(V2CError) as missing:
                await resolver.video_id("no such video")
            assert missing.value.code == "not-found" and missing.value.hint == "see `v2c list`"
            with pytest.raises(V2CError) as empty:
                await resolver.video_id("  ")
            assert empty.value.code == "bad-request"

    asyncio.run(go())


def test_gathering_keeps_order_drops_repeats_and_reports_failures(tmp_path: Path) -> None:
    async def go() -> None:
        async with library(tmp_path, "ferry") as (api, ids):
            talks = await api.create_collection("Talks")
            await api.add_to_collection(talks.id, [ids["ferry"]])
            subtitle(tmp_path, "tram")
            progress = Recorder(total=3)
            gathered = await gather_videos(
                InputResolver(api, tmp_path),
                ["tram.srt", "nope", str(tmp_path / "ferry.srt")],
                talks.id,
                progress,
            )
            tram = await api.resolve(str(tmp_path / "tram.srt"))
            assert gathered.video_ids == [ids["ferry"], tram]
            assert [(f.input, f.error.code) for f in gathered.failures] == [("nope", "not-found")]
            assert [(done, message) for done, _, message in progress.steps] == [
                (1, "read tram.srt"),
                (2, "read nope"),
                (3, f"read {tmp_path / 'ferry.srt'}"),
            ]
            assert {base for base, _ in progress.heard} <= {0}  # only the import of input 0
            failure = gathered.failures[0].to_dict("agent")
            assert failure["input"] == "nope" and failure["code"] == "not-found"
            assert failure["hint"]

    asyncio.run(go())


def test_loading_counts_on_and_keeps_going_past_a_missing_video(tmp_path: Path) -> None:
    async def go() -> None:
        async with library(tmp_path, "ferry", "tram") as (api, ids):
            progress = Recorder(total=8)
            wanted = [ids["ferry"], "file:0000000000000000", ids["tram"]]
            loaded = await load_records(api, wanted, progress, done=5)
            assert [r.video.id for r in loaded.records] == [ids["ferry"], ids["tram"]]
            assert [(f.input, f.error.code) for f in loaded.failures] == [
                ("file:0000000000000000", "not-found")
            ]
            assert [done for done, _, _ in progress.steps] == [6, 7, 8]

    asyncio.run(go())


def test_filling_a_collection_reports_every_input(tmp_path: Path) -> None:
    async def go() -> None:
        async with library(tmp_path, "ferry") as (api, ids):
            talks = await api.create_collection("Talks")
            await api.add_to_collection(talks.id, [ids["ferry"]])
            talks = await api.get_collection(talks.id)
            subtitle(tmp_path, "bike")
            progress = Recorder(total=4)
            inputs = [ids["ferry"], "bike.srt", "/no/such/file.srt", "not a thing"]
            before = datetime.now(UTC)
            summary = await fill_collection(InputResolver(api, tmp_path), talks, inputs, progress)
            bike = await api.resolve(str(tmp_path / "bike.srt"))
            assert [(a.id, a.summary and a.summary.title) for a in summary.added] == [
                (bike, "Bike")
            ]
            assert [(s.input, s.video_id, s.reason) for s in summary.skipped] == [
                (ids["ferry"], ids["ferry"], "already in the collection")
            ]
            assert [(f.input, f.error.code) for f in summary.failed] == [
                ("/no/such/file.srt", "not-found"),
                ("not a thing", "not-found"),
            ]
            assert [done for done, _, _ in progress.steps] == [1, 2, 3, 4]
            assert progress.drains == 1
            assert before - timedelta(seconds=1) <= summary.checked_at <= datetime.now(UTC)
            assert set((await api.get_collection(talks.id)).video_ids) == {ids["ferry"], bike}

    asyncio.run(go())


def test_a_pack_holds_what_fits_the_limit_and_names_the_rest(tmp_path: Path) -> None:
    async def go() -> None:
        async with library(tmp_path, "ferry", "tram") as (api, ids):
            talks = await api.create_collection("City transport")
            await api.add_to_collection(talks.id, [ids["ferry"], ids["tram"]])
            subtitle(tmp_path, "bike")
            progress = Recorder(total=2)
            resolver = InputResolver(api, tmp_path)
            pack = await gather_pack(
                resolver, ["bike.srt", "nope"], talks.id, limit=2, face="agent", progress=progress
            )
            bike = await api.resolve(str(tmp_path / "bike.srt"))
            assert pack.title == "City transport"
            assert [r.video.id for r in pack.records] == [ids["ferry"], ids["tram"]]
            assert [(o.input, o.code) for o in pack.omitted] == [
                ("nope", "not-found"),
                (bike, "limit"),
            ]
            assert pack.omitted[1].line() == (
                f"- {bike}: limit: over the limit of 2 videos (raise limit)"
            )
            assert [(done, total) for done, total, _ in progress.steps] == [
                (1, 2),
                (2, 2),
                (3, 4),
                (4, 4),
            ]
            assert progress.drains == 1
            alone = await gather_pack(resolver, ["bike.srt"], None, limit=5)
            assert alone.title == "1 videos" and alone.omitted == []

    asyncio.run(go())


def test_the_recorder_is_a_batch_progress() -> None:
    progress: BatchProgress = Recorder(total=1)  # what mypy checks; a face's class is one too
    assert progress.total == 1
