"""One native llama.cpp object behind one worker thread: lazy load, FIFO jobs, idle unload.

llama.cpp objects are not safe to use from two threads at once and their calls block for
seconds, so every native call for a model runs on that model's single worker thread
(`ThreadPoolExecutor(max_workers=1)`). The executor's FIFO queue is what serialises requests:
a second request waits for the first to finish, never interleaves with it. The model loads
on the first job (a user who never asks a question never pays the load), stays warm while
used, and is freed `idle_unload_s` after the last job so an idle app does not hold hundreds
of megabytes. Bookkeeping (in-flight count, idle timer) happens on the event loop thread
only, so it needs no locks; `guard` protects the native pointer against the one call that
may come from the loop thread (`tokenize` for an exact token count).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import llama_cpp

from v2c_desktop.core.errors import V2CError

log = logging.getLogger("v2c_desktop.core.models.llamacpp")

GGUF_MAGIC = b"GGUF"

# ggml_log_level: 1 debug, 2 info, 3 warn, 4 error, 5 continues the previous line.
_NATIVE_LEVELS = {1: logging.DEBUG, 2: logging.DEBUG, 3: logging.WARNING, 4: logging.ERROR}
_last_native_level = logging.DEBUG
_routed = False


@llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
def _forward_native_log(level: int, text: bytes | None, _user_data: ctypes.c_void_p) -> None:
    global _last_native_level
    if not text:
        return
    mapped = _NATIVE_LEVELS.get(level, _last_native_level)
    _last_native_level = mapped
    message = text.decode("utf-8", "replace").rstrip()
    if message:
        log.log(mapped, "llama.cpp: %s", message)


def route_native_logs() -> None:
    """Send llama.cpp's own log lines to Python logging instead of stderr.

    `verbose=False` alone still lets warnings through (the bundled callback misreads the
    level numbers), and a desktop app or a CLI piping JSON must not get native chatter on
    stderr. Loading a model logs hundreds of info lines; they become DEBUG records.
    """
    global _routed
    if not _routed:
        llama_cpp.llama_log_set(_forward_native_log, ctypes.c_void_p(0))
        _routed = True


NativeT = TypeVar("NativeT", bound="Closable")
R = TypeVar("R")


class Closable(Protocol):
    """What the host needs of a native object: a way to free it now."""

    def close(self) -> None: ...


def thread_count(requested: int | None) -> int:
    """Threads for generation (half the cores by default), and for all of a user's choice.

    llama-cpp-python's own default gives decoding *every* core; ggml threads busy-wait, so
    with anything else running (the UI, an import, the embedder) token generation
    collapsed here from ~45 to ~14 tokens/s on 2 cores, where one thread kept ~40. Half
    the cores keeps it steady and leaves room for the rest of the app.
    """
    if requested is not None and requested > 0:
        return requested
    return max(1, (os.cpu_count() or 2) // 2)


def batch_thread_count(requested: int | None) -> int:
    """Threads for prompt (batch) decoding: every core up to 2, one less above.

    Prefill is what the user waits for before the first token, and it is one large
    matrix product per layer that shares out well: on 2 idle cores two threads prefilled
    the test model at ~245 tokens/s where one did ~130 (bench/llamacpp_tuning.py). Under
    contention it does not collapse as generation does (one core busy: ~85-120 against
    ~115-130 for one thread). Above 2 cores one is left for the UI. A user's thread
    setting applies to both.
    """
    if requested is not None and requested > 0:
        return requested
    cores = os.cpu_count() or 2
    return cores if cores <= 2 else cores - 1


def check_gguf(path: Path, model_id: str) -> None:
    """Typed errors for a missing file or a non-GGUF one, before llama.cpp sees it.

    llama.cpp may crash the process on a file that is not a GGUF, so the 4-byte magic is
    read here first.
    """
    if not path.is_file():
        raise V2CError(
            "not-found",
            f"Model file for {model_id} not found: {path}",
            f"download it with `v2c models pull {model_id}` "
            "or add a local file with `v2c models add PATH`",
            {"model": model_id, "path": str(path)},
        )
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise V2CError(
            "bad-request",
            f"{path.name} is not a GGUF model file (it starts with {magic!r}, not b'GGUF')",
            "llama.cpp models are .gguf files; convert the model or pick another file",
            {"model": model_id, "path": str(path)},
        )


def load_gguf(factory: Callable[..., NativeT], path: Path, model_id: str, **params: Any) -> NativeT:
    """Check the file, quieten llama.cpp, build the object; a load failure is typed."""
    check_gguf(path, model_id)
    route_native_logs()
    try:
        return factory(model_path=str(path), verbose=False, **params)
    except ValueError as error:  # llama-cpp-python's "Failed to load model from file"
        raise V2CError(
            "bad-request",
            f"llama.cpp could not load {path.name}: {error}",
            "the file may be damaged, or need a newer llama.cpp",
            {"model": model_id, "path": str(path)},
        ) from error


class NativeHost(Generic[NativeT]):
    """Owns one native object (a `Llama`) and the single thread allowed to touch it."""

    def __init__(
        self,
        *,
        model_id: str,
        load: Callable[[], NativeT],
        idle_unload_s: float,
    ) -> None:
        self.model_id = model_id
        self.idle_unload_s = idle_unload_s
        self.loads = 0
        self.load_ms: float | None = None
        self.guard = threading.Lock()
        self._load = load
        self._native: NativeT | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._in_flight = 0
        self._idle: asyncio.TimerHandle | None = None

    @property
    def loaded(self) -> bool:
        return self._native is not None

    @property
    def in_flight(self) -> int:
        """Jobs queued or running on the worker (read on the loop thread)."""
        return self._in_flight

    @property
    def current(self) -> NativeT | None:
        """The loaded object or None; hold `guard` while using it off the worker thread."""
        return self._native

    def native(self) -> NativeT:
        """The loaded object, loading it first if needed. Worker thread only."""
        native = self._native
        if native is None:
            started = time.perf_counter()
            native = self._load()
            self.load_ms = (time.perf_counter() - started) * 1000
            self.loads += 1
            with self.guard:
                self._native = native
            log.debug("loaded %s in %.0f ms", self.model_id, self.load_ms)
        return native

    def submit(self, job: Callable[[NativeHost[NativeT]], R]) -> concurrent.futures.Future[R]:
        """Queue `job(self)` on the worker thread; call from the event loop thread.

        The returned future finishes when the native work has really ended, so the
        in-flight count (and the idle timer) never runs ahead of the worker.
        """
        loop = asyncio.get_running_loop()
        self._cancel_idle()
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix=f"llamacpp:{self.model_id}"
            )
        self._in_flight += 1
        future = self._executor.submit(job, self)

        def finished(_: concurrent.futures.Future[R]) -> None:
            # A closed loop has nobody left to time an idle unload: nothing to do then.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._job_finished, loop)

        future.add_done_callback(finished)
        return future

    async def run(self, job: Callable[[NativeHost[NativeT]], R]) -> R:
        """Run `job(self)` on the worker and wait for its result."""
        return await asyncio.wrap_future(self.submit(job))

    async def aclose(self) -> None:
        """Free the native object and stop the thread (after any queued jobs)."""
        self._cancel_idle()
        # Detach first: jobs finishing meanwhile must not shut this executor down under us.
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.wrap_future(executor.submit(self._unload))
            executor.shutdown(wait=False)
        self._cancel_idle()  # a job that finished during the await may have armed one

    def _unload(self) -> None:
        with self.guard:
            native, self._native = self._native, None
            if native is not None:
                native.close()
                log.debug("unloaded %s", self.model_id)

    def _job_finished(self, loop: asyncio.AbstractEventLoop) -> None:
        self._in_flight -= 1
        if self._in_flight:
            return
        if self._native is not None:
            if math.isfinite(self.idle_unload_s):
                self._idle = loop.call_later(max(0.0, self.idle_unload_s), self._on_idle)
        elif self._executor is not None:
            # Nothing loaded and nothing queued: let the thread go until the next request.
            executor, self._executor = self._executor, None
            executor.shutdown(wait=False)

    def _on_idle(self) -> None:
        self._idle = None
        if self._in_flight == 0 and self._native is not None and self._executor is not None:
            self.submit(lambda host: host._unload())

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
