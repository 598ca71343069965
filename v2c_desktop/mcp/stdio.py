"""`v2c mcp`: the server on stdin/stdout, for agents that launch it as a subprocess.

stdout carries only the protocol. The SDK's stdio transport moves file descriptor 1 to
stderr while it serves (so a stray `print`, yt-dlp or llama.cpp writing to fd 1 lands on
stderr, not in the agent's JSON stream), and we send every log line to stderr ourselves.

The normal end is the client closing stdin. On SIGTERM the library is closed first (an
owner stops serving it, checkpoints DuckDB and releases the lock, so the next process takes
over at once) and then the process exits: the transport reads stdin on a worker thread that
no cancellation can interrupt, so waiting for it would never end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path

from .deps import Deps
from .server import build_server

log = logging.getLogger(__name__)
CLOSE_TIMEOUT = 10.0


def configure_logging(level: int = logging.WARNING) -> None:
    """Log lines to stderr only (stdout is the protocol), replacing any earlier setup."""
    logging.basicConfig(
        stream=sys.stderr,
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )


async def _terminate(deps: Deps) -> None:
    try:
        await asyncio.wait_for(deps.aclose(), CLOSE_TIMEOUT)
    except Exception:  # exiting anyway: the OS releases the lock of a dead process
        log.exception("closing the library on SIGTERM failed")
    finally:
        os._exit(0)


async def serve(library: Path, vault: Path | None = None) -> None:
    """Serve `library` over stdio until the client closes stdin (or SIGTERM arrives);
    `vault`: where `export_obsidian` may write (else the one in the settings)."""
    configure_logging()
    deps = Deps(library=library, vault=vault)
    server = build_server(deps)
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()

    def on_sigterm() -> None:
        pending.add(loop.create_task(_terminate(deps)))

    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows, non-main thread
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    try:
        await server.run_stdio_async()
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
