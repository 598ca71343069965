"""Every committed write is published: what changed, in commit order, to every listener."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.changes import Change
from v2c_desktop.core.domain.chats import ChatMessageRecord
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.core.store import open_library
from v2c_desktop.core.store.change_feed import BACKLOG, EVERYTHING, ChangeFeed
from v2c_desktop.resources import sample_dir

SAMPLE = "youtube:spCOYV4KyPA"


async def until(changes: list[Change], count: int) -> None:
    async with asyncio.timeout(30):  # a hang guard only
        while len(changes) < count:
            await asyncio.sleep(0.01)


async def until_listening(feed: ChangeFeed, listeners: int = 1) -> None:
    """Until the listener task has subscribed: a write before that would not reach it."""
    async with asyncio.timeout(30):  # a hang guard only
        while feed.listeners < listeners:
            await asyncio.sleep(0)


def test_each_kind_of_write_says_what_it_changed(tmp_path: Path) -> None:
    async def go() -> list[Change]:
        api = CoreAPI(
            await asyncio.to_thread(
                Services.open, tmp_path / "l.duckdb", settings=Settings(), index_on_import=False
            )
        )
        seen: list[Change] = []

        async def listen() -> None:
            async for change in api.changes():
                seen.append(change)

        listener = asyncio.create_task(listen())
        try:
            await until_listening(api._s.store.changes)  # subscribed before the first write
            await api.add([str(sample_dir())])
            collection = await api.create_collection("Talks")
            await api.add_to_collection(collection.id, [SAMPLE])
            await api.index_pending()
            store = api._s.store  # a chat write, as the ask service makes it
            chat = await store.run(store.create_chat, "t", {})
            await store.run(store.append_chat_message, chat, ChatMessageRecord(0, "user", "q"))
            await api.remove(SAMPLE)
            await until(seen, 7)
        finally:
            listener.cancel()
            await api.aclose()
        return seen

    seen = run(go(), timeout=120)
    assert seen[0] == Change("video", "added", (SAMPLE,))
    subjects = [(c.subject, c.action) for c in seen]
    assert ("collection", "added") in subjects and ("collection", "updated") in subjects
    assert ("index", "updated") in subjects
    assert ("chat", "added") in subjects and ("chat", "updated") in subjects
    assert seen[-1] == Change("video", "removed", (SAMPLE,)) or (
        Change("video", "removed", (SAMPLE,)) in seen
    )


def test_a_listener_that_stops_is_forgotten_and_a_slow_one_gets_a_catch_all() -> None:
    async def go() -> None:
        feed = ChangeFeed()
        stream = feed.subscribe()
        first = asyncio.ensure_future(stream.__anext__())
        await asyncio.sleep(0)
        assert feed.listeners == 1
        for i in range(BACKLOG + 5):
            feed.publish(Change("video", "added", (str(i),)))
        # Each delivery is a callback queued on this loop, in order: they all run before the
        # listener's task resumes, so it has fallen behind whatever the machine's speed.
        await asyncio.sleep(0)
        got = [await first]
        while len(got) < len(EVERYTHING):
            got.append(await stream.__anext__())
        assert tuple(got) == EVERYTHING  # fell behind: told to re-read everything
        await stream.aclose()
        assert feed.listeners == 0

    run(go())


def test_writes_made_on_the_store_thread_reach_a_listener_on_a_loop(tmp_path: Path) -> None:
    async def go() -> list[Change]:
        store = open_library(tmp_path / "l.duckdb")
        seen: list[Change] = []

        async def listen() -> None:
            async for change in store.changes.subscribe():
                seen.append(change)

        task = asyncio.create_task(listen())
        await until_listening(store.changes)
        try:
            await store.run(store.create_collection, "A")
            await until(seen, 1)
        finally:
            task.cancel()
            await store.aclose()
        return seen

    (change,) = run(go())
    assert (change.subject, change.action) == ("collection", "added")
