"""Agents are named by the client they are: a real `v2c mcp` process, driven by the official
MCP client introducing itself as Claude Desktop 1.2, is listed under that name in the app's
status bar and its settings' MCP view, not as `v2c mcp (PID)`."""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.types import Implementation
from pytestqt.qtbot import QtBot

from tests.gui.conftest import offline_backend, wait_for
from tests.mcp.harness import McpProcess, server_env
from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.owner import Session
from v2c_desktop.core.settings import Settings
from v2c_desktop.mcp.client_info import agent_name
from v2c_desktop.ui.app import open_core
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.owner_state import OwnerState
from v2c_desktop.ui.player.dock import PlayerDock

pytestmark = pytest.mark.gui

CLAUDE = Implementation(name="claude-ai", title="Claude Desktop", version="1.2")


@pytest.fixture
def library(crashcourse_file: Path, tmp_path: Path) -> Path:
    path = tmp_path / "lib.duckdb"
    shutil.copyfile(crashcourse_file, path)
    return path


@pytest.fixture
def owner_session(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, library: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Session[CoreAPI], OwnerState, Path]]:
    runtime = short_dir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    owner = OwnerState()
    session = wait_for(qtbot, open_core(library, Settings(), on_clients_changed=owner.notify))
    owner.attach(session)
    yield session, owner, runtime
    wait_for(qtbot, session.aclose())
    remove_dir(runtime)


def test_the_app_lists_an_agent_by_the_name_its_mcp_client_sent(
    qtbot: QtBot,
    runner: JobRunner,
    library: Path,
    owner_session: tuple[Session[CoreAPI], OwnerState, Path],
) -> None:
    session, owner, runtime = owner_session
    api = session.api
    player = PlayerDock(
        runner, api.get_video, backend_factory=offline_backend, open_url=lambda _u: True
    )
    window = MainWindow(api, runner, Settings(), player=player, owner=owner)
    qtbot.addWidget(window)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: window.status.mcp.full_text() == "Agents: none connected")

    started: list[McpProcess] = []
    answered: list[str] = []

    def agent() -> None:  # off the GUI thread: the window's loop serves the agent meanwhile
        server = McpProcess(
            library,
            server_env(library.parent / "agent-home", runtime),
            client_info=CLAUDE,
        )
        started.append(server)
        answered.append(server.text("list_collections"))

    thread = threading.Thread(target=agent, daemon=True)
    thread.start()
    try:
        qtbot.waitUntil(lambda: bool(answered), timeout=120000)
        qtbot.waitUntil(
            lambda: window.status.mcp.full_text() == "Agent: Claude Desktop 1.2", timeout=30000
        )
        (client,) = owner.clients()
        assert client.name == "Claude Desktop 1.2"
        assert client.pid is not None and client.pid != session.owner_pid  # the server's
        assert "Claude Desktop 1.2 (PID" in window.status.mcp.toolTip()
        dialog = window.open_settings()
        assert dialog.mcp.agents.rowCount() == 1
        assert dialog.mcp.agents.item(0, 0).text() == "Claude Desktop 1.2"
        assert dialog.mcp.agents.item(0, 1).text() == str(client.pid)
        assert dialog.mcp.role.text() == "Agent: Claude Desktop 1.2"
        dialog.reject()
    finally:
        thread.join(timeout=120)
        for server in started:
            server.close()
    qtbot.waitUntil(
        lambda: window.status.mcp.full_text() == "Agents: none connected", timeout=30000
    )


def test_agent_names_read_title_or_name_and_version() -> None:
    assert agent_name({"name": "claude-ai", "title": "Claude Desktop", "version": "1.2"}) == (
        "Claude Desktop 1.2"
    )
    assert agent_name({"name": "cursor-vscode", "version": "1.0.0"}) == "cursor-vscode 1.0.0"
    assert agent_name({"name": "Zed\n\x07Agent", "version": ""}) == "Zed Agent"
    assert agent_name({"version": "1.0"}) == "" and agent_name(None) == ""
    assert len(agent_name({"name": "x" * 500, "version": "1"})) == 80
