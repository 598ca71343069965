"""A small served object with every kind of method the owner has to carry, and test helpers."""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.library_lock import LibraryLock
from v2c_desktop.core.progress import Progress, ProgressCallback, ignore_progress

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], timeout: float = 20.0) -> T:
    """Run a test coroutine with a deadline, so a hung socket fails instead of hanging."""

    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coro

    return asyncio.run(bounded())


def short_dir() -> Path:
    """A fresh directory under /tmp: socket paths must stay under ~100 bytes."""
    return Path(tempfile.mkdtemp(prefix="v2c-t-", dir="/tmp"))


def remove_dir(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


async def eventually(check: Any, timeout: float = 15.0) -> None:
    """Poll `check` until it holds; the deadline only turns a hang into a failure."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


class Toy:
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.streams_closed = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = False

    async def echo(self, value: object) -> object:
        return value

    async def add(self, a: int, b: int = 0) -> int:
        return a + b

    async def kind_of(self, names: tuple[str, ...]) -> str:
        return type(names).__name__

    async def count(self, n: int) -> AsyncIterator[int]:
        try:
            for i in range(n):
                yield i
                await asyncio.sleep(0)
        finally:
            self.streams_closed += 1

    async def ticks(self, n: int, delay: float) -> AsyncIterator[int]:
        for i in range(n):
            yield i
            await asyncio.sleep(delay)

    async def then_wait(self, n: int) -> AsyncIterator[int]:
        """0 .. n-1, then nothing until cancelled: a stream still open when it is cut."""
        for i in range(n):
            yield i
        await asyncio.Event().wait()

    async def work(self, steps: int, progress: ProgressCallback = ignore_progress) -> int:
        for i in range(steps):
            progress(Progress("work", i + 1, steps, f"step {i + 1}"))
            await asyncio.sleep(0)
        return steps

    async def threaded_work(self, steps: int, progress: ProgressCallback = ignore_progress) -> int:
        def job() -> int:
            for i in range(steps):
                progress(Progress("thread", i + 1, steps))
            return steps

        return await asyncio.to_thread(job)

    async def slow(self, seconds: float = 60.0) -> str:
        self.started.set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return "done"

    async def jitter(self, i: int) -> int:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(random.random() / 100)
        finally:
            self.in_flight -= 1
        return i

    async def fail_v2c(self) -> None:
        raise V2CError("not-found", "no such video", "list videos first", {"ref": "x"})

    async def fail_value(self) -> None:
        raise ValueError("broken\nsecret second line")

    async def bad_result(self) -> object:
        return object()

    def sync_method(self) -> int:
        return 1

    def numbers(self) -> AsyncIterator[int]:
        """Not a coroutine: returns an async iterator (served only when named)."""
        return self.count(3)

    async def _private(self) -> int:
        return 1

    async def aclose(self) -> None:
        self.closed = True


class LockedToy(Toy):
    """A Toy that holds a library's lock, as real services do through open_library."""

    def __init__(self, library: Path) -> None:
        super().__init__()
        self.lock = LibraryLock(library)
        self.lock.acquire()  # raises library-in-use when another holder has it

    async def aclose(self) -> None:
        await super().aclose()
        self.lock.release()


def maker(library: Path, made: list[LockedToy]) -> Any:
    async def make_target() -> LockedToy:
        toy = LockedToy(library)
        made.append(toy)
        return toy

    return make_target


def later(delay: float, coro: Awaitable[T]) -> asyncio.Task[T]:
    async def go() -> T:
        await asyncio.sleep(delay)
        return await coro

    return asyncio.create_task(go())
