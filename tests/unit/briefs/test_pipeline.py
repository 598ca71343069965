"""The brief pipeline on a real library with a scripted model: map, verify, reduce, classify,
templates, your schema, partial failure, cancel, re-run with cached maps, saved briefs."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_path
from tests.unit.briefs.scripted import BriefWriter
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import Brief, BriefDone, BriefRequest, BriefStep
from v2c_desktop.core.briefs.render import markdown
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.chain import ModelChoice, order_chain
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.models.types import ChatModel
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import ModelSettings, Settings

pytestmark = pytest.mark.corpus

CRASH = "transcripts/crashcourse-psychology"
MAKE = "how_we_make_memories_crash_course_psychology_13"
FORGET = "remembering_and_forgetting_crash_course_psychology_14"
QUESTION = "How are memories made and lost?"


class Models(ModelRegistry):
    """The real registry with a fixed list of chat models."""

    def __init__(self, models: Sequence[ChatModel]) -> None:
        super().__init__(ModelSettings(), ModelManager.default())
        self._models = list(models)

    def chat_models(self) -> list[ChatModel]:
        return list(self._models)

    def default_choice(self) -> ModelChoice:
        return ModelChoice()

    def chain(self, choice: ModelChoice | None = None) -> list[ChatModel]:
        return order_chain(self._models, choice or self.default_choice())


def folder(tmp_path: Path, *names: str, twin: bool = False) -> Path:
    """Corpus videos (srt + info.json) in a folder; `twin`: a near-copy of the first."""
    target = tmp_path / "videos"
    target.mkdir(exist_ok=True)
    for name in names:
        for suffix in (".en.srt", ".info.json"):
            shutil.copy(corpus_path(f"{CRASH}/{name}{suffix}"), target / f"{name}{suffix}")
    if twin:
        text = corpus_path(f"{CRASH}/{names[0]}.en.srt").read_text(encoding="utf-8")
        (target / "reupload.en.srt").write_text(text + "\n", encoding="utf-8")
    return target


async def open_core(tmp_path: Path, model: ChatModel | None) -> CoreAPI:
    registry = Models([model]) if model is not None else Models([])
    services = await asyncio.to_thread(
        Services.open, tmp_path / "lib.duckdb", settings=Settings(), registry=registry
    )
    return CoreAPI(services)


async def build(api: CoreAPI, request: BriefRequest) -> tuple[list[BriefStep], Brief]:
    steps: list[BriefStep] = []
    brief: Brief | None = None
    async for event in api.build_brief(request):
        if isinstance(event, BriefStep):
            steps.append(event)
        elif isinstance(event, BriefDone):
            brief = event.brief
    assert brief is not None
    return steps, brief


def test_map_reduce_verifies_classifies_counts_copies_once_and_saves(tmp_path: Path) -> None:
    async def go() -> tuple[list[BriefStep], Brief, list[Any], Brief]:
        api = await open_core(tmp_path, BriefWriter(context_window=4096))
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET, twin=True))], collection="Memory")
            steps, brief = await build(api, BriefRequest(QUESTION, collection="Memory"))
            return steps, brief, await api.list_briefs(), await api.get_brief(brief.id)
        finally:
            await api.aclose()

    steps, brief, saved, reread = run(go(), timeout=120)
    stages = [s.stage for s in steps]
    assert stages[0] == "scope" and "map" in stages and "reduce" in stages
    assert stages[-1] == "render"
    assert brief.pass_kind == "map-reduce" and brief.model == "scripted/brief-writer"
    # the re-upload is one source with its copy listed, never a second voice
    read = [c for c in brief.coverage if c.status == "read"]
    assert len(read) == 2 and sum(len(c.copies) for c in read) == 1
    assert [c.status for c in brief.coverage].count("duplicate") == 1
    points = brief.points
    kinds = {p.text: p.kind for p in points}
    assert kinds["Both videos describe how memory works."] == "consensus"
    assert kinds["Memories are reliable."] == "disagreement"
    disagreement = next(p for p in points if p.kind == "disagreement")
    assert disagreement.support and disagreement.oppose and disagreement.counter
    assert any(p.kind == "single-source" for p in points)  # unused verified claims stay
    assert {p.support[0].video_id for p in points if p.kind == "consensus"}
    reasons = {u.reason for u in brief.unverified}
    assert {"quote-not-found", "quote-at-other-time"} <= reasons
    elsewhere = next(u for u in brief.unverified if u.reason == "quote-at-other-time")
    assert elsewhere.found_at is not None
    for point in points:  # every citation shown opens its video at the snapped second
        for c in [*point.support, *point.oppose]:
            assert c.url.startswith("https://www.youtube.com/watch?v=") and "&t=" in c.url
    assert brief.status == "complete"
    assert [t.stage for t in brief.timings] == ["retrieve", "map", "verify", "reduce", "render"]
    assert [b.id for b in saved] == [brief.id] and reread == brief
    text = markdown(brief)
    assert text.startswith("# Memory, briefly") and "## Bottom line" in text
    assert "*(consensus)*" in text and "*(disagreement)*" in text
    assert "## Claims left out" in text and "quote-not-found" in text


def test_a_rerun_after_adding_a_video_maps_only_that_video(tmp_path: Path) -> None:
    async def go() -> tuple[Brief, Brief, list[str]]:
        writer = BriefWriter(context_window=4096)
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            _, first = await build(api, BriefRequest(QUESTION, collection="Memory"))
            maps_first = writer.calls.count("map")
            await api.add([str(folder(tmp_path, FORGET))], collection="Memory")
            writer.calls.clear()
            _, again = await build(api, BriefRequest("", rerun=first.id))
            return first, again, [*["first"] * maps_first, *writer.calls]
        finally:
            await api.aclose()

    first, again, calls = run(go(), timeout=120)
    assert again.id == first.id and again.question == QUESTION
    assert again.reused_maps == calls.count("first")  # the first video's maps came back
    assert 0 < calls.count("map") < calls.count("first") + calls.count("map")
    assert len([c for c in again.coverage if c.status == "read"]) == 2


def test_one_pass_when_everything_fits_and_an_uncited_point_never_shows(tmp_path: Path) -> None:
    async def go() -> Brief:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))])
            ids = tuple(v.id for v in await api.list_videos())
            _, brief = await build(api, BriefRequest(QUESTION, video_ids=ids))
            return brief
        finally:
            await api.aclose()

    brief = run(go(), timeout=120)
    assert brief.pass_kind == "single"
    texts = [p.text for p in brief.points]
    assert "Both videos describe memory." in texts
    assert "A point with a made-up quote." not in texts
    assert any(u.reason == "quote-not-found" for u in brief.unverified)


def test_a_video_that_cannot_be_read_makes_an_honest_partial_brief(tmp_path: Path) -> None:
    async def go() -> Brief:
        writer = BriefWriter(context_window=4096, fail_on_title="Remembering and Forgetting")
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            _, brief = await build(api, BriefRequest(QUESTION, collection="Memory"))
            return brief
        finally:
            await api.aclose()

    brief = run(go(), timeout=120)
    assert brief.status == "partial"
    assert any("Remembering and Forgetting" in note for note in brief.notes)
    missing = [c for c in brief.coverage if c.status == "not-read"]
    assert len(missing) == 1 and missing[0].reason
    assert brief.points  # what was read still makes the brief
    assert "## Notes" in markdown(brief) and "not read" in markdown(brief)


def test_cancelling_a_build_saves_nothing(tmp_path: Path) -> None:
    async def go() -> list[Any]:
        gate = asyncio.Event()
        api = await open_core(tmp_path, BriefWriter(context_window=4096, wait_for=gate))
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            seen: list[BriefStep] = []

            async def consume() -> None:
                async for event in api.build_brief(BriefRequest(QUESTION, collection="Memory")):
                    if isinstance(event, BriefStep):
                        seen.append(event)

            task = asyncio.create_task(consume())
            async with asyncio.timeout(30):
                while not any(s.stage == "map" for s in seen):
                    await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return await api.list_briefs()
        finally:
            await api.aclose()

    assert run(go(), timeout=60) == []


def test_a_template_keeps_only_items_whose_evidence_holds(tmp_path: Path) -> None:
    async def go() -> Brief:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            await api.add([str(folder(tmp_path, MAKE))])
            ids = tuple(v.id for v in await api.list_videos())
            _, brief = await build(
                api, BriefRequest(QUESTION, video_ids=ids, template="comparison")
            )
            return brief
        finally:
            await api.aclose()

    brief = run(go(), timeout=120)
    assert brief.template == "comparison" and brief.data is not None
    cells = brief.data["options"][0]["cells"]
    assert [c["value"] for c in cells] == ["encoding"]  # the made-up cell is gone
    assert "/options/0/cells/0" in brief.data_citations and "/verdict" in brief.data_citations
    assert brief.status == "partial"  # an item was removed: said, not hidden
    assert any("left out" in x for x in brief.limitations)
    assert "sources" not in repr(brief.data)


def test_your_schema_is_checked_first_and_uncited_values_are_named(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "topic": {"type": "string"},
            "facts": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["topic", "facts"],
    }

    async def go() -> tuple[Brief, V2CError]:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            await api.add([str(folder(tmp_path, MAKE))])
            ids = tuple(v.id for v in await api.list_videos())
            _, brief = await build(api, BriefRequest(QUESTION, video_ids=ids, schema=schema))
            bad = {"type": "object", "properties": {"x": {"anyOf": [{"type": "string"}]}}}
            with pytest.raises(V2CError) as caught:
                await build(api, BriefRequest(QUESTION, video_ids=ids, schema=bad))
            return brief, caught.value
        finally:
            await api.aclose()

    brief, refused = run(go(), timeout=120)
    assert brief.template == "schema" and brief.data == {
        "topic": "memory",
        "facts": ["encoding matters", "unsupported fact"],
    }
    assert list(brief.data_citations) == ["/facts/0"]
    assert brief.uncited == ["/topic", "/facts/1"]
    assert refused.code == "bad-request" and "'anyOf'" in refused.message
    assert "#/properties/x/anyOf" in refused.message


def test_without_a_capable_model_the_brief_is_extractive_and_says_so(tmp_path: Path) -> None:
    async def go() -> tuple[Brief, V2CError]:
        api = await open_core(tmp_path, None)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            await api.index_pending()
            _, brief = await build(api, BriefRequest(QUESTION, collection="Memory"))
            with pytest.raises(V2CError) as caught:
                await build(
                    api, BriefRequest(QUESTION, collection="Memory", schema={"type": "object"})
                )
            return brief, caught.value
        finally:
            await api.aclose()

    brief, refused = run(go(), timeout=180)
    assert brief.extractive and brief.pass_kind == "extractive" and brief.model is None
    assert brief.bottom_line.startswith("No chat model wrote this")
    assert brief.points and all(p.support for p in brief.points)
    shared = [p for p in brief.points if len({c.video_id for c in p.support}) > 1]
    assert shared and all(p.kind == "consensus" for p in shared)
    assert "shared by 2 videos" in markdown(brief)
    assert refused.code == "bad-request" and "needs a chat model" in refused.message
