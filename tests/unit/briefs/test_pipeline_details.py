"""Details of the pipeline: a claim's stance reaches the organising call, the long pure steps
run off the event loop's thread, and the map stage names the model that read first."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import (
    FORGET,
    MAKE,
    QUESTION,
    Models,
    build,
    folder,
    open_core,
)
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs import extractive, generate, service
from v2c_desktop.core.briefs.events import Brief, BriefRequest
from v2c_desktop.core.briefs.evidence import Evidence
from v2c_desktop.core.models.types import ChatMessage, ChatOptions, ModelCallFailed
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings

pytestmark = pytest.mark.corpus


def brief_by(tmp_path: Path, writer: BriefWriter | None, **options: Any) -> Brief:
    async def go() -> Brief:
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            if writer is None:
                await api.index_pending()
            _, brief = await build(api, BriefRequest(QUESTION, collection="Memory", **options))
            return brief
        finally:
            await api.aclose()

    return run(go(), timeout=180)


def test_a_claims_stance_reaches_the_organising_call(tmp_path: Path) -> None:
    writer = BriefWriter(context_window=4096)
    brief_by(tmp_path, writer)
    organising = "\n".join(prompt for step, prompt in writer.prompts if step == "answer")
    for stance in ("for", "against", "neutral"):
        assert f"; stance: {stance})" in organising


class Threads:
    """Which threads the wrapped functions ran on."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.patch = patch
        self.seen: dict[str, set[int]] = {}

    def watch(self, owner: Any, name: str) -> None:
        original: Callable[..., Any] = getattr(owner, name)

        def watched(*args: Any, **kwargs: Any) -> Any:
            self.seen.setdefault(name, set()).add(threading.get_ident())
            return original(*args, **kwargs)

        self.patch.setattr(owner, name, watched)


def test_verification_and_grouping_run_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = Threads(monkeypatch)
    threads.watch(Evidence, "add_claims")  # map-reduce: every mapped quote checked
    threads.watch(generate, "_organise")  # evidence resolved, inline quotes checked
    threads.watch(service, "number_sources")  # transcripts indexed, copies found
    threads.watch(extractive, "_topics_of")  # passages chosen, verified and grouped
    loop_thread = threading.get_ident()  # `run` drives the event loop on this thread
    brief_by(tmp_path / "model", BriefWriter(context_window=4096))
    brief_by(tmp_path / "single", BriefWriter(context_window=200_000))
    brief_by(tmp_path / "extractive", None)
    assert set(threads.seen) == {"add_claims", "_organise", "number_sources", "_topics_of"}
    for name, idents in threads.seen.items():
        assert loop_thread not in idents, name


MAKE_TITLE = "How We Make Memories"


class Refusing(BriefWriter):
    """A writer that cannot read the first video (its map calls fail)."""

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = ChatOptions(),
    ) -> dict[str, Any]:
        if "claims" in json_schema.get("properties", {}) and MAKE_TITLE in messages[-1].content:
            raise ModelCallFailed(self.model_id, "server-error", "scripted failure")
        return await super().complete_json(messages, json_schema, options)


def test_the_map_stage_names_the_model_that_read_first(tmp_path: Path) -> None:
    first = Refusing(model_id="scripted/first", context_window=4096)
    second = BriefWriter(model_id="scripted/second", context_window=4096)

    async def go() -> Brief:
        services = await asyncio.to_thread(
            Services.open,
            tmp_path / "lib.duckdb",
            settings=Settings(),
            registry=Models([first, second]),
        )
        api = CoreAPI(services)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            _, brief = await build(api, BriefRequest(QUESTION, collection="Memory"))
            return brief
        finally:
            await api.aclose()

    brief = run(go(), timeout=180)
    (mapped,) = [t for t in brief.timings if t.stage == "map"]
    assert mapped.model == "scripted/second"  # it read the first part; the first model later
    assert set((brief.model or "").split(", ")) == {"scripted/first", "scripted/second"}
