"""`ChatModel` over a local GGUF file with llama.cpp (llama-cpp-python).

Loads lazily on its worker thread, streams tokens as they are sampled, serialises requests
(one generation at a time per model), frees the model after `idle_unload_s` without use,
and turns llama.cpp's failure modes into the typed errors the chain understands.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import Any

from llama_cpp import llama_chat_format

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.llamacpp.host import (
    NativeHost,
    batch_thread_count,
    load_gguf,
    thread_count,
)
from v2c_desktop.core.models.llamacpp.json_answers import (
    parse_checked,
    repair_messages,
    schema_grammar,
    schema_validator,
    with_instruction,
)
from v2c_desktop.core.models.llamacpp.native import (
    Failed,
    Generation,
    GuardedLlama,
    PromptTooLarge,
    generate,
)
from v2c_desktop.core.models.llamacpp.prefill_speed import PrefillSpeed
from v2c_desktop.core.models.llamacpp.prefix_cache import PrefixCache
from v2c_desktop.core.models.types import (
    ChatDelta,
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatOptions,
    ModelCallFailed,
    ModelInfo,
)
from v2c_desktop.core.paths import app_paths

CHARS_PER_TOKEN = 3.5
DEFAULT_OPTIONS = ChatOptions()
PREFIX_DIR = "llamacpp-prefix"
# llama-cpp-python's default batch, kept: 256 and 1024 were within the noise of it
# (bench/llamacpp_tuning.py). Flash attention prefilled ~15% faster on one thread and ~35%
# on two (198 against 149 tokens/s for 1,430 tokens) and leaves answers as they were; a
# quantised KV cache (q8_0) was slower on these CPUs and is not used.
N_BATCH = 512
FLASH_ATTN = True


class LlamaCppChatModel:
    """A chat model served in-process by llama.cpp.

    `generations` counts native generations that really ran (past the size check) and
    `last_done` is the `ChatDone` of the latest one, delivered or not (a cancelled one ends
    with finish_reason "cancelled"): both exist so tests and diagnostics can see what the
    worker did without mocks.
    """

    def __init__(
        self,
        path: Path,
        *,
        model_id: str | None = None,
        context_window: int = 4096,
        chat_format: str | None = None,
        n_threads: int | None = None,
        idle_unload_s: float = 600,
        capable: bool = True,
        label: str = "",
        prefix_cache: PrefixCache | None = None,
    ) -> None:
        self.path = Path(path)
        model_id = model_id or f"llamacpp/{self.path.stem}"
        self.info = ModelInfo(
            id=model_id,
            kind="chat",
            runtime="llamacpp",
            label=label or self.path.stem,
            context_window=context_window,
            capable=capable,
            local=True,
        )
        self.chat_format = chat_format
        self.n_threads = n_threads
        self.generations = 0
        self.last_done: ChatDone | None = None
        # saved source-block states, under the app's cache dir unless a test gives its own
        self.prefix_cache = prefix_cache or PrefixCache(app_paths().cache_dir / PREFIX_DIR)
        self._prefill: PrefillSpeed | None = None
        self._active: set[Generation] = set()
        self._host: NativeHost[GuardedLlama] = NativeHost(
            model_id=model_id, load=self._load, idle_unload_s=idle_unload_s
        )

    @property
    def loaded(self) -> bool:
        return self._host.loaded

    @property
    def loads(self) -> int:
        """How many times the file was loaded (a reload after an idle unload counts)."""
        return self._host.loads

    @property
    def busy(self) -> bool:
        """True while a generation is queued or running on the worker."""
        return self._host.in_flight > 0

    @property
    def load_ms(self) -> float | None:
        return self._host.load_ms

    def _load(self) -> GuardedLlama:
        """Build the `Llama` on the worker thread (called by the host on first use)."""
        if self.chat_format is not None:
            try:
                llama_chat_format.get_chat_completion_handler(self.chat_format)
            except Exception as error:
                raise V2CError(
                    "bad-request",
                    f"Unknown llama.cpp chat format {self.chat_format!r} for {self.info.id}",
                    "use a llama-cpp-python chat_format name such as chatml or llama-3",
                ) from error
        threads = thread_count(self.n_threads)
        llm = load_gguf(
            GuardedLlama,
            self.path,
            self.info.id,
            n_ctx=self.info.context_window,
            chat_format=self.chat_format,  # None: the GGUF's own chat template
            n_threads=threads,
            n_threads_batch=batch_thread_count(self.n_threads),
            n_batch=N_BATCH,
            flash_attn=FLASH_ATTN,
        )
        llm.prefix_cache = self.prefix_cache
        llm.cache_identity = self._cache_identity()
        return llm

    def _cache_identity(self) -> str:
        """Everything a saved KV state depends on besides its tokens: the exact model file
        and the context settings that shape the cache."""
        stat = self.path.stat()
        return (
            f"{self.info.id}|{self.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
            f"|n_ctx={self.info.context_window}|kv=f16|fa={int(FLASH_ATTN)}"
        )

    def _count_generation(self) -> None:
        self.generations += 1

    async def chat(
        self, messages: Sequence[ChatMessage], options: ChatOptions = DEFAULT_OPTIONS
    ) -> AsyncGenerator[ChatEvent, None]:
        """Stream deltas then one `ChatDone`; closing or cancelling the consumer stops it.

        Use `contextlib.aclosing` (or let the task be cancelled) when leaving the loop
        early: an async generator that is merely abandoned is only closed when garbage
        collected, and until then the model keeps generating up to `max_tokens`.
        """
        request = Generation(
            loop=asyncio.get_running_loop(),
            messages=tuple(messages),
            options=options,
            model_id=self.info.id,
            on_start=self._count_generation,
        )
        self._active.add(request)
        future = self._host.submit(lambda host: self._generate_on_worker(host, request))
        try:
            while True:
                item = await request.queue.get()
                if isinstance(item, Failed):
                    error = self._translate(item.error)
                    if error is item.error:
                        raise error
                    raise error from item.error
                yield item
                if isinstance(item, ChatDone):
                    return
        finally:
            request.stop.set()
            future.cancel()  # only succeeds while it is still waiting its turn
            self._active.discard(request)

    def _generate_on_worker(
        self, host: NativeHost[GuardedLlama], request: Generation
    ) -> ChatDone | None:
        """The worker-thread job: generate, and hand any failure to the consumer.

        Failures travel through the same queue as the deltas, so they arrive in order.
        `last_done` is set here, before the job's future completes, so anyone who sees
        the model idle also sees the outcome.
        """
        try:
            done = generate(host, request)
        except Exception as error:
            request.post(Failed(error))
            return None
        if done is not None:
            self.last_done = done
            usage = done.usage
            if usage.first_token_ms and done.finish_reason != "cancelled":
                evaluated = usage.prompt_tokens - usage.cached_tokens
                self.prefill.record(evaluated, usage.first_token_ms / 1000)
        return done

    @property
    def prefill(self) -> PrefillSpeed:
        """This model file's measured prompt speed (made on first use: the file may not
        exist yet when the model is listed, only when it answers)."""
        if self._prefill is None:
            try:
                identity, size = self._cache_identity(), self.path.stat().st_size
            except OSError:
                identity, size = self.info.id, 0
            self._prefill = PrefillSpeed(self.prefix_cache.directory, identity, size)
        return self._prefill

    def prefill_rate(self) -> float:
        """Prompt tokens per second on this machine (measured, else estimated): what a
        caller budgets prompts by, so the first word comes within its wait target."""
        return self.prefill.rate()

    def _translate(self, error: BaseException) -> BaseException:
        if isinstance(error, PromptTooLarge):
            return ModelCallFailed(self.info.id, "too-large", str(error))
        if isinstance(error, (V2CError, ModelCallFailed)):
            return error
        return ModelCallFailed(self.info.id, "error", f"{type(error).__name__}: {error}")

    async def _complete_text(
        self, messages: Sequence[ChatMessage], options: ChatOptions
    ) -> tuple[str, str]:
        parts: list[str] = []
        finish = "stop"
        async with aclosing(self.chat(messages, options)) as stream:
            async for event in stream:
                if isinstance(event, ChatDelta):
                    parts.append(event.text)
                elif isinstance(event, ChatDone):
                    finish = event.finish_reason
        return "".join(parts), finish

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = DEFAULT_OPTIONS,
    ) -> dict[str, Any]:
        """A JSON object valid against `json_schema`, grammar-constrained, one repair call."""
        validator = schema_validator(json_schema)
        constrained = replace(options, grammar=schema_grammar(json_schema))
        prompt = with_instruction(messages, json_schema)
        text, finish = await self._complete_text(prompt, constrained)
        value, problem = parse_checked(text, validator, finish)
        if value is not None:
            return value
        retry = repair_messages(prompt, text, problem)
        text, finish = await self._complete_text(retry, constrained)
        value, second_problem = parse_checked(text, validator, finish)
        if value is not None:
            return value
        raise V2CError(
            "upstream",
            f"{self.info.id} did not produce valid JSON, even after one repair: {second_problem}",
            "try a larger model, a simpler schema or a bigger max_tokens",
            {"model": self.info.id, "first_problem": problem, "output": text[:2000]},
        )

    def count_tokens(self, text: str) -> int:
        """Exact with the model's tokenizer while it is loaded, else len(text)/3.5.

        Loading a model only to count would cost a quarter second to many seconds and
        hundreds of megabytes, and callers count often (budgeting context pages), so an
        unloaded model answers with the usual ~3.5 characters per token for English text.
        Tokenizing is a fast, read-only native call; it runs on the caller's thread under
        the host's guard so an idle unload cannot free the model mid-call.
        """
        with self._host.guard:
            llm = self._host.current
            if llm is not None:
                return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    async def aclose(self) -> None:
        """Stop any generation, free the model and end the worker thread."""
        for request in list(self._active):
            request.stop.set()
        await self._host.aclose()
