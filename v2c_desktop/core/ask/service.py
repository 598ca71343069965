"""Answering questions over the library: retrieve, fence, stream, check every `[n]`, save.

The order of events is fixed (meta, reasoning, deltas, then done or error) so every face
of the app can render a streamed answer the same way. Unknown citation numbers are removed
while streaming (an unfinished `[..` waits for its `]`), every cited source is narrowed to
the segment that supports its sentence, and the turn is saved with exactly what was shown.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict
from typing import Any, TypeVar

from ..domain.chats import ChatMessageRecord, ChatRecord
from ..domain.videos import VideoRecord
from ..errors import V2CError
from ..library import Library
from ..models.chain import ChainRun, ModelChoice, chat_stream
from ..models.registry import ModelRegistry
from ..models.types import (
    ChatDelta,
    ChatDone,
    ChatMessage,
    ChatModel,
    ChatOptions,
    ChatReasoning,
)
from ..search.engine import SearchEngine
from ..store import LibraryStore
from .citations import CitationFilter, build_citations
from .events import (
    AskDelta,
    AskDone,
    AskError,
    AskEvent,
    AskMeta,
    AskReasoning,
    AskRequest,
    ModelSuggestion,
    SourceInfo,
)
from .extractive import extractive_answer
from .limits import check_request
from .prompt import build_messages, citation_grammar, rewrite_messages
from .retrieval import estimate_tokens, retrieve

T = TypeVar("T")
EXTRACTIVE_BUDGET = 12_000
EXTRACTIVE_SOURCES = 3_000
MAX_SOURCE_TOKENS = 32_000
LOCAL_SOURCE_TOKENS = 2_500
PROMPT_OVERHEAD = 600
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

    async def ask(self, request: AskRequest) -> AsyncIterator[AskEvent]:
        run = ChainRun(stage="llm")
        try:
            async for event in self._ask(request, run):
                yield event
        except V2CError as error:
            attempts = error.details.get("attempts") or run.attempts_dicts()
            yield AskError(error.code, error.message, error.hint, list(attempts))

    async def _ask(self, request: AskRequest, run: ChainRun) -> AsyncIterator[AskEvent]:
        chat = await self._run(self.store.get_chat, request.chat_id) if request.chat_id else None
        history = _history(chat)
        check_request(request.question, history, [*request.video_ids, *request.urls])
        records = await self._scope(request, chat)
        chain, extractive = self._chain(request)
        why, suggestion = self._why_extractive(request) if extractive else ("", None)
        window = chain[0].info.context_window if chain else EXTRACTIVE_BUDGET
        history_tokens = sum(estimate_tokens(m.content) for m in history)
        budget = int(0.9 * window) - PROMPT_OVERHEAD - history_tokens - request.max_tokens
        budget = min(budget, MAX_SOURCE_TOKENS)
        if chain and chain[0].info.runtime == "llamacpp":
            # a CPU reads prompts at ~100-200 tokens/s: more sources would mean minutes
            # before the first word, so local models get the best passages only
            budget = min(budget, LOCAL_SOURCE_TOKENS)
        if budget < 500:
            raise V2CError(
                "bad-request",
                "the conversation is too long for the model's context window",
                "start a new chat, or choose a model with a larger window",
            )
        query = request.question
        if history and not extractive:
            query = await self._standalone(chain, history, request.question, run)
        retrieved = await retrieve(
            self.engine,
            records,
            query,
            min(budget, EXTRACTIVE_SOURCES) if extractive else budget,
            force_search=extractive,
        )
        sources = retrieved.sources
        chat_id = chat.id if chat else await self._new_chat(request, records)
        model_id = None if extractive else chain[0].info.id
        answer = extractive_answer(request.question, sources) if extractive else None
        if answer is not None:
            sources = answer.sources  # numbered as the answer cites them: [1] comes first
        yield AskMeta(
            chat_id,
            model_id,
            extractive,
            [SourceInfo(s.n, s.video_id, s.title, s.url, s.start, s.end) for s in sources],
            retrieved.mode,
            why,
            suggestion,
        )
        if answer is not None:
            yield AskDelta(answer.text)
            await self._save(
                chat_id, request.question, answer.text, answer.citations, [], None, extractive=True
            )
            yield AskDone(chat_id, answer.text, answer.citations, [], True, None)
            return
        messages = build_messages(request.question, sources, history)
        options = ChatOptions(max_tokens=request.max_tokens, temperature=0.2)
        first = chain[0]
        if first.info.runtime == "llamacpp" and not first.info.capable and sources:
            # a tiny local model only cites when the grammar makes it (see citation_grammar)
            options = ChatOptions(
                max_tokens=request.max_tokens,
                temperature=0.2,
                grammar=citation_grammar(len(sources), not_covered=NOT_COVERED),
            )
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
        citations = build_citations(text, sources)
        unverified = sorted(set(checker.unverified))
        usage = asdict(done.usage) if done else {}
        await self._save(chat_id, request.question, text, citations, unverified, run.served_by)
        yield AskDone(
            chat_id, text, citations, unverified, False, run.served_by, usage, run.attempts_dicts()
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

    async def _scope(self, request: AskRequest, chat: ChatRecord | None) -> list[VideoRecord]:
        ids = list(request.video_ids)
        collection = request.collection
        if chat is not None and not (ids or collection or request.urls):
            ids = list(chat.scope.get("video_ids") or [])
            collection = chat.scope.get("collection")
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
        self, chain: Sequence[ChatModel], history: list[ChatMessage], question: str, run: ChainRun
    ) -> str:
        rewrite = ChainRun(stage="rewrite")
        text = ""
        try:
            async for event in chat_stream(
                chain[:3], rewrite_messages(history, question), ChatOptions(max_tokens=48), rewrite
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
        return await self.library.run_store(fn, *args)


def _history(chat: ChatRecord | None) -> list[ChatMessage]:
    if chat is None:
        return []
    return [ChatMessage("user" if m.role == "user" else "assistant", m.text) for m in chat.messages]
