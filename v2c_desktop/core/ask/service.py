"""Answering questions over the library: retrieve, fence, stream, check every `[n]`, save.

The order of events is fixed (meta, reasoning, deltas, then done or error) so every face
of the app can render a streamed answer the same way. Unknown citation numbers are removed
while streaming (an unfinished `[..` waits for its `]`), every cited source is narrowed to
the segment that supports its sentence (both in `checked_stream`), and the turn is saved
with exactly what was shown.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import asdict
from typing import Any, TypeVar

from ..domain.chats import ChatMessageRecord, ChatRecord
from ..domain.videos import VideoRecord
from ..errors import V2CError
from ..library import Library
from ..lru import LRU
from ..models.chain import ChainRun, ModelChoice, chat_stream
from ..models.registry import ModelRegistry
from ..models.types import ChatDelta, ChatMessage, ChatModel, ChatOptions
from ..search.engine import SearchEngine
from ..store import LibraryStore
from .checked_stream import CheckedAnswer, checked_stream, citing_options
from .events import (
    AskDelta,
    AskDone,
    AskError,
    AskEvent,
    AskMeta,
    AskRequest,
    ModelSuggestion,
    SourceInfo,
)
from .extractive import ranked_extractive_answer
from .focus import focused_sources, scope_fingerprint
from .limits import check_request
from .prompt import block_end, build_messages, rewrite_messages, system_end
from .retrieval import Retrieved, estimate_tokens, fits, retrieve, segments_tokens
from .sources import Source

T = TypeVar("T")
EXTRACTIVE_BUDGET = 12_000
EXTRACTIVE_SOURCES = 3_000
FOCUS_POOL = 3_000
"""The passages a local model's excerpts are chosen from (as an extractive answer's)."""
FOCUS_CACHE = 32
MAX_SOURCE_TOKENS = 32_000
LOCAL_SOURCE_TOKENS = 2_500
LOCAL_MIN_SOURCE_TOKENS = 300
FIRST_TOKEN_TARGET_S = 2.5
"""Of the 3 s to a local answer's first word: the prefill's share (search and choosing the
excerpts take the rest)."""
QUESTION_TOKENS = 80
"""What a first question's prompt holds besides the saved rules and the sources: the
question, the chat template's tokens and the source numbers."""
# a local answer longer than this is a small model rambling (and minutes on a CPU)
LOCAL_ANSWER_TOKENS = 384
PROMPT_OVERHEAD = 600
MIN_SOURCE_TOKENS = 100
"""The smallest source cap a request may set: one short passage."""
NOT_COVERED = "The videos do not cover this."


