"""The app is a client; its owner exits and a video is imported before the app's change feed
is back. When the feed is subscribed again, the panes re-read everything, so the video shows
without a click (it used to be lost with the gap).

(A feed that breaks before its first change is re-subscribed by the session itself, at
once, without the listener knowing; this test lets one change through first, so the break
reaches the listener as it does in a running app.)"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.conftest import offline_backend, wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.owner import RemoteProxy, Session, open_session
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.app import open_core
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.changes import EVERY_SUBJECT
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.owner_state import OwnerState
from v2c_desktop.ui.player.dock import PlayerDock

pytestmark = pytest.mark.gui

SAMPLE = "youtube:spCOYV4KyPA"


@pytest.fixture
def library(crashcourse_file: Path, tmp_path: Path) -> Path:
    path = tmp_path / "lib.duckdb"
    shutil.copyfile(crashcourse_file, path)
    return path


@pytest.fixture
def sessions(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Iterator[list[Session[CoreAPI]]]:
    opened: list[Session[CoreAPI]] = []
    yield opened
    for session in reversed(opened):
        wait_for(qtbot, session.aclose())


async def open_other_process(library: Path, name: str) -> Session[CoreAPI]:
    """What `v2c mcp` or another app would open: the library's owner if there is none."""

    async def target() -> CoreAPI:
        return CoreAPI(await asyncio.to_thread(Services.open, library, index_on_import=False))

    return await open_session(library, make_target=target, client_name=name)


def test_changes_made_while_the_feed_was_down_reach_the_panes(
    qtbot: QtBot, runner: JobRunner, library: Path, sessions: list[Session[CoreAPI]]
) -> None:
    first = wait_for(qtbot, open_other_process(library, "first owner"))
    sessions.append(first)
    app = wait_for(qtbot, open_core(library, Settings()))
    sessions.append(app)
    assert first.role == "owner" and isinstance(app.api, RemoteProxy)

    owner = OwnerState()
    owner.attach(app)
    player = PlayerDock(
        runner, app.api.get_video, backend_factory=offline_backend, open_url=lambda _u: True
    )
    window = MainWindow(app.api, runner, Settings(), player=player, owner=owner)
    qtbot.addWidget(window)
    feed = window.changes
    back = asyncio.Event()  # the feed subscribes again only when the test says so

    async def pause() -> None:
        await back.wait()

    feed.pause = pause
    window.show()
    window.start()
    qtbot.waitUntil(lambda: window.library.table.model.rowCount() == 10, timeout=30000)
    qtbot.waitUntil(lambda: feed.subscriptions == 1)
    wait_for(qtbot, first.api.create_collection("Before"))
    qtbot.waitUntil(lambda: feed.seen >= 1, timeout=30000)  # the feed is flowing

    wait_for(qtbot, first.aclose())  # the owner exits: the app's feed breaks
    sessions.remove(first)
    qtbot.waitUntil(lambda: feed.breaks == 1, timeout=30000)
    other = wait_for(qtbot, open_other_process(library, "v2c mcp"))
    sessions.insert(0, other)
    result = wait_for(qtbot, other.api.add([str(sample_dir())]))
    assert result.changed_ids == [SAMPLE]
    assert SAMPLE not in window.library.table.visible_ids()  # written in the gap

    with qtbot.waitSignal(feed.changed, timeout=30000) as refreshed:
        back.set()
    assert refreshed.args == [EVERY_SUBJECT]
    assert feed.subscriptions == 2
    qtbot.waitUntil(lambda: SAMPLE in window.library.table.visible_ids(), timeout=30000)
    assert window.library.table.model.rowCount() == 11
