"""The worker-thread side of a llama.cpp chat generation.

Everything here runs on the model's worker thread except `Generation.post`'s hand-off,
which goes through `loop.call_soon_threadsafe` into an `asyncio.Queue` the chat generator
reads. The loop side sets `Generation.stop` to cancel; llama.cpp checks it after every
sampled token (a stopping criterion), so a cancelled request frees the model within a
token.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp import Llama, StoppingCriteriaList
from llama_cpp.llama_grammar import LlamaGrammar
from llama_cpp.llama_types import ChatCompletionRequestMessage

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.llamacpp.host import NativeHost
from v2c_desktop.core.models.llamacpp.prefix_cache import PrefixCache
from v2c_desktop.core.models.repetition import RepeatGuard
from v2c_desktop.core.models.types import (
    ChatDelta,
    ChatDone,
    ChatMessage,
    ChatOptions,
    Usage,
)


class PromptTooLarge(Exception):
    """The formatted prompt plus `max_tokens` does not fit the context window."""

    def __init__(self, prompt_tokens: int, max_tokens: int, n_ctx: int) -> None:
        super().__init__(
            f"prompt {prompt_tokens} tokens + max_tokens {max_tokens} > context window {n_ctx}"
        )


@dataclass(frozen=True, slots=True)
class Failed:
    """A worker-side exception on its way to the consumer."""

    error: BaseException


@dataclass(eq=False)
class Generation:
    """One request's state shared by the loop (consumer) and the worker (producer)."""

    loop: asyncio.AbstractEventLoop
    messages: Sequence[ChatMessage]
    options: ChatOptions
    model_id: str
    stop: threading.Event = field(default_factory=threading.Event)
    queue: asyncio.Queue[ChatDelta | ChatDone | Failed] = field(default_factory=asyncio.Queue)
    on_start: Callable[[], None] = lambda: None
    prompt_tokens: int = 0
    sampled: int = 0
    cached_tokens: int = 0
    restored_tokens: int = 0
    restored_turn: Path | None = None  # a saved last turn this one continues

    def post(self, item: ChatDelta | ChatDone | Failed) -> None:
        """Hand an event to the loop; if the loop is gone, stop generating for nobody."""
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:
            self.stop.set()

    def should_stop(self, input_ids: npt.NDArray[np.intc], _logits: npt.NDArray[np.single]) -> bool:
        """llama.cpp stopping criterion, checked after every sampled token.

        It also counts: `input_ids` holds the prompt and every earlier sampled token, so
        its length tells how many tokens have been sampled (an end-of-turn token
        included: it cost a decode step too). llama.cpp calls it once more after the loop,
        hence the max.
        """
        self.sampled = max(self.sampled, len(input_ids) - self.prompt_tokens + 1)
        return self.stop.is_set()


class GuardedLlama(Llama):
    """`Llama` that checks the real prompt size and wires in the stop flag.

    `create_chat_completion` formats the messages with the chat template, tokenizes them
    and calls `create_completion` with the token list. Overriding that one call is the only
    place where the exact prompt length is known before anything is evaluated: llama.cpp
    itself would silently shrink `max_tokens` instead of failing, and the model chain needs
    a "too-large" failure to move on to a model with a bigger window.
    """

    generation: Generation | None = None
    prefix_cache: PrefixCache | None = None
    cache_identity: str = ""

    def create_completion(self, prompt: str | list[int], *args: Any, **kwargs: Any) -> Any:
        request = self.generation
        if request is not None:
            tokens = prompt if isinstance(prompt, list) else self.tokenize(prompt.encode("utf-8"))
            max_tokens = int(kwargs.get("max_tokens") or 0)
            request.prompt_tokens = len(tokens)
            if len(tokens) + max_tokens > self.n_ctx():
                raise PromptTooLarge(len(tokens), max_tokens, self.n_ctx())
            if request.options.seed is None:
                self._prepare_prefix(tokens, request)
            criteria = list(kwargs.get("stopping_criteria") or [])
            kwargs["stopping_criteria"] = StoppingCriteriaList([*criteria, request.should_stop])
        return super().create_completion(prompt, *args, **kwargs)

    def _prepare_prefix(self, tokens: list[int], request: Generation) -> None:
        """Make the context hold the prompt's reusable prefix before llama.cpp's own prefix
        matching runs, and count what will not be evaluated again.

        The live context is kept between calls, so a follow-up that starts with the last
        prompt costs only its new tokens. When the options name the end of a reusable block
        (`keep_through`) and the live context does not already hold it, its saved state is
        restored from disk, or the block is evaluated alone and saved, so a later process can
        restore it; a shorter prefix every answer shares (`keep_first`: the system rules) is
        restored or saved the same way first, so a block seen for the first time costs only
        its own tokens. Positions past the prefix are left to `generate`, which trims the KV
        cache to the common prefix and evaluates the rest.
        """
        end = self._block_end(tokens, request.options.keep_through)
        head = self._block_end(tokens, request.options.keep_first)
        held = skipped = self.longest_token_prefix(self._input_ids.tolist(), tokens)
        cache = self.prefix_cache
        if cache is not None and end:
            # a chat's saved last turn (its context after the answer), as after a restart
            turn = cache.longest(self.cache_identity, tokens, max(held, end))
            if turn and cache.load(self, self.cache_identity, tokens[:turn]):
                request.restored_tokens = held = skipped = turn
                request.restored_turn = cache.path(self.cache_identity, tokens[:turn])
        if cache is not None:
            for block_end in (end, head if head < len(tokens) else 0):
                if (
                    block_end
                    and held < block_end
                    and cache.load(self, self.cache_identity, tokens[:block_end])
                ):
                    request.restored_tokens = held = skipped = block_end
            for block_end in (head if head < len(tokens) else 0, end):
                if block_end and held < block_end:
                    self._eval_prefix(tokens[:block_end], held, request)
                    if request.stop.is_set():
                        break
                    cache.save(self, self.cache_identity, tokens[:block_end])
                    held = block_end
        # llama.cpp always decodes the last prompt token again, for fresh logits
        request.cached_tokens = max(0, min(skipped, len(tokens) - 1))

    def save_turn(self, request: Generation, finish: str) -> None:
        """After a stable chat's answer: save the whole context (the prompt and the answer's
        evaluated tokens) so its next question, even in another process, reads only what is
        new; the turn it continued is removed (one saved turn per chat)."""
        cache = self.prefix_cache
        # not `request.stop`: the consumer sets it as soon as it has the answer
        if cache is None or not request.options.keep_through or finish == "cancelled":
            return
        held = [int(t) for t in self._input_ids[: self.n_tokens]]
        if len(held) <= request.prompt_tokens:
            return
        saved = cache.save(self, self.cache_identity, held)
        old = request.restored_turn
        if saved is not None and old is not None and old != saved:
            with contextlib.suppress(OSError):
                old.unlink()

    def _eval_prefix(self, block: list[int], live: int, request: Generation) -> None:
        """Evaluate `block` after its first `live` tokens (already in the context), a batch
        at a time so a cancel is seen between batches."""
        self.n_tokens = live
        for start in range(live, len(block), self.n_batch):
            if request.stop.is_set():
                return
            self.eval(block[start : start + self.n_batch])

    def _block_end(self, tokens: list[int], marker: str | None) -> int:
        """The number of tokens up to and including the first occurrence of `marker`.

        Tokens are turned back into bytes one by one (special tokens included, as the chat
        template wrote them); 0 when the marker is absent.
        """
        if not marker:
            return 0
        wanted = marker.encode("utf-8")
        pieces = [self.detokenize([t], special=True) for t in tokens]
        joined = b"".join(pieces)
        at = joined.find(wanted)
        if at < 0:
            return 0
        stop, length = at + len(wanted), 0
        for i, piece in enumerate(pieces):
            length += len(piece)
            if length >= stop:
                return i + 1
        return 0


