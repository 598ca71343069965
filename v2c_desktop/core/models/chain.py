"""Choosing which model serves a request, falling back honestly, and recording every try.

A request names a policy (`local-only`, `quality`) or a model (strict, or with fallback).
The chain is tried in order; a model whose window cannot hold the prompt is skipped as
`too-large`, one in cooldown as `cooldown`, and a model that fails before its first delta
hands over to the next. After the first delta there is no fallback: the user has already
seen words from that model, and mixing two models' answers would be dishonest.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import V2CError
from .types import (
    Attempt,
    AttemptOutcome,
    ChatDelta,
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatModel,
    ChatOptions,
    ModelCallFailed,
)

Policy = Literal["local-only", "quality"]


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """What the caller asked for: a policy, or one model (`strict`: that model or an error)."""

    policy: Policy = "local-only"
    model: str | None = None
    strict: bool = False


def order_chain(models: Sequence[ChatModel], choice: ModelChoice) -> list[ChatModel]:
    """The models to try, in order, for `choice`.

    `local-only` keeps models that run on this machine, capable ones first; `quality` sorts
    every configured model by its quality rank. A named model goes first; with `strict` it
    is the whole chain.
    """
    local_only = choice.policy == "local-only"
    pool = [m for m in models if m.info.local or not local_only]
    ranked = sorted(pool, key=lambda m: (not m.info.capable, -m.info.quality))
    if choice.model is None:
        return ranked
    named = [m for m in models if m.info.id == choice.model]
    if not named:
        known = ", ".join(m.info.id for m in models) or "none configured"
        raise V2CError(
            "not-found",
            f"no model {choice.model!r} is configured",
            f"configured models: {known}; see `v2c models list`",
        )
    if choice.strict:
        return named
    return named + [m for m in ranked if m.info.id != choice.model]


def prompt_tokens(model: ChatModel, messages: Sequence[ChatMessage]) -> int:
    # a few tokens per message for the chat template's role markers
    return sum(model.count_tokens(m.content) + 4 for m in messages)


@dataclass
class ChainRun:
    """The attempts of one request, filled in while it runs."""

    stage: str = "llm"
    attempts: list[Attempt] = field(default_factory=list)
    served_by: str | None = None

    def attempts_dicts(self) -> list[dict[str, Any]]:
        return [a.to_dict() for a in self.attempts]


def _exhausted(run: ChainRun) -> V2CError:
    tried = "; ".join(f"{a.id}: {a.reason or a.outcome}" for a in run.attempts) or "no model"
    return V2CError(
        "upstream",
        f"no model could answer ({tried})",
        "{get-model}, start Ollama or LM Studio, or ask for an extractive answer",
        {"attempts": run.attempts_dicts()},
    )


async def chat_stream(
    chain: Sequence[ChatModel],
    messages: Sequence[ChatMessage],
    options: ChatOptions,
    run: ChainRun,
) -> AsyncIterator[ChatEvent]:
    """Stream from the first model of `chain` that can answer, recording attempts in `run`."""
    for model in chain:
        started = time.perf_counter()
        needed = prompt_tokens(model, messages) + options.max_tokens
        if needed > model.info.context_window:
            run.attempts.append(
                Attempt(
                    model.info.id,
                    run.stage,
                    "skipped",
                    "too-large",
                    f"needs about {needed} tokens, window {model.info.context_window}",
                )
            )
            continue
        first = True
        try:
            async for event in model.chat(messages, options):
                if isinstance(event, ChatDelta) and first:
                    first = False
                    run.served_by = model.info.id
                if isinstance(event, ChatDone):
                    run.served_by = model.info.id
                    run.attempts.append(
                        Attempt(
                            model.info.id,
                            run.stage,
                            "ok",
                            ms=(time.perf_counter() - started) * 1000,
                        )
                    )
                yield event
            return
        except ModelCallFailed as failure:
            ms = (time.perf_counter() - started) * 1000
            outcome: AttemptOutcome = (
                "skipped" if failure.reason in ("cooldown", "too-large") else "error"
            )
            run.attempts.append(
                Attempt(model.info.id, run.stage, outcome, failure.reason, failure.detail, ms)
            )
            if not first:  # words were already shown: no silent switch to another model
                raise _exhausted(run) from failure
    raise _exhausted(run)


async def complete_json(
    chain: Sequence[ChatModel],
    messages: Sequence[ChatMessage],
    json_schema: dict[str, Any],
    options: ChatOptions,
    run: ChainRun,
) -> dict[str, Any]:
    """`complete_json` on the first model that can answer, with the same attempt rules."""
    for model in chain:
        started = time.perf_counter()
        needed = prompt_tokens(model, messages) + options.max_tokens
        if needed > model.info.context_window:
            run.attempts.append(Attempt(model.info.id, run.stage, "skipped", "too-large"))
            continue
        try:
            result = await model.complete_json(messages, json_schema, options)
        except ModelCallFailed as failure:
            run.attempts.append(
                Attempt(
                    model.info.id,
                    run.stage,
                    "error",
                    failure.reason,
                    failure.detail,
                    (time.perf_counter() - started) * 1000,
                )
            )
            continue
        except V2CError as error:
            run.attempts.append(
                Attempt(
                    model.info.id,
                    run.stage,
                    "error",
                    error.code,
                    error.message,
                    (time.perf_counter() - started) * 1000,
                )
            )
            continue
        run.served_by = model.info.id
        run.attempts.append(
            Attempt(model.info.id, run.stage, "ok", ms=(time.perf_counter() - started) * 1000)
        )
        return result
    raise _exhausted(run)
