"""A model's answer streamed with every `[n]` checked: the one way generated text cites sources.

Whatever the prompt (an answer, later a brief's map or reduce step), text a model writes
about numbered sources goes through the same three steps: it streams from the model chain,
unknown source numbers are removed as it streams (`CitationFilter`; an unfinished `[..`
waits for its `]`), and once it is complete every cited source is narrowed to the segment
that supports it and its quote verified (`build_citations`; one whose best segment shares
too little with its sentence stays listed, unverified, with its `reason`; the text keeps
its marker, and `unverified` still lists only the removed numbers). Callers bring their own
messages and sources; what was shown is exactly what the final `CheckedAnswer` holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..models.chain import ChainRun, chat_stream
from ..models.types import ChatDelta, ChatDone, ChatMessage, ChatModel, ChatOptions, ChatReasoning
from .citations import Citation, CitationFilter, build_citations
from .events import AskDelta, AskReasoning
from .prompt import citation_grammar
from .sources import Source

CUT_REASONS = ("repetition", "length")
LOCAL_REPEAT_PENALTY = 1.1


@dataclass(frozen=True, slots=True)
class CheckedAnswer:
    """The end of a checked stream.

    `text` is everything shown (stripped); `unverified` the removed numbers, sorted, each
    once; `usage` the model's token counts (empty if it sent none); `cut` why the answer
    was stopped before the model ended it (a loop, or the token limit).
    """

    text: str
    citations: list[Citation]
    unverified: list[int]
    usage: dict[str, Any] = field(default_factory=dict)
    cut: str | None = None  # "repetition" or "length" when the model was stopped early


def citing_options(
    model: ChatModel, max_tokens: int, source_count: int, *, not_covered: str
) -> ChatOptions:
    """Generation options for text that cites `source_count` sources with `model` first.

    A tiny local model only cites when a grammar makes it (see `citation_grammar`), which
    also lets it say `not_covered` instead; other models get the plain options. Local
    models get a mild repeat penalty: small ones loop otherwise (and a loop that still gets
    through is stopped, `cut` "repetition").
    """
    penalty = LOCAL_REPEAT_PENALTY if model.info.runtime == "llamacpp" else 1.0
    if model.info.runtime == "llamacpp" and not model.info.capable and source_count:
        grammar = citation_grammar(source_count, not_covered=not_covered)
        return ChatOptions(
            max_tokens=max_tokens, temperature=0.2, grammar=grammar, repeat_penalty=penalty
        )
    return ChatOptions(max_tokens=max_tokens, temperature=0.2, repeat_penalty=penalty)


async def checked_stream(
    chain: Sequence[ChatModel],
    messages: Sequence[ChatMessage],
    options: ChatOptions,
    sources: Sequence[Source],
    run: ChainRun,
) -> AsyncGenerator[AskReasoning | AskDelta | CheckedAnswer, None]:
    """Reasoning and checked text as they come, then one `CheckedAnswer`, last.

    The chain is tried as `chat_stream` does (attempts recorded in `run`); a failure raises
    `V2CError` from here. Closing this iterator early closes the model's stream.
    """
    checker = CitationFilter({s.n for s in sources})
    shown: list[str] = []
    done: ChatDone | None = None
    stream = chat_stream(chain, messages, options, run)
    try:
        async for event in stream:
            if isinstance(event, ChatDelta):
                text = checker.feed(event.text)
                if text:
                    shown.append(text)
                    yield AskDelta(text)
            elif isinstance(event, ChatReasoning):
                yield AskReasoning(event.text)
            elif isinstance(event, ChatDone):
                done = event
    finally:
        with contextlib.suppress(Exception):
            await stream.aclose()  # type: ignore[attr-defined]
    tail = checker.finish()
    if tail:
        shown.append(tail)
        yield AskDelta(tail)
    text = "".join(shown).strip()
    yield CheckedAnswer(
        text,
        build_citations(text, sources),
        sorted(set(checker.unverified)),
        asdict(done.usage) if done else {},
        done.finish_reason if done and done.finish_reason in CUT_REASONS else None,
    )


async def checked_answer(
    chain: Sequence[ChatModel],
    messages: Sequence[ChatMessage],
    options: ChatOptions,
    sources: Sequence[Source],
    run: ChainRun,
) -> CheckedAnswer:
    """The `CheckedAnswer` of a checked stream nobody watches (a brief's map step)."""
    async with contextlib.aclosing(
        checked_stream(chain, messages, options, sources, run)
    ) as events:
        async for event in events:
            if isinstance(event, CheckedAnswer):
                return event
    raise AssertionError("a checked stream always ends with its answer")
