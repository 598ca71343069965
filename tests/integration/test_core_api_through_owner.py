"""Every CoreAPI call a client makes through another process (the owner) works as locally:
imports with settled items, search, an extractive ask streamed over the socket, chats, status."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, corpus_path
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskMeta, AskRequest
from v2c_desktop.core.domain.changes import Change
from v2c_desktop.core.owner import open_session
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.search.request import SearchRequest

BITCOIN_TITLE = "But how does bitcoin actually work?"  # from the meta.json beside its captions
BAYES_TITLE = "Bayes theorem, the geometry of changing beliefs"


def test_client_calls_every_kind_of_method_through_the_owner(tmp_path: Path) -> None:
    bitcoin = corpus_path("transcripts/3blue1brown/2017_bitcoin/captions.en.srt")
    library = tmp_path / "lib.duckdb"
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.support.library_session", "owner", "--library", str(library)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert owner.stdout is not None
        assert json.loads(owner.stdout.readline())["role"] == "owner"

        async def make_target() -> CoreAPI:
            raise AssertionError("the test process must be a client, not the owner")

        async def go() -> None:
            session = await open_session(library, make_target=make_target, client_name="test")
            api = session.api
            changes: list[Change] = []

            async def listen() -> None:  # the owner's change feed, streamed to this client
                async for change in api.changes():
                    changes.append(change)

            async def until_seen(change: Change) -> None:
                async with asyncio.timeout(30):  # a hang guard only
                    while change not in changes:
                        await asyncio.sleep(0.05)

            listener = asyncio.create_task(listen())
            try:
                assert session.role == "client"
                # Subscribed before the import: a write of our own comes back through the
                # feed, so the subscription is live in the owner (no sleep to guess with).
                probe = await api.create_collection("subscription probe")
                await until_seen(Change("collection", "added", (probe.id,)))
                await api.delete_collection(probe.id)
                await until_seen(Change("collection", "removed", (probe.id,)))
                changes.clear()
                seen: list[Progress] = []
                result = await api.add([str(bitcoin)], progress=seen.append)
                assert result.count("added") == 1
                assert any(p.stage == "settled" and "added" in p.message for p in seen)
                hits = await api.search(SearchRequest("proof of work", mode="keyword", limit=3))
                assert hits.hits and hits.hits[0].title == BITCOIN_TITLE
                events = [
                    e
                    async for e in api.ask(
                        AskRequest(
                            "What is a proof of work?",
                            video_ids=(BITCOIN_TITLE,),
                            extractive=True,
                        )
                    )
                ]
                assert isinstance(events[0], AskMeta) and isinstance(events[-1], AskDone)
                assert any(isinstance(e, AskDelta) for e in events)
                assert events[-1].citations and events[-1].citations[0].verified
                chats = await api.list_chats()
                assert [c.id for c in chats] == [events[-1].chat_id]
                chat = await api.get_chat(chats[0].id)
                assert [m.role for m in chat.messages] == ["user", "assistant"]
                status = await api.status()
                assert status.videos == 1 and status.path == str(library.resolve())
                vid = result.outcomes[0].video_id
                await until_seen(Change("chat", "updated", (chats[0].id,)))
                assert changes[0] == Change("video", "added", (vid,))
                assert Change("chat", "added", (chats[0].id,)) in changes
            finally:
                listener.cancel()
                await session.aclose()

        asyncio.run(go())
    finally:
        if owner.stdin:
            owner.stdin.close()
        owner.wait(timeout=30)
