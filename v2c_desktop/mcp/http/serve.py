"""`v2c mcp --http HOST:PORT`: the same server over Streamable HTTP, for clients that cannot
start a process.

The socket is bound first, so a port in use fails at once with a hint (and port 0 picks a
free one, known before anything else starts). Then uvicorn serves `http_app` on it: its
start-up opens the library (as its owner, or a client of the app that owns it), and
`on_ready(url)` is called once requests are answered. Only loopback addresses may be bound
unless `allow_remote`; tools that write the user's files are never served over HTTP
(`server.USER_FILE_TOOLS`), and with `allow_remote` a client's MCP roots (folders on *its*
computer) grant nothing here: only the user's `agents.allowed_folders` do.

SIGINT and SIGTERM stop the server gracefully (open streams get a few seconds), and so
does the end of stdin with `exit_with_stdin` (the app starts it that way, so a server never
outlives the app that started it).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.settings import load_settings

from ..deps import Deps
from ..server import build_server
from ..stdio import configure_logging
from .app import MCP_PATH, http_app
from .auth import TokenBook
from .hosts import HostPolicy, ip_of, is_loopback, split_host
from .ratelimit import RateLimiter

GRACE_S = 3
BIND_HINT = "give HOST:PORT, e.g. 127.0.0.1:8732 (port 0: any free port)"


@dataclass(frozen=True)
class Bind:
    """Where the server listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}{MCP_PATH}"


def parse_bind(text: str) -> Bind:
    """`127.0.0.1:8732`, `localhost:0`, `[::1]:8732`, or a bare port (on 127.0.0.1)."""
    text = text.strip()
    if text.isdigit():
        text = f"127.0.0.1:{text}"
    parts = split_host(text)
    if parts is None or parts[1] is None or not 0 <= parts[1] <= 65535:
        raise bad_request(f"{text!r} is not an address to listen on", BIND_HINT)
    return Bind(parts[0], parts[1])


def open_socket(bind: Bind) -> socket.socket:
    """A socket bound to `bind` (not listening yet); a clear error when it cannot be."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            bind.host, bind.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise bad_request(f"cannot listen on {bind.host}: {exc.strerror}", BIND_HINT) from exc
    sock = socket.socket(family, kind, proto)
    try:
        if sys.platform != "win32":  # Windows' SO_REUSEADDR lets two servers share a port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise bad_request(
                f"port {bind.port} on {bind.host} is in use by another program",
                "choose another port, or 0 for any free one",
            ) from exc
        raise bad_request(f"cannot listen on {bind.host}:{bind.port}: {exc}", BIND_HINT) from exc
    return sock


class _Server(uvicorn.Server):
    """uvicorn that says when it answers, and stops on signals without re-raising them."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and not self.should_exit:
            self._on_ready()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        handled = (signal.SIGINT, signal.SIGTERM)
        added = []
        for sig in handled:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows
                loop.add_signal_handler(sig, self.stop)
                added.append(sig)
        try:
            yield
        finally:
            for sig in added:
                loop.remove_signal_handler(sig)

    def stop(self) -> None:
        """Stop after open requests (and streams, for `GRACE_S` at most), then close the
        library; asking again changes nothing (the end of stdin and SIGTERM both come)."""
        self.should_exit = True


def _watch_stdin(loop: asyncio.AbstractEventLoop, server: _Server) -> None:
    """Stop `server` when stdin ends (the process that started us is gone)."""

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            while sys.stdin.buffer.read(4096):
                pass
        with contextlib.suppress(RuntimeError):  # the loop closed first
            loop.call_soon_threadsafe(server.stop)

    threading.Thread(target=read, name="v2c-stdin-watch", daemon=True).start()


async def serve_http(
    library: Path,
    bind: Bind,
    *,
    allow_remote: bool = False,
    exit_with_stdin: bool = False,
    on_ready: Callable[[str], None] = lambda _url: None,
) -> None:
    """Serve `library` over HTTP on `bind` until a signal (or stdin's end) stops it."""
    if not bind.loopback and not allow_remote:
        raise bad_request(
            f"{bind.host} is not a loopback address: other computers could connect",
            "listen on 127.0.0.1 (the default), or pass --allow-remote if you mean it",
        )
    configure_logging()
    settings = load_settings().mcp_http
    sock = open_socket(bind)
    try:
        port = sock.getsockname()[1]
        server = _server(
            bind, port, library, settings.requests_per_minute, settings.burst, on_ready
        )
        if exit_with_stdin:
            _watch_stdin(asyncio.get_running_loop(), server)
        await server.serve(sockets=[sock])
    finally:
        sock.close()


def _server(
    bind: Bind,
    port: int,
    library: Path,
    per_minute: int,
    burst: int,
    on_ready: Callable[[str], None],
) -> _Server:
    """uvicorn serving the guarded MCP app for `library` on `port`."""
    remote = not bind.loopback
    deps = Deps(library=library, client_name=f"v2c mcp --http :{port}")
    if remote:
        deps.roots = _no_roots
    names = {bind.host.lower()} if remote and ip_of(bind.host) is None else set()
    app = http_app(
        build_server(deps, "http"),
        HostPolicy(port, remote=remote, names=frozenset(names)),
        TokenBook(),
        RateLimiter(per_minute, burst),
    )
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=GRACE_S,
    )
    return _Server(config, lambda: on_ready(bind.url(port)))


async def _no_roots() -> list[Path]:
    return []
