"""A process that opens a library session and runs library operations when told to.

Used by tests/integration/test_owner_processes.py: the test starts several of these on
one library, drives them through stdin and reads one JSON object per line from stdout.

Commands (one per line on stdin):
  run <n>       n mixed operations (import, list, get, create/fill collections)
  check <json>  {"videos": [...], "collections": [...]}: report which are missing
  call          one list_videos, timed (the call that re-elects after an owner dies)
  quit          close the session and exit
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.library import Library
from v2c_desktop.core.owner import Session, open_session
from v2c_desktop.core.store import open_library

KINDS = ("add", "list_videos", "get_video", "create_collection", "add_to_collection", "list")


def say(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


async def run_ops(session: Session[Library], name: str, files: list[str], n: int) -> None:
    api, rng = session.api, random.Random(name)
    counts: Counter[str] = Counter()
    errors: list[str] = []
    imported: set[str] = set()
    known: list[str] = []
    created: list[str] = []
    started = time.perf_counter()
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        try:
            if kind == "add":
                outcome = (await api.add([files[counts["add"] % len(files)]])).outcomes[0]
                if outcome.status == "failed" or not outcome.video_id:
                    errors.append(f"add: {outcome.reason}")
                else:
                    imported.add(outcome.video_id)
            elif kind == "list_videos":
                known = [v.id for v in await api.list_videos()]
            elif kind == "get_video" and known:
                record = await api.get_video(rng.choice(known))
                assert record.transcript.segments, "a stored video without segments"
            elif kind == "create_collection":
                created.append((await api.create_collection(f"{name}-{i}")).id)
            elif kind == "add_to_collection" and known and created:
                await api.add_to_collection(created[-1], [rng.choice(known)])
            elif kind == "list":
                await api.list_collections()
            counts[kind] += 1
        except (V2CError, AssertionError) as exc:
            errors.append(f"{kind}: {exc}")
    collections = [c.name for c in await api.list_collections() if c.id in created]
    say(
        event="ran",
        ops=sum(counts.values()),
        counts=dict(counts),
        errors=errors,
        imported=sorted(imported),
        collections=collections,
        seconds=round(time.perf_counter() - started, 3),
        role=session.role,
    )


async def check(session: Session[Library], wanted: dict[str, list[str]]) -> None:
    videos = {v.id for v in await session.api.list_videos()}
    names = {c.name for c in await session.api.list_collections()}
    say(
        event="checked",
        role=session.role,
        missing_videos=sorted(set(wanted["videos"]) - videos),
        missing_collections=sorted(set(wanted["collections"]) - names),
        videos=len(videos),
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--runtime-dir", type=Path, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()

    async def make_target() -> Library:
        return Library(open_library(options.library))

    async def close_target(library: Library) -> None:
        await library.aclose()
        library.store.close()

    started = time.perf_counter()
    session = await open_session(
        options.library,
        make_target=make_target,
        close_target=close_target,
        client_name=options.name,
        runtime_dir=options.runtime_dir,
    )
    opened_ms = round((time.perf_counter() - started) * 1000, 1)
    say(event="ready", role=session.role, ms=opened_ms, owner_pid=session.owner_pid)
    while line := await asyncio.to_thread(sys.stdin.readline):
        command, _, argument = line.strip().partition(" ")
        if command == "run":
            await run_ops(session, options.name, options.files, int(argument))
        elif command == "check":
            await check(session, json.loads(argument))
        elif command == "call":
            started = time.perf_counter()
            try:
                count = len(await session.api.list_videos())
                error = None
            except V2CError as exc:
                count, error = -1, f"{exc.code}: {exc.message}"
            ms = round((time.perf_counter() - started) * 1000, 1)
            say(event="called", ms=ms, role=session.role, videos=count, error=error)
        elif command == "quit":
            break
    await session.aclose()
    say(event="bye")


if __name__ == "__main__":
    asyncio.run(main())
