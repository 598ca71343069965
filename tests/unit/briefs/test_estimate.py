"""The estimate before a brief: what it reads, which pass it takes, and an honest time."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.estimate import plan
from v2c_desktop.core.briefs.events import BriefEstimate, BriefRequest
from v2c_desktop.core.briefs.sources import number_sources
from v2c_desktop.core.domain.models import ModelList, ModelRow
from v2c_desktop.core.errors import V2CError

pytestmark = pytest.mark.corpus


def test_the_estimate_names_the_pass_the_build_takes_and_says_unknown_for_no_speed(
    tmp_path: Path,
) -> None:
    async def go() -> tuple[BriefEstimate, BriefEstimate, str, BriefEstimate]:
        api = await open_core(tmp_path, BriefWriter(context_window=4096))
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET, twin=True))], collection="Memory")
            request = BriefRequest(QUESTION, collection="Memory")
            small = await api.estimate_brief(request)
            _steps, brief = await build(api, request)
            extractive = await api.estimate_brief(
                BriefRequest(QUESTION, collection="Memory", extractive=True)
            )
            return (
                small,
                extractive,
                brief.pass_kind,
                await api.estimate_brief(BriefRequest("", rerun=brief.id)),
            )
        finally:
            await api.aclose()

    small, extractive, built, rerun = run(go(), timeout=120)
    assert (small.videos, small.duplicates) == (2, 1)  # the re-upload is read once
    assert 0.1 < small.hours < 1.0 and small.tokens > 4096
    assert small.pass_kind == built == "map-reduce"
    assert small.model == "scripted/brief-writer" and small.calls > 2
    # the scripted model was never measured: no invented time
    assert small.seconds is None and small.basis.startswith("unknown")
    assert extractive.pass_kind == "extractive" and extractive.calls == 0
    assert extractive.seconds is None and extractive.tokens == small.tokens
    assert rerun.videos == 2 and rerun.pass_kind == "map-reduce"


def test_a_measured_speed_gives_a_rough_time_and_one_pass_when_it_fits(tmp_path: Path) -> None:
    async def go() -> list[object]:
        api = await open_core(tmp_path, None)
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            collection = await api.get_collection("Memory")
            return [await api.get_video(v) for v in collection.video_ids]
        finally:
            await api.aclose()

    records = run(go(), timeout=60)
    sources = number_sources(records)  # type: ignore[arg-type]
    writer = BriefWriter(context_window=32768)
    row = ModelRow(
        writer.model_id, "chat", "llamacpp", "Writer", "catalog", True, tokens_per_s=20.0
    )
    measured = ModelList([replace(row, speed="measured")])
    estimate = plan(sources, 1, [writer], measured)
    assert estimate.pass_kind == "single" and estimate.calls == 1
    assert estimate.seconds is not None and estimate.seconds > 0
    assert estimate.speed == "measured" and "20 tokens/s (measured)" in estimate.basis
    assert "not measured" in estimate.basis  # reading the prompt is not in the number
    unmeasured = plan(sources, 1, [writer], ModelList([row]))
    assert unmeasured.seconds is not None and "estimated" in unmeasured.basis
    assert plan(sources, 1, [writer], None).seconds is None


def test_an_unsupported_schema_keyword_fails_the_estimate_as_the_build_would(
    tmp_path: Path,
) -> None:
    async def go() -> V2CError:
        api = await open_core(tmp_path, BriefWriter())
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            schema = {"type": "object", "patternProperties": {"a": {"type": "string"}}}
            with pytest.raises(V2CError) as caught:
                await api.estimate_brief(BriefRequest(QUESTION, collection="Memory", schema=schema))
            return caught.value
        finally:
            await api.aclose()

    error = run(go(), timeout=60)
    assert error.code == "bad-request" and "patternProperties" in error.message


def test_a_schema_with_no_model_to_fill_it_is_refused_by_the_estimate(tmp_path: Path) -> None:
    """A fresh install (no chat model) cannot fill your schema: the estimate says so up
    front, where it used to promise an extractive brief the build then refused."""
    schema = {"type": "object", "properties": {"facts": {"type": "array"}}}

    async def go() -> tuple[V2CError, V2CError, BriefEstimate]:
        api = await open_core(tmp_path, None)
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            request = BriefRequest(QUESTION, collection="Memory", schema=schema)
            with pytest.raises(V2CError) as estimated:
                await api.estimate_brief(request)
            with pytest.raises(V2CError) as built:
                await build(api, request)
            fine = await api.estimate_brief(BriefRequest(QUESTION, collection="Memory"))
            return estimated.value, built.value, fine
        finally:
            await api.aclose()

    estimated, built, fine = run(go(), timeout=60)
    for error in (estimated, built):
        assert error.code == "bad-request" and "needs a chat model" in error.message
        assert "Ollama or LM Studio" in error.hint
    assert fine.pass_kind == "extractive"  # a template still gets its extractive brief