class AskService:
    def __init__(
        self,
        store: LibraryStore,
        library: Library,
        engine: SearchEngine,
        registry: ModelRegistry | None,
    ) -> None:
        self.store = store
        self.library = library
        self.engine = engine
        self.registry = registry
        # a local chat's follow-ups read the sources of its first question again: the same
        # excerpts, without choosing them again
        self._focused: LRU[tuple[str, int, str], Retrieved] = LRU(FOCUS_CACHE)

    async def ask(self, request: AskRequest) -> AsyncIterator[AskEvent]:
        run = ChainRun(stage="llm")
        try:
            async for event in self._ask(request, run):
                yield event
        except V2CError as error:
            attempts = error.details.get("attempts") or run.attempts_dicts()
            yield AskError(error.code, error.message, error.hint, list(attempts))

    async def _ask(self, request: AskRequest, run: ChainRun) -> AsyncIterator[AskEvent]:
        """Scope, chain, budget, retrieval; then meta and the extractive or checked answer."""
        chat = await self._run(self.store.get_chat, request.chat_id) if request.chat_id else None
        history = _history(chat)
        quoted = _quoted(chat)
        check_request(request.question, history, [*request.video_ids, *request.urls])
        records = await self._scope(request, chat)
        chain, extractive = self._chain(request)
        why, suggestion = self._why_extractive(request) if extractive else ("", None)
        local = not extractive and chain[0].info.runtime == "llamacpp"
        if local:
            request = dataclasses.replace(
                request, max_tokens=min(request.max_tokens, LOCAL_ANSWER_TOKENS)
            )
        budget = source_budget(chain, history, request.max_tokens, request.source_tokens)
        first_budget = source_budget(chain, [], request.max_tokens, request.source_tokens)
        # A local chat keeps the sources of its first question for all its turns while they
        # fit beside the history: the same prompt prefix, so llama.cpp evaluates only the
        # new turns, and no model call (the follow-up rewrite) before the sources are shown.
        pinned = local and bool(history) and budget >= first_budget
        if pinned:
            first = next(m.content for m in history if m.role == "user")
            retrieved = await self._retrieve(
                dataclasses.replace(request, question=first),
                records,
                chain,
                [],
                set(),
                first_budget,
                run,
                False,
            )
        else:
            retrieved = await self._retrieve(
                request, records, chain, history, quoted, budget, run, extractive
            )
        chat_id = chat.id if chat else await self._new_chat(request, records)
        if extractive:
            answer = self._extractive(request, chat_id, retrieved, why, suggestion)
        else:
            stable = local and (pinned or not history)
            answer = self._generated(
                request, chat_id, chain, history, quoted, retrieved, run, stable=stable
            )
        async with contextlib.aclosing(answer) as events:
            async for event in events:
                yield event

    async def _extractive(
        self,
        request: AskRequest,
        chat_id: str,
        retrieved: Retrieved,
        why: str,
        suggestion: ModelSuggestion | None,
    ) -> AsyncGenerator[AskEvent, None]:
        """Meta, the quotes as one delta, saved, done: no model writes this answer."""
        answer = await ranked_extractive_answer(
            request.question, retrieved.sources, self.engine.embedder, retrieved.hits
        )
        # sources numbered as the answer cites them: [1] comes first
        yield _meta(chat_id, None, True, answer.sources, retrieved.mode, why, suggestion)
        yield AskDelta(answer.text)
        await self._save(
            chat_id, request.question, answer.text, answer.citations, [], None, extractive=True
        )
        yield AskDone(chat_id, answer.text, answer.citations, [], True, None)

    async def _generated(
        self,
        request: AskRequest,
        chat_id: str,
        chain: Sequence[ChatModel],
        history: list[ChatMessage],
        quoted: set[int],
        retrieved: Retrieved,
        run: ChainRun,
        *,
        stable: bool = False,
    ) -> AsyncGenerator[AskEvent, None]:
        """Meta, the model's checked stream (reasoning, deltas), saved, done.

        `stable`: the sources are the chat's for all its turns, so they open the prompt and
        llama.cpp keeps (and saves) their evaluated state for the next turns.
        """
        sources = retrieved.sources
        yield _meta(chat_id, chain[0].info.id, False, sources, retrieved.mode, "", None)
        messages = build_messages(request.question, sources, history, quoted=quoted, stable=stable)
        options = citing_options(
            chain[0], request.max_tokens, len(sources), not_covered=NOT_COVERED
        )
        if stable:
            options = dataclasses.replace(
                options, keep_through=block_end(messages), keep_first=system_end(messages)
            )
        checked: CheckedAnswer | None = None
        stream = checked_stream(chain, messages, options, sources, run)
        async with contextlib.aclosing(stream) as events:
            async for event in events:
                if isinstance(event, CheckedAnswer):
                    checked = event
                else:
                    yield event
        if checked is None:  # checked_stream always ends with its answer
            raise V2CError("internal", "the answer stream ended without its checked text")
        await self._save(
            chat_id,
            request.question,
            checked.text,
            checked.citations,
            checked.unverified,
            run.served_by,
        )
        yield AskDone(
            chat_id,
            checked.text,
            checked.citations,
            checked.unverified,
            False,
            run.served_by,
            checked.usage,
            run.attempts_dicts(),
            checked.cut,
        )

    # -- pieces -------------------------------------------------------------------------------
    def _chain(self, request: AskRequest) -> tuple[list[ChatModel], bool]:
        """The models to try, or extractive when asked or when no capable model exists.

        A model the user names is used even if it is a plumbing model: they asked for it.
        """
        if request.extractive or self.registry is None:
            return [], True
        if request.model:
            choice = ModelChoice(
                self.registry.default_choice().policy, request.model, request.strict
            )
            return self.registry.chain(choice), False
        chain = self.registry.chain()
        if not any(m.info.capable for m in chain):
            return [], True
        return [m for m in chain if m.info.capable], False

    def _why_extractive(self, request: AskRequest) -> tuple[str, ModelSuggestion | None]:
        """Why no model writes this answer, and the model to get (none when asked for)."""
        if request.extractive:
            return "you asked for an extractive answer", None
        if self.registry is None:
            return "this library was opened without models", None
        entry = self.registry.suggested_chat_model()
        suggestion = ModelSuggestion(entry.id, entry.label, entry.size_bytes) if entry else None
        return self.registry.why_no_capable_chat(), suggestion

    async def _retrieve(
        self,
        request: AskRequest,
        records: list[VideoRecord],
        chain: Sequence[ChatModel],
        history: list[ChatMessage],
        quoted: set[int],
        budget: int,
        run: ChainRun,
        extractive: bool,
    ) -> Retrieved:
        """The sources within `budget`; a follow-up is first rewritten to stand alone.

        Extractive answers quote a few passages, so they always search, in a smaller budget.
        """
        query = request.question
        if history and not extractive:
            query = await self._standalone(chain, history, quoted, request.question, run)
        if extractive:
            return await retrieve(
                self.engine, records, query, min(budget, EXTRACTIVE_SOURCES), force_search=True
            )
        if fits(records, budget) or chain[0].info.runtime != "llamacpp":
            return await retrieve(self.engine, records, query, budget)
        # a local model reads the few excerpts that answer (see `focus`), chosen from the
        # passages an extractive answer would rank
        key = (query, budget, scope_fingerprint(records))
        focused = self._focused.get(key)
        if focused is None:
            pool = await retrieve(self.engine, records, query, FOCUS_POOL, force_search=True)
            sources = await focused_sources(
                query, pool.sources, self.engine.embedder, pool.hits, budget
            )
            if not sources:  # nothing in the pool answers: the best passages, as before
                return await retrieve(self.engine, records, query, budget)
            tokens = sum(segments_tokens(s.segments) for s in sources)
            focused = Retrieved(sources, "excerpts", tokens, pool.hits)
            self._focused[key] = focused
        return focused

    async def _scope(self, request: AskRequest, chat: ChatRecord | None) -> list[VideoRecord]:
        """The videos asked about: the request's own scope, else the chat's saved one.

        The whole library is read when it is asked (a chat over it follows the library as
        it grows); its videos join any ids, collection or URLs also named.
        """
        ids = list(request.video_ids)
        collection = request.collection
        whole = request.library
        if chat is not None and not (ids or collection or request.urls or whole):
            ids = list(chat.scope.get("video_ids") or [])
            collection = chat.scope.get("collection")
            whole = bool(chat.scope.get("library"))
        if whole:
            ids.extend(v.id for v in await self.library.list_videos())
        if request.urls:
            result = await self.library.add(list(request.urls))
            for outcome in result.outcomes:
                if outcome.status == "failed" and outcome.error is not None:
                    raise outcome.error
                if outcome.video_id:
                    ids.append(outcome.video_id)
        if collection:
            ids.extend((await self.library.get_collection(collection)).video_ids)
        if not ids:
            raise V2CError(
                "bad-request",
                "no videos to ask about",
                "pass --video ID, --collection ID or a URL (see `v2c list`)",
            )
        resolved = list(dict.fromkeys([await self.library.resolve(v) for v in ids]))
        return [await self.library.get_video(v) for v in resolved]

    async def _standalone(
        self,
        chain: Sequence[ChatModel],
        history: list[ChatMessage],
        quoted: set[int],
        question: str,
        run: ChainRun,
    ) -> str:
        rewrite = ChainRun(stage="rewrite")
        text = ""
        try:
            async for event in chat_stream(
                chain[:3],
                rewrite_messages(history, question, quoted),
                ChatOptions(max_tokens=48),
                rewrite,
            ):
                if isinstance(event, ChatDelta):
                    text += event.text
        except V2CError:
            return question
        finally:
            run.attempts.extend(rewrite.attempts)
        line = text.strip().splitlines()[0].strip(' "') if text.strip() else ""
        return line or question

    async def _new_chat(self, request: AskRequest, records: list[VideoRecord]) -> str:
        scope: dict[str, Any] = {"video_ids": [r.video.id for r in records]}
        if request.collection:
            scope["collection"] = request.collection
        if request.library:
            scope = {"library": True}  # follow-ups ask the library as it is then
        return await self._run(self.store.create_chat, request.question[:80], scope)

    async def _save(
        self,
        chat_id: str,
        question: str,
        answer: str,
        citations: Sequence[Any],
        unverified: list[int],
        model: str | None,
        *,
        extractive: bool = False,
    ) -> None:
        await self._run(
            self.store.append_chat_message, chat_id, ChatMessageRecord(0, "user", question)
        )
        await self._run(
            self.store.append_chat_message,
            chat_id,
            ChatMessageRecord(
                0,
                "assistant",
                answer,
                [asdict(c) for c in citations],
                unverified,
                model,
                extractive,
            ),
        )

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await self.store.run(fn, *args)


