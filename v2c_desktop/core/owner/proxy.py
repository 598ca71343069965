"""`RemoteProxy`: an object whose async methods run wherever its caller sends them.

`await proxy.list_videos(collection="x")` and `async for hit in proxy.watch()` read like
calls on the real object. Positional arguments are sent as a list and bound by the real
signature in the owner, so they work too; the owner reports a wrong argument exactly as the
local call would. Whether a call is awaited or iterated decides how it is sent, so one
object serves both plain and streaming methods. Only async methods are reachable.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Generator
from typing import Any, Protocol


class Caller(Protocol):
    """What carries a call: an `OwnerClient`, or a `Session` that re-elects and retries."""

    def call(self, method: str, /, *args: Any, **params: Any) -> Coroutine[Any, Any, Any]: ...

    def stream(self, method: str, /, *args: Any, **params: Any) -> AsyncIterator[Any]: ...


class RemoteCall(Coroutine[Any, Any, Any]):
    """One call, sent when awaited (a result) or iterated (a stream), not before.

    It is a Coroutine so `asyncio.create_task(proxy.slow())` works as it does locally; the
    real coroutine is made on first use, so a call that is only iterated leaves no
    never-awaited coroutine behind.
    """

    def __init__(self, caller: Caller, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]):
        self._caller, self._name, self._args, self._kwargs = caller, name, args, kwargs
        self._coro: Coroutine[Any, Any, Any] | None = None

    def _coroutine(self) -> Coroutine[Any, Any, Any]:
        if self._coro is None:
            self._coro = self._caller.call(self._name, *self._args, **self._kwargs)
        return self._coro

    def __await__(self) -> Generator[Any, None, Any]:
        return self._coroutine().__await__()

    def send(self, value: Any) -> Any:
        return self._coroutine().send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        return self._coroutine().throw(typ, val, tb)

    def close(self) -> None:
        if self._coro is not None:
            self._coro.close()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._caller.stream(self._name, *self._args, **self._kwargs).__aiter__()


class RemoteMethod:
    def __init__(self, caller: Caller, name: str) -> None:
        self._caller, self.__name__ = caller, name

    def __call__(self, *args: Any, **kwargs: Any) -> RemoteCall:
        return RemoteCall(self._caller, self.__name__, args, kwargs)

    def __repr__(self) -> str:
        return f"<remote method {self.__name__}>"


class RemoteProxy:
    """Stands in for the owner's object; every public attribute is a remote method."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    def __getattr__(self, name: str) -> RemoteMethod:
        if name.startswith("_"):
            raise AttributeError(name)
        return RemoteMethod(self._caller, name)

    def __repr__(self) -> str:
        return f"<RemoteProxy via {self._caller!r}>"
