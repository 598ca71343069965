"""The client's side: call the owner's methods as if the object were here.

One connection carries many calls at once; a reader task routes each reply to the call
with its id. When the connection drops, every call waiting on it fails with `OwnerGone`
so the session can elect a new owner and retry. Only data crosses the socket: a callable
`progress=` argument is kept here and fed from the owner's progress messages; any other
function argument is refused before anything is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import AsyncGenerator
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from ..errors import V2CError
from ..progress import ProgressCallback
from ..wire_codec import decode, encode, error_from_wire
from . import protocol
from .protocol import LINE_LIMIT, Message, OwnerGone

log = logging.getLogger(__name__)
_GONE: Message = {"gone": True}  # pushed to every waiting call when the connection drops


class OwnerClient:
    """A connection to a library's owner; `connect()` before use, `aclose()` after."""

    def __init__(self, path: Path, *, client_name: str, hello_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.client_name = client_name
        self.owner_pid: int | None = None
        self.methods: frozenset[str] = frozenset()
        self._hello_timeout = hello_timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Queue[Message]] = {}
        self._ids = itertools.count(1)
        self._gone = False
        self._closed = False

    @property
    def connected(self) -> bool:
        return self._writer is not None and not self._gone

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The transport seam (a Windows named pipe would be opened here)."""
        return await asyncio.open_unix_connection(str(self.path), limit=LINE_LIMIT)

    async def connect(self) -> None:
        """Connect and introduce ourselves; OSError when nobody listens, OwnerGone when
        the owner does not answer the hello, V2CError when it refuses us."""
        reader, writer = await self._open()
        writer.write(protocol.dumps(protocol.client_hello(os.getpid(), self.client_name)))
        try:
            async with asyncio.timeout(self._hello_timeout):
                await writer.drain()
                line = await reader.readline()
            answer = protocol.loads(line) if line.endswith(b"\n") else {}
        except (TimeoutError, ConnectionError, ValueError, V2CError) as exc:
            writer.close()
            raise OwnerGone(f"the library's owner at {self.path} did not answer: {exc}") from exc
        hello = answer.get("hello")
        if not isinstance(hello, dict):
            writer.close()
            if "error" in answer:
                raise error_from_wire(answer["error"])
            raise OwnerGone(f"the library's owner at {self.path} closed the connection")
        pid = hello.get("pid")
        self.owner_pid = pid if isinstance(pid, int) else None
        self.methods = frozenset(str(m) for m in hello.get("methods") or ())
        self._reader, self._writer = reader, writer
        self._reader_task = asyncio.create_task(self._read(reader))

    async def rename(self, client_name: str) -> None:
        """Tell the owner our new name (a repeated hello); kept for the next connection too.
        OwnerGone when the owner is gone (the session re-elects with the new name)."""
        self.client_name = client_name
        if self._writer is None:
            return  # not connected yet: `connect` introduces us by the new name
        hello = protocol.client_hello(os.getpid(), client_name)
        await self._send("rename", hello)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line.endswith(b"\n"):
                    break
                try:
                    message = protocol.loads(line)
                except V2CError:
                    log.warning("ignoring a malformed message from the library's owner")
                    continue
                call_id = message.get("id")
                queue = self._pending.get(call_id) if isinstance(call_id, int) else None
                if queue is not None:
                    queue.put_nowait(message)
                elif "error" in message:
                    log.warning("library owner: %s", protocol.clip(message["error"]))
        except (ConnectionError, ValueError):
            pass
        finally:
            self._gone = True
            for queue in self._pending.values():
                queue.put_nowait(_GONE)

    def _gone_error(self, method: str) -> V2CError:
        if self._closed:
            return V2CError("bad-request", "this connection to the library's owner is closed")
        return OwnerGone(
            f"the library's owner process (pid {self.owner_pid}) went away during {method}",
            {"pid": self.owner_pid, "method": method},
        )

    async def _send(self, method: str, message: Message) -> None:
        if self._writer is None or self._gone or self._closed:
            raise self._gone_error(method)
        self._writer.write(protocol.dumps(message))
        try:
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise self._gone_error(method) from exc

    def _cancel(self, call_id: int) -> None:
        if self._writer is not None and not self._gone and not self._writer.is_closing():
            self._writer.write(protocol.dumps(protocol.cancel(call_id)))

    def _request(
        self, method: str, args: tuple[Any, ...], params: dict[str, Any]
    ) -> tuple[int, Message, ProgressCallback | None]:
        progress = params.pop("progress", None) if callable(params.get("progress")) else None
        try:
            wire_args, wire_params = encode(list(args)), encode(params)
        except TypeError as exc:
            raise V2CError(
                "bad-request",
                f"{method}: {exc}",
                "only data and a `progress` callback can be passed to the library's owner",
            ) from None
        call_id = next(self._ids)
        self._pending[call_id] = asyncio.Queue()
        message = protocol.request(
            call_id, method, wire_params, wire_args, progress=progress is not None
        )
        return call_id, message, progress

    async def _next_reply(
        self, queue: asyncio.Queue[Any], method: str, progress: Any
    ) -> dict[str, Any]:
        """The next reply that is not a progress report (those go to `progress`); raises
        when the owner is gone. Shared by `call` and `stream`."""
        while True:
            reply = await queue.get()
            if reply is _GONE:
                raise self._gone_error(method)
            if "progress" not in reply:
                return cast("dict[str, Any]", reply)
            if progress is not None:
                progress(decode(reply["progress"]))

    async def call(self, method: str, /, *args: Any, **params: Any) -> Any:
        """Run `method` in the owner and return its result (or raise its V2CError)."""
        call_id, message, progress = self._request(method, args, params)
        queue, settled = self._pending[call_id], False
        try:
            await self._send(method, message)
            while True:
                reply = await self._next_reply(queue, method, progress)
                settled = "item" not in reply
                if "error" in reply:
                    raise error_from_wire(reply["error"])
                if "result" in reply:
                    return decode(reply["result"])
                raise V2CError("bad-request", f"{method} is a stream: use `async for`, not await")
        finally:
            del self._pending[call_id]
            if not settled:
                self._cancel(call_id)

    async def stream(self, method: str, /, *args: Any, **params: Any) -> AsyncGenerator[Any, None]:
        """Iterate what `method` yields in the owner; leaving the loop early cancels it there."""
        call_id, message, progress = self._request(method, args, params)
        queue, settled = self._pending[call_id], False
        try:
            await self._send(method, message)
            while True:
                reply = await self._next_reply(queue, method, progress)
                if "item" in reply:
                    yield decode(reply["item"])
                    continue
                settled = True
                if "end" in reply:
                    return
                if "error" in reply:
                    raise error_from_wire(reply["error"])
                raise V2CError("bad-request", f"{method} is not a stream: await it instead")
        finally:
            del self._pending[call_id]
            if not settled:
                self._cancel(call_id)

    async def aclose(self) -> None:
        self._closed = True
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader_task

    async def __aenter__(self) -> OwnerClient:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