def source_budget(
    chain: Sequence[ChatModel],
    history: list[ChatMessage],
    max_tokens: int,
    cap: int | None = None,
) -> int:
    """Tokens of sources the first model can read beside the prompt, history and answer,
    at most `cap` (the request's `source_tokens`) when given.

    Raises `bad-request` when too little is left to answer from.
    """
    window = chain[0].info.context_window if chain else EXTRACTIVE_BUDGET
    history_tokens = sum(estimate_tokens(m.content) for m in history)
    budget = int(0.9 * window) - PROMPT_OVERHEAD - history_tokens - max_tokens
    if budget < 500:
        raise V2CError(
            "bad-request",
            "the conversation is too long for the model's context window",
            "start a new chat, or choose a model with a larger window",
        )
    budget = min(budget, MAX_SOURCE_TOKENS)
    if chain and chain[0].info.runtime == "llamacpp":
        # a CPU reads prompts at ~15-200 tokens/s: local models get the best excerpts only,
        # as many as this machine reads within the wait target
        budget = min(budget, local_source_tokens(chain[0]))
    return min(budget, max(MIN_SOURCE_TOKENS, cap)) if cap is not None else budget


def local_source_tokens(model: ChatModel) -> int:
    """The sources a local model reads within `FIRST_TOKEN_TARGET_S` at the prompt speed
    measured on this machine (see `prefill_speed`), between `LOCAL_MIN_SOURCE_TOKENS`
    (below it answers lose their support: tests/eval/run_ask_eval.py --model) and
    `LOCAL_SOURCE_TOKENS`, in steps of 50 tokens so small changes in speed keep a budget."""
    rate = getattr(model, "prefill_rate", None)
    speed = float(rate()) if callable(rate) else 0.0
    tokens = speed * FIRST_TOKEN_TARGET_S - QUESTION_TOKENS
    tokens = max(LOCAL_MIN_SOURCE_TOKENS, min(LOCAL_SOURCE_TOKENS, tokens))
    return int(tokens // 50 * 50)


def _meta(
    chat_id: str,
    model_id: str | None,
    extractive: bool,
    sources: Sequence[Source],
    retrieval: str,
    why: str,
    suggestion: ModelSuggestion | None,
) -> AskMeta:
    infos = [SourceInfo(s.n, s.video_id, s.title, s.url, s.start, s.end) for s in sources]
    return AskMeta(chat_id, model_id, extractive, infos, retrieval, why, suggestion)


def _history(chat: ChatRecord | None) -> list[ChatMessage]:
    if chat is None:
        return []
    return [ChatMessage("user" if m.role == "user" else "assistant", m.text) for m in chat.messages]


def _quoted(chat: ChatRecord | None) -> set[int]:
    """The indexes (in `_history`) of the turns that quote transcripts: extractive answers."""
    if chat is None:
        return set()
    return {i for i, m in enumerate(chat.messages) if m.role != "user" and m.extractive}