def checked_grammar(llm: Llama, gbnf: str) -> LlamaGrammar:
    """Parse GBNF natively first: an invalid grammar handed to sampling crashes the process."""
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        raise V2CError(
            "bad-request",
            "The GBNF grammar does not parse (llama.cpp wrote the reason to stderr)",
            "check the grammar: it needs a `root` rule and every rule it names",
        )
    llama_cpp.llama_sampler_free(sampler)
    return LlamaGrammar.from_string(gbnf, verbose=False)


def _request_messages(messages: Sequence[ChatMessage]) -> list[ChatCompletionRequestMessage]:
    out: list[ChatCompletionRequestMessage] = []
    for message in messages:
        if message.role == "system":
            out.append({"role": "system", "content": message.content})
        elif message.role == "user":
            out.append({"role": "user", "content": message.content})
        else:
            out.append({"role": "assistant", "content": message.content})
    return out


def generate(host: NativeHost[GuardedLlama], request: Generation) -> ChatDone | None:
    """Stream one answer into `request.queue`; runs on the worker thread.

    Timings start when the worker picks the request up (so a lazy load counts, waiting
    behind another request does not). Exceptions propagate to the caller, which passes
    them to the consumer.
    """
    if request.stop.is_set():  # cancelled while waiting its turn
        return None
    started = time.perf_counter()
    llm = host.native()
    options = request.options
    grammar = checked_grammar(llm, options.grammar) if options.grammar else None
    if options.seed is not None:
        # Reusing the cached prompt prefix re-evaluates only its tail, whose logits differ
        # in the last bits from a full evaluation: enough to change a sampled token. A seed
        # promises a repeatable answer, so start from an empty context.
        llm.reset()  # type: ignore[no-untyped-call]
    llm.generation = request
    first_token_ms: float | None = None
    finish = "stop"
    guard = RepeatGuard()
    try:
        stream = llm.create_chat_completion(
            _request_messages(request.messages),
            stream=True,
            max_tokens=options.max_tokens,
            temperature=options.temperature,
            top_p=options.top_p,
            stop=list(options.stop),
            seed=options.seed,
            grammar=grammar,
            repeat_penalty=options.repeat_penalty,
        )
        request.on_start()
        if isinstance(stream, dict):  # stream=True always yields chunks; this narrows the type
            raise TypeError("llama.cpp returned a whole completion to a streaming request")
        try:
            for chunk in stream:
                if request.stop.is_set():
                    finish = "cancelled"
                    break
                choice = chunk["choices"][0]
                text = choice["delta"].get("content")
                if isinstance(text, str) and text:
                    if first_token_ms is None:
                        first_token_ms = (time.perf_counter() - started) * 1000
                    request.post(ChatDelta(text))
                    if guard.feed(text):
                        finish = "repetition"  # a loop: the rest would say it again
                        break
                if choice["finish_reason"]:
                    finish = choice["finish_reason"]
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # ends llama.cpp's token loop now, not at garbage collection
    finally:
        llm.generation = None
    if request.stop.is_set():
        finish = "cancelled"
    usage = Usage(
        prompt_tokens=request.prompt_tokens,
        completion_tokens=request.sampled,
        ms=(time.perf_counter() - started) * 1000,
        first_token_ms=first_token_ms,
        cached_tokens=request.cached_tokens,
        restored_tokens=request.restored_tokens,
    )
    done = ChatDone(request.model_id, usage, finish)
    request.post(done)
    if options.seed is None:
        llm.save_turn(request, finish)  # after the answer is out: nobody waits for it
    return done
