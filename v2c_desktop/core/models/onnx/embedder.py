"""The default embedder: all-MiniLM-L6-v2, int8 ONNX, on this machine's CPU.

It ships inside the install (`models/all-minilm-l6-v2`: the re-quantised model and its
tokenizer), so search works offline from the first run. The session is loaded on first
use, kept warm while it is being used, and dropped after `idle_unload_s` without use so an
idle app does not hold the model's memory.

Every text runs alone through the model (one forward pass per text, no padding): the model
quantises its activations per run, over everything in the run, so a text batched with
others would get a vector that depends on its batch-mates (cosine down to 0.946 against
itself alone on a CPU without VNNI). Alone, a text's vector is a function of its text only:
the same words embed identically as a query, in a chunk, in any import. With no padding
nothing is wasted, and one pass per core at a time is as fast as batches of 2-16 were
(bench/embed_bench.py). Passes are handed out longest first, so the cores finish together.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from v2c_desktop.core.models.onnx.minilm import (
    DIMENSIONS,
    MAX_TOKENS,
    load_session,
    load_tokenizer,
    onnx_file,
    run_text,
    token_ids,
    tokenizer_file,
)
from v2c_desktop.core.models.types import ModelInfo, Vectors

INFO = ModelInfo(
    id="onnx/all-minilm-l6-v2-int8w7",
    kind="embed",
    runtime="onnx",
    label="all-MiniLM-L6-v2 (int8 ONNX)",
    context_window=MAX_TOKENS,
    dimensions=DIMENSIONS,
    capable=True,
    local=True,
)

#: Texts tokenised together: bounds the memory of token lists for a very long input.
TOKENIZE_WINDOW = 1024

#: One forward pass: the row of the output it fills and its token ids.
Run = tuple[int, list[int]]


class OnnxEmbedder:
    """`EmbeddingModel` over all-MiniLM-L6-v2: 384-dim unit vectors, float32.

    Texts longer than 256 word pieces (the model's own max_seq_length, [CLS] and [SEP]
    included) are truncated: only their beginning is embedded. Callers chunk transcripts
    well under that, so truncation only bites on unusual input.

    Calls are served one at a time by a worker thread owned by this object. Within a
    call, texts run side by side on `threads` runner threads (default: one per core),
    each on one core: a query stays on one thread, a transcript's hundreds of chunks keep
    every core busy.
    """

    def __init__(
        self,
        idle_unload_s: float = 300,
        *,
        threads: int | None = None,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        self.info = INFO
        self._idle_unload_s = idle_unload_s
        self._threads = max(1, threads or os.cpu_count() or 1)
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._session: Any = None
        self._tokenizer: Tokenizer | None = None
        # Held for a whole embed call: the idle timer never unloads mid-call, and a
        # direct `embed_sync` from another thread waits for the worker instead of racing.
        self._lock = threading.Lock()
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="v2c-embed"
        )
        self._runners = concurrent.futures.ThreadPoolExecutor(
            max_workers=self._threads, thread_name_prefix="v2c-embed-run"
        )
        self._timer: asyncio.TimerHandle | None = None
        self._inflight = 0
        self._last_used = time.monotonic()
        self._closed = False

    @property
    def loaded(self) -> bool:
        """Whether the ONNX session is in memory right now (False before first use)."""
        return self._session is not None

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Blocking embed for scripts and benchmarks; the async path runs this on its worker.

        Called directly it keeps the session loaded until `unload()` or `aclose()`: the
        idle timer lives on an event loop, and there is none here.
        """
        if self._closed:
            raise RuntimeError("this embedder is closed")
        return self._embed(_as_list(texts), None)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit row per text, in order; the ONNX work runs off the event loop.

        Cancelling the awaiting task stops the work before its next text (the texts
        already running finish, their results are dropped).
        """
        if self._closed:
            raise RuntimeError("this embedder is closed")
        items = _as_list(texts)
        if not items:
            return _empty()
        loop = asyncio.get_running_loop()
        stop = threading.Event()
        self._inflight += 1
        self._disarm()
        try:
            return await loop.run_in_executor(self._executor, self._embed, items, stop)
        except asyncio.CancelledError:
            stop.set()
            raise
        finally:
            self._inflight -= 1
            if not self._inflight and not self._closed:
                self._arm(loop, self._idle_unload_s)

    def unload(self) -> None:
        """Drop the session (waits for a running embed); the next embed loads it again."""
        with self._lock:
            self._session = None

    async def aclose(self) -> None:
        """Refuse new work, let queued embeds finish, stop the worker, free the model."""
        if self._closed:
            return
        self._closed = True
        self._disarm()
        await asyncio.to_thread(self._executor.shutdown, wait=True)
        self._runners.shutdown(wait=True)
        with self._lock:
            self._session = None
            self._tokenizer = None

    # -- worker side -------------------------------------------------------------------

    def _embed(self, texts: list[str], stop: threading.Event | None) -> Vectors:
        """Tokenise, run each text alone, longest first; `stop` is checked before each."""
        if not texts:
            return _empty()
        with self._lock:
            session, tokenizer = self._ensure_loaded()
            out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
            for start in range(0, len(texts), TOKENIZE_WINDOW):
                ids = token_ids(tokenizer, texts[start : start + TOKENIZE_WINDOW])
                runs = _longest_first(ids, start)
                if self._threads == 1 or len(runs) == 1:
                    _run_texts(session, iter(runs), threading.Lock(), out, stop)
                else:
                    self._run_side_by_side(session, runs, out, stop)
            self._last_used = time.monotonic()
            return out

    def _run_side_by_side(
        self,
        session: Any,
        runs: list[Run],
        out: Vectors,
        stop: threading.Event | None,
    ) -> None:
        """Every runner takes the next text until none is left; the first error wins."""
        queue, taking = iter(runs), threading.Lock()
        runners = min(self._threads, len(runs))
        futures = [
            self._runners.submit(_run_texts, session, queue, taking, out, stop)
            for _ in range(runners)
        ]
        concurrent.futures.wait(futures)
        for future in futures:
            future.result()

    def _ensure_loaded(self) -> tuple[Any, Tokenizer]:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self._tokenizer_path or tokenizer_file())
        if self._session is None:
            self._session = load_session(self._model_path or onnx_file())
        return self._session, self._tokenizer

    # -- idle unload (event-loop side) ---------------------------------------------------

    def _arm(self, loop: asyncio.AbstractEventLoop, delay: float) -> None:
        self._disarm()
        self._timer = loop.call_later(delay, self._on_idle, loop)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_idle(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        if self._inflight or self._closed or self._session is None:
            return  # an embed in flight re-arms the timer when it ends
        idle = time.monotonic() - self._last_used
        if idle < self._idle_unload_s:  # used since, through embed_sync
            self._arm(loop, self._idle_unload_s - idle)
        elif self._lock.acquire(blocking=False):
            try:
                self._session = None
            finally:
                self._lock.release()
        else:  # busy with a direct embed_sync right now: never block the loop on it
            self._arm(loop, self._idle_unload_s)


def _longest_first(ids: list[list[int]], offset: int) -> list[Run]:
    """The texts' runs, longest first: the long ones start early, so no core idles at
    the end while another works through a long text alone."""
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
    return [(offset + row, ids[row]) for row in order]


def _run_texts(
    session: Any,
    queue: Iterator[Run],
    taking: threading.Lock,
    out: Vectors,
    stop: threading.Event | None,
) -> None:
    """Run texts from the shared queue into their rows of `out` until it is empty."""
    while True:
        if stop is not None and stop.is_set():
            raise concurrent.futures.CancelledError()
        with taking:
            run = next(queue, None)
        if run is None:
            return
        row, ids = run
        out[row] = run_text(session, ids)


def _as_list(texts: Sequence[str]) -> list[str]:
    """The texts as a list; a bare string is a caller bug (it would embed each letter)."""
    if isinstance(texts, str):
        raise TypeError("embed takes a sequence of texts, not one string")
    return list(texts)


def _empty() -> Vectors:
    return np.zeros((0, DIMENSIONS), dtype=np.float32)
