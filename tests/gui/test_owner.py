"""The app as the library's owner: agents attached while it runs see its imports at once, the
status bar and the settings dialog show who is connected, and a second app is a client."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, anchors, tick
from tests.gui.conftest import offline_backend, wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.owner import RemoteProxy, Session, open_session
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.app import open_core
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.owner_state import OwnerState
from v2c_desktop.ui.player.dock import PlayerDock

pytestmark = pytest.mark.gui

SAMPLE = "youtube:spCOYV4KyPA"


def app_window(
    qtbot: QtBot, runner: JobRunner, session: Session[CoreAPI], owner: OwnerState
) -> MainWindow:
    owner.attach(session)
    api = session.api
    player = PlayerDock(
        runner, api.get_video, backend_factory=offline_backend, open_url=lambda _u: True
    )
    window = MainWindow(api, runner, Settings(), player=player, owner=owner)
    qtbot.addWidget(window)
    window.show()
    window.start()
    return window


@pytest.fixture
def library(crashcourse_file: Path, tmp_path: Path) -> Path:
    path = tmp_path / "lib.duckdb"
    shutil.copyfile(crashcourse_file, path)
    return path


@pytest.fixture
def sessions(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Iterator[list[Session[CoreAPI]]]:
    opened: list[Session[CoreAPI]] = []
    yield opened
    for session in reversed(opened):  # clients first, the owner last
        wait_for(qtbot, session.aclose())


def test_agents_share_the_apps_library_and_the_app_shows_them(
    qtbot: QtBot, runner: JobRunner, library: Path, sessions: list[Session[CoreAPI]]
) -> None:
    owner = OwnerState()
    sessions.append(
        wait_for(qtbot, open_core(library, Settings(), on_clients_changed=owner.notify))
    )
    window = app_window(qtbot, runner, sessions[0], owner)
    assert sessions[0].role == "owner" and isinstance(sessions[0].api, CoreAPI)
    qtbot.waitUntil(lambda: window.status.mcp.full_text() == "Agents: none connected")

    async def agent_target() -> CoreAPI:  # what an agent's `v2c mcp` would open
        return CoreAPI(await asyncio.to_thread(Services.open, library, index_on_import=False))

    agent = wait_for(
        qtbot, open_session(library, make_target=agent_target, client_name="v2c mcp (claude)")
    )
    sessions.append(agent)
    assert agent.role == "client"
    qtbot.waitUntil(lambda: window.status.mcp.full_text() == "Agent: v2c mcp (claude)")
    assert "v2c mcp (claude)" in window.status.mcp.toolTip()

    dialog = window.open_settings()
    assert dialog.mcp.agents.rowCount() == 1
    assert dialog.mcp.agents.item(0, 0).text() == "v2c mcp (claude)"
    assert dialog.mcp.agents.item(0, 1).text() == str(os.getpid())
    snippet = dialog.mcp.findChild(QPlainTextEdit, "mcpClaudeSnippet")
    assert snippet is not None and str(library.resolve()) in snippet.toPlainText()
    dialog.reject()

    # an import made in the app is there for the agent at once
    with qtbot.waitSignal(window.library.library_changed, timeout=30000):
        window.library.start_import([str(sample_dir())])
    assert SAMPLE in [v.id for v in wait_for(qtbot, agent.api.list_videos())]

    wait_for(qtbot, agent.aclose())
    sessions.remove(agent)
    qtbot.waitUntil(lambda: window.status.mcp.full_text() == "Agents: none connected")


def test_a_second_app_is_a_client_and_still_answers_with_links(
    qtbot: QtBot, runner: JobRunner, library: Path, sessions: list[Session[CoreAPI]]
) -> None:
    sessions.append(wait_for(qtbot, open_core(library, Settings())))
    other = OwnerState()
    sessions.append(
        wait_for(qtbot, open_core(library, Settings(), on_clients_changed=other.notify))
    )
    window = app_window(qtbot, runner, sessions[1], other)
    assert isinstance(sessions[1].api, RemoteProxy)
    qtbot.waitUntil(lambda: window.status.library.full_text().startswith("10 videos"))
    assert window.status.mcp.full_text() == (
        f"Library served by another program (PID {os.getpid()})"
    )
    window.actions_.chat.trigger()
    pane = window.chat_pane
    qtbot.waitUntil(lambda: pane.scope.videos.count() == 10, timeout=30000)
    pane.models.select("extractive")
    tick(pane, HOMUNCULUS)
    pane.question.setText("What is the homunculus?")
    with qtbot.waitSignal(pane.answer_finished, timeout=30000) as finished:
        pane.ask()  # the events come over the owner's socket
    assert finished.args == ["done"]
    (turn,) = pane.turns
    assert turn.cards and anchors(turn.answer)


def test_a_video_an_agent_imports_appears_in_the_running_app_without_a_click(
    qtbot: QtBot,
    runner: JobRunner,
    library: Path,
    sessions: list[Session[CoreAPI]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The app owns the library; a real `v2c mcp` (the official MCP client drives it)
    imports the sample through a read tool; the library pane lists it and the search pane
    finds it, with nobody touching the window: the panes follow the owner's change feed."""
    from tests.mcp.harness import McpProcess, allow_agents, server_env
    from tests.unit.owner.toys import remove_dir, short_dir

    runtime = short_dir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    owner = OwnerState()
    sessions.append(
        wait_for(qtbot, open_core(library, Settings(), on_clients_changed=owner.notify))
    )
    window = app_window(qtbot, runner, sessions[0], owner)
    qtbot.waitUntil(lambda: window.library.table.model.rowCount() == 10, timeout=30000)
    assert SAMPLE not in window.library.table.visible_ids()

    # the agent's server starts (and connects to our socket) off the GUI thread: the
    # window's loop must keep serving it while we wait
    started: list[McpProcess] = []
    results: list[object] = []
    srt = next(sample_dir().glob("*.srt"))

    home = library.parent / "agent-home"
    allow_agents(home, [sample_dir()])  # the user lets agents read the samples folder

    def agent() -> None:
        server = McpProcess(library, server_env(home, runtime))
        started.append(server)
        results.append(server.call("get_metadata", {"url": str(srt)}))

    thread = threading.Thread(target=agent, daemon=True)
    thread.start()
    try:
        qtbot.waitUntil(lambda: bool(results), timeout=120000)
        assert not getattr(results[0], "is_error", True), results[0]
        qtbot.waitUntil(lambda: SAMPLE in window.library.table.visible_ids(), timeout=30000)
        assert window.library.table.model.rowCount() == 11
        window.show_pane("search")
        window.search.query.setText("hardware in the loop")
        window.search.search_now()
        qtbot.waitUntil(
            lambda: any(card.hit.video_id == SAMPLE for card in window.search.cards),
            timeout=60000,
        )
    finally:
        thread.join(timeout=120)
        for server in started:
            server.close()
        remove_dir(runtime)
