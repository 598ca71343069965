"""The owner's side: serve one object's async methods to other processes over a local socket.

The socket is a Unix domain socket in a 0700 directory, itself chmod 0600, so only this user
can reach the library; on Linux each peer's user id is checked as well (SO_PEERCRED), so a
socket reached some other way still serves nobody else, and at most
`protocol.MAX_CONNECTIONS` clients are served at once. A socket file left by an owner
killed with SIGKILL is detected (nobody accepts on it) and replaced; a socket someone still
answers on is never taken over.

Windows: only `start()` (asyncio.start_unix_server) and `OwnerClient._open()`
(asyncio.open_unix_connection) know the transport. A named-pipe transport would go exactly
there (`\\\\.\\pipe\\v2c-<hash>` through the proactor loop's `start_serving_pipe` and
`create_pipe_connection`, with a user-only security descriptor); everything above them works
on (reader, writer) streams and would not change. It is not implemented yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import stat
import struct
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from ..errors import V2CError
from ..wire_codec import error_to_wire
from . import protocol
from .connection import ConnectedClient, Connection
from .dispatch import MethodTable
from .protocol import HELLO_TIMEOUT_S, MAX_CONNECTIONS, REQUEST_LINE_LIMIT
from .runtime import ensure_private_dir

log = logging.getLogger(__name__)


def own_uid() -> int | None:
    """The effective user id peers must have (None where the platform has no user ids)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def peer_uid(writer: asyncio.StreamWriter) -> int | None:
    """The user id of the process at the other end, where the platform tells (Linux's
    SO_PEERCRED); None elsewhere, and the 0700 directory is then the only check."""
    option = getattr(socket, "SO_PEERCRED", None)
    sock = writer.get_extra_info("socket")
    if option is None or sock is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


def _probe(path: Path) -> bool:
    """True when some process accepts connections on the socket at `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return False
        except OSError:
            return True  # a timeout: someone is there but busy; do not take it over
        return True


async def clear_stale_socket(path: Path) -> None:
    """Remove a socket file nobody answers on; refuse a live one or a non-socket file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise V2CError(
            "internal",
            f"{path} exists and is not a socket",
            "remove that file; v2c keeps only its library sockets in this folder",
        )
    if await asyncio.to_thread(_probe, path):
        raise V2CError(
            "library-in-use",
            f"another process already serves the socket {path}",
            "close the other v2c program that has this library open",
            {"socket": str(path)},
        )
    log.info("removing the stale socket %s", path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


class OwnerServer:
    """Serves `target`'s allowed methods to every client connected to `path`.

    `methods` names the callable methods; None means every public coroutine or
    async-generator method except `aclose`. `grace` is how long `aclose` lets calls in
    flight finish before cancelling them (clients then retry them with the next owner).
    """

    def __init__(
        self,
        target: object,
        path: Path,
        *,
        methods: frozenset[str] | None = None,
        on_clients_changed: Callable[[list[ConnectedClient]], None] | None = None,
        grace: float = 2.0,
        max_connections: int = MAX_CONNECTIONS,
        hello_timeout: float = HELLO_TIMEOUT_S,
    ) -> None:
        self.target = target
        self.hello_timeout = hello_timeout
        self.path = Path(path)
        self.table = MethodTable(target, methods)
        self.grace = grace
        self.max_connections = max_connections
        self._on_clients_changed = on_clients_changed
        self._server: asyncio.Server | None = None
        self._inode: int | None = None
        self._connections: dict[Connection, asyncio.Task[None] | None] = {}
        self._numbers = 0

    @property
    def methods(self) -> frozenset[str]:
        return self.table.names

    @property
    def serving(self) -> bool:
        return self._server is not None

    async def start(self) -> None:
        """Bind the socket (replacing a stale one) and start accepting clients."""
        if self._server is not None:
            return
        ensure_private_dir(self.path.parent)
        await clear_stale_socket(self.path)
        self._server = await asyncio.start_unix_server(
            self._accept, path=str(self.path), limit=REQUEST_LINE_LIMIT
        )
        # The 0700 directory already keeps others out; the mode covers platforms that
        # only check the socket file itself.
        os.chmod(self.path, 0o600)
        self._inode = os.stat(self.path).st_ino

    def clients(self) -> list[ConnectedClient]:
        """The processes connected right now that introduced themselves, oldest first."""
        found = [c.client for c in self._connections if c.client is not None]
        return sorted(found, key=lambda c: (c.connected_at, c.connection))

    def _clients_changed(self) -> None:
        if self._on_clients_changed is None:
            return
        try:
            self._on_clients_changed(self.clients())
        except Exception:  # a listener's bug must not take a client down
            log.exception("on_clients_changed failed")

    async def _refuse(self, writer: asyncio.StreamWriter, refusal: V2CError) -> None:
        """Tell a client why it is not served (best effort) and hang up."""
        with contextlib.suppress(ConnectionError, RuntimeError):
            writer.write(protocol.dumps(protocol.error(None, error_to_wire(refusal))))
            await writer.drain()
        writer.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        uid, mine = peer_uid(writer), own_uid()
        if uid is not None and mine is not None and uid != mine:
            log.warning("refused a connection from user %s to the library's owner", uid)
            await self._refuse(
                writer,
                V2CError(
                    "bad-request",
                    f"this library's owner serves only its own user, not user {uid}",
                    "open the library as the user who owns it",
                ),
            )
            return
        if len(self._connections) >= self.max_connections:
            log.warning("refused a connection: %s clients are connected", len(self._connections))
            await self._refuse(
                writer,
                V2CError(
                    "library-in-use",
                    f"the library's owner already serves {self.max_connections} clients",
                    "close some of the programs using this library and try again",
                ),
            )
            return
        self._numbers += 1
        connection = Connection(
            self._numbers,
            self.table,
            reader,
            writer,
            self._clients_changed,
            self.hello_timeout,
        )
        if self._server is None:  # accepted just as we started closing
            await connection.abort()
            return
        self._connections[connection] = asyncio.current_task()
        try:
            await connection.run()
        finally:
            del self._connections[connection]
            if connection.client is not None:
                self._clients_changed()

    async def aclose(self, *, grace: float | None = None) -> None:
        """Stop accepting, let calls in flight finish (up to `grace` s), close, unlink."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        connections = list(self._connections)
        for connection in connections:
            connection.accepting = False
        running = [t for c in connections for t in c.tasks.values()]
        if running:
            await asyncio.wait(running, timeout=self.grace if grace is None else grace)
        for connection in connections:
            await connection.abort()
        handlers = [t for t in self._connections.values() if t is not None]
        if handlers:
            await asyncio.wait(handlers, timeout=5.0)
        await server.wait_closed()
        self._unlink()

    def _unlink(self) -> None:
        """Remove our socket file, unless another server has bound a new one there since."""
        with contextlib.suppress(FileNotFoundError):
            if os.lstat(self.path).st_ino == self._inode:
                self.path.unlink()

    async def __aenter__(self) -> OwnerServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
