"""One client connection on the owner's side: its hello, its calls, their cancellation.

Every request runs in its own task so a slow import never holds up a quick list from the
same client, and replies carry the request's id so they can come back in any order. A
dropped connection cancels whatever it had running: nobody is left to read the answers.
A client introduces itself (`hello`) before anything else, within `hello_timeout` seconds
of connecting (else it is told so and closed: it would hold a place under the connection
cap for ever); a request longer than `protocol.REQUEST_LINE_LIMIT` is answered with an
error and the connection closed.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ..errors import V2CError
from ..progress import Progress
from ..wire_codec import encode, error_to_wire, register
from . import protocol
from .dispatch import MethodTable

log = logging.getLogger(__name__)


@register
@dataclass(frozen=True, slots=True)
class ConnectedClient:
    """A process using the library through this owner (what the GUI lists as connected)."""

    name: str
    pid: int | None
    connected_at: float  # seconds since the epoch
    connection: int


class _Closed(Exception):
    """The peer went away while we were writing to it."""


def client_name(value: object) -> str:
    """The name a client gave, as one line of at most 200 characters (it is shown)."""
    text = " ".join(str(value or "").split())
    printable = "".join(c for c in text if c.isprintable())
    return printable[:200] or "unknown"


def _bad(message: str) -> dict[str, Any]:
    return error_to_wire(V2CError("bad-request", message))


class Connection:
    def __init__(
        self,
        number: int,
        table: MethodTable,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_hello: Callable[[], None],
        hello_timeout: float = protocol.HELLO_TIMEOUT_S,
    ) -> None:
        self.number = number
        self.hello_timeout = hello_timeout
        self.client: ConnectedClient | None = None
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.accepting = True  # False while the owner shuts down: new calls wait for the next
        self._table = table
        self._reader = reader
        self._writer = writer
        self._on_hello = on_hello
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    # -- writing ----------------------------------------------------------------------------
    def _write_now(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    async def send(self, message: protocol.Message) -> None:
        if self._writer.is_closing():
            raise _Closed
        self._writer.write(protocol.dumps(message))
        try:
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise _Closed from exc

    def _progress_sender(self, call_id: int) -> Callable[[Progress], None]:
        def send_progress(event: Progress) -> None:
            data = protocol.dumps(protocol.progress(call_id, encode(event)))
            if threading.get_ident() == self._loop_thread:
                self._write_now(data)
            else:  # a method reporting from a worker thread
                self._loop.call_soon_threadsafe(self._write_now, data)

        return send_progress

    # -- reading ----------------------------------------------------------------------------
    async def run(self) -> None:
        """Serve this connection until the client leaves (or the owner closes it)."""
        try:
            while True:
                try:
                    if self.client is None:
                        line = await asyncio.wait_for(self._reader.readline(), self.hello_timeout)
                    else:
                        line = await self._reader.readline()
                except TimeoutError:
                    await self._refuse_silence()
                    break
                except ConnectionError:
                    break
                except ValueError:  # a line over the reader's limit
                    await self._refuse_long_line()
                    break
                if not line.endswith(b"\n"):
                    break
                try:
                    await self._handle(line)
                except _Closed:
                    break
        finally:
            await self.abort()

    async def _refuse_long_line(self) -> None:
        mib = protocol.REQUEST_LINE_LIMIT // (1024 * 1024)
        log.warning("closing owner connection %s: a message over %s MiB", self.number, mib)
        refusal = V2CError(
            "bad-request",
            f"a message to the library's owner may hold at most {mib} MiB; this one was longer",
            "pass less at once (fewer or smaller arguments)",
        )
        with suppress(_Closed):
            await self.send(protocol.error(None, error_to_wire(refusal)))

    async def _refuse_silence(self) -> None:
        log.warning(
            "closing owner connection %s: no hello within %s s", self.number, self.hello_timeout
        )
        refusal = V2CError(
            "bad-request",
            f"no hello within {self.hello_timeout:g} s of connecting to the library's owner",
            "a client introduces itself first; connect again when ready",
        )
        with suppress(_Closed):
            await self.send(protocol.error(None, error_to_wire(refusal)))

    async def abort(self) -> None:
        """Cancel this connection's calls and close it."""
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._writer.close()

    async def _handle(self, line: bytes) -> None:
        try:
            message = protocol.loads(line)
        except V2CError as exc:
            await self.send(protocol.error(None, error_to_wire(exc)))
            return
        if "hello" in message:
            await self._hello(message["hello"])
            return
        call_id = message.get("id")
        if self.client is None:  # nothing is served to a client that has not said who it is
            wire_id = (
                call_id if isinstance(call_id, int) and not isinstance(call_id, bool) else None
            )
            await self.send(protocol.error(wire_id, _bad("send hello before any request")))
            return
        if not isinstance(call_id, int) or isinstance(call_id, bool):
            await self.send(protocol.error(None, _bad("a request needs an integer id")))
            return
        if message.get("cancel"):
            task = self.tasks.get(call_id)
            if task is not None:
                task.cancel()
            return
        if not self.accepting:
            return  # never started: the client retries it with the next owner
        method, params = message.get("method"), message.get("params") or {}
        args = message.get("args") or []
        if not isinstance(method, str) or not isinstance(params, dict):
            await self.send(protocol.error(call_id, _bad("a request needs method and params")))
            return
        if not isinstance(args, list) or call_id in self.tasks:
            await self.send(protocol.error(call_id, _bad("bad args or a reused request id")))
            return
        task = asyncio.create_task(
            self._run(call_id, method, args, params, bool(message.get("progress")))
        )
        self.tasks[call_id] = task
        task.add_done_callback(lambda done: self._forget(call_id, done))

    def _forget(self, call_id: int, task: asyncio.Task[None]) -> None:
        if self.tasks.get(call_id) is task:
            del self.tasks[call_id]

    async def _hello(self, hello: object) -> None:
        if not isinstance(hello, dict) or hello.get("version") != protocol.PROTOCOL_VERSION:
            version = hello.get("version") if isinstance(hello, dict) else None
            refusal = V2CError(
                "bad-request",
                f"this library's owner speaks protocol {protocol.PROTOCOL_VERSION}, "
                f"the client {protocol.clip(version)}",
                "run the same version of v2c in every program that opens this library",
            )
            await self.send(protocol.error(None, error_to_wire(refusal)))
            raise _Closed
        pid = hello.get("pid")
        first = self.client is None
        self.client = ConnectedClient(
            name=client_name(hello.get("client")),
            pid=pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
            connected_at=time.time() if self.client is None else self.client.connected_at,
            connection=self.number,
        )
        if first:  # a repeated hello only renames the client (see `protocol`)
            await self.send(protocol.owner_hello(os.getpid(), self._table.names))
        self._on_hello()

    # -- calls ------------------------------------------------------------------------------
    async def _run(
        self, call_id: int, method: str, args: list[Any], params: dict[str, Any], progress: bool
    ) -> None:
        try:
            try:
                sender = self._progress_sender(call_id) if progress else None
                outcome = self._table.call_from_wire(method, args, params, sender)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
                if hasattr(outcome, "__anext__"):
                    await self._stream(call_id, outcome)
                else:
                    await self.send(protocol.result(call_id, encode(outcome)))
            except (_Closed, asyncio.CancelledError):
                raise
            except Exception as exc:
                if not isinstance(exc, V2CError):
                    log.exception("owner call %s failed", method)
                await self.send(protocol.error(call_id, error_to_wire(exc)))
        except _Closed:
            return

    async def _stream(self, call_id: int, items: Any) -> None:
        try:
            async for value in items:
                await self.send(protocol.item(call_id, encode(value)))
        finally:
            close = getattr(items, "aclose", None)
            if close is not None:
                await close()
        await self.send(protocol.end(call_id))
