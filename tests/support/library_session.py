"""A plain v2c process on a library session: an owner that stays up, or a session importer.

Used by tests/mcp/test_shared_library.py beside real `v2c mcp` processes.

  owner --library PATH          become the owner (serving CoreAPI) and stay up; answers
                                `count` on stdin with the videos and collections it holds,
                                exits on `quit` or end of input
  add --library PATH FILE...    import FILEs one by one through the session (as the owner or
                                a client of it), one JSON line per outcome: what a `v2c add`
                                that goes through the owner does

The owner saves imports without embedding them (like `v2c add --no-index`; search brings the
keyword index up to date), so a soak measures sharing, not the 2-core embedder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.owner import Session, open_session
from v2c_desktop.core.services import Services


def say(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


async def open_core(library: Path, name: str) -> Session[CoreAPI]:
    async def make_target() -> CoreAPI:
        services = await asyncio.to_thread(lambda: Services.open(library, index_on_import=False))
        return CoreAPI(services)

    return await open_session(library, make_target=make_target, client_name=name)


async def run_owner(library: Path) -> None:
    session = await open_core(library, f"owner:{os.getpid()}")
    say(event="ready", role=session.role, pid=os.getpid())
    try:
        while line := await asyncio.to_thread(sys.stdin.readline):
            command = line.strip()
            if command == "count":
                videos = [v.id for v in await session.api.list_videos()]
                names = [c.name for c in await session.api.list_collections()]
                say(event="count", videos=videos, collections=names)
            elif command == "quit":
                break
    finally:
        await session.aclose()


async def run_add(library: Path, files: list[str]) -> None:
    session = await open_core(library, f"add:{os.getpid()}")
    started = time.perf_counter()
    for path in files:
        try:
            result = await session.api.add([path])
            for outcome in result.outcomes:
                say(event="outcome", **outcome.to_dict())
        except V2CError as error:
            say(event="outcome", source=path, status="failed", error=error.to_dict())
    say(event="done", role=session.role, seconds=round(time.perf_counter() - started, 3))
    await session.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("owner", "add"))
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()
    if options.mode == "owner":
        asyncio.run(run_owner(options.library))
    else:
        asyncio.run(run_add(options.library, options.files))


if __name__ == "__main__":
    main()
