"""Settings → Agents (MCP) → Local HTTP server: a real `v2c mcp --http` child process.

A port in use is shown with its hint; Start shows the URL the server really answers at;
Create token shows a new token once (the settings keep only its hash) and the running server
accepts it at once; Revoke removes one and the running server refuses it at once; the
server outlives the dialog and stops when the app quits.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from tests.unit.owner.toys import remove_dir, short_dir
from v2c_desktop.core.mcp_tokens import token_hash
from v2c_desktop.core.settings import Settings, load_settings, settings_path
from v2c_desktop.ui.http_server import FAILED, RUNNING, STARTING, STOPPED, HttpServer
from v2c_desktop.ui.settings.dialog import SettingsDialog

pytestmark = pytest.mark.gui
START_MS = 60000
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "settings-test", "version": "1"},
    },
}


@pytest.fixture
def server(qtbot: QtBot) -> Iterator[HttpServer]:
    base = short_dir()  # the library owner's socket path must stay short
    http = HttpServer(base / "library.duckdb")
    yield http
    process = http._process
    if process is not None:  # a failed test must not leave a server behind
        process.kill()
        process.waitForFinished(5000)
    remove_dir(base)


def _dialog(qtbot: QtBot, server: HttpServer) -> SettingsDialog:
    dialog = SettingsDialog(Settings(), library=server.library, http_server=server)
    qtbot.addWidget(dialog)
    dialog.show_page("mcp")
    return dialog


def _initialize(url: str, token: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)


def test_start_shows_the_url_and_create_token_shows_it_once(
    qtbot: QtBot, server: HttpServer, qloop: asyncio.AbstractEventLoop
) -> None:
    dialog = _dialog(qtbot, server)
    box = dialog.http
    assert box.toggle.text() == "Start" and box.url.text() == ""
    assert "No tokens yet" in box.tokens.text() and not box.revoke_button.isEnabled()
    assert not box.copy_url.isEnabled() and not box.copy_token.isEnabled()  # nothing yet
    with socket.socket() as taken:  # another program has the port: said, with a hint
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        box.port.setValue(port)
        box.toggle.click()
        qtbot.waitUntil(lambda: server.state != STARTING, timeout=START_MS)
    assert server.state == FAILED
    assert f"port {port} on 127.0.0.1 is in use" in box.status.text()
    assert "Hint: choose another port" in box.status.text()
    assert box.toggle.text() == "Start" and box.port.isEnabled()

    box.port.setValue(0)  # any free port
    box.toggle.click()
    qtbot.waitUntil(lambda: server.state in (RUNNING, FAILED), timeout=START_MS)
    assert server.state == RUNNING, server.error
    url = box.url.text()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    assert box.toggle.text() == "Stop" and box.status.text() == "Running"
    assert not box.port.isEnabled()
    box.copy_url.click()
    assert QGuiApplication.clipboard().text() == url

    box.token_name.setText("web-client")
    box.create_button.click()
    secret = box.token.text()
    assert secret.startswith("v2c_") and "web-client" in box.token_note.text()
    assert "Shown only now" in box.token_note.text()
    saved = settings_path().read_text(encoding="utf-8")
    assert secret not in saved and token_hash(secret) in saved
    assert [t.name for t in load_settings().mcp_http.tokens] == ["web-client"]
    assert "web-client" in box.tokens.text()
    box.copy_token.click()
    assert QGuiApplication.clipboard().text() == secret
    assert _initialize(url, secret).status_code == 200  # the running server takes it at once
    assert _initialize(url, secret[:-1] + "x").status_code == 401

    box.create_button.click()  # no name: the next free one
    assert box.token.text() not in ("", secret)
    assert "app-1" in box.token_note.text()

    dialog.close()  # the server goes on: it is the window's, not the dialog's
    again = _dialog(qtbot, server)
    assert again.http.url.text() == url and again.http.toggle.text() == "Stop"
    assert again.http.token.text() == ""  # a token is never shown again
    assert "web-client, app-1" in again.http.tokens.text()

    assert again.http.revoke_choice.findText("web-client") >= 0  # revoke it: refused at once
    again.http.revoke_choice.setCurrentText("web-client")
    again.http.revoke_button.click()
    assert "web-client revoked" in again.http.token_note.text()
    assert [t.name for t in load_settings().mcp_http.tokens] == ["app-1"]
    assert again.http.tokens.text() == "Tokens: app-1"
    assert _initialize(url, secret).status_code == 401
    assert [again.http.revoke_choice.itemText(0)] == ["app-1"]
    box.revoke_choice.setCurrentText("app-1")  # the token on show, revoked: no longer shown
    assert box.token.text() != ""
    box.revoke_button.click()
    assert box.token.text() == "" and "No tokens yet" in box.tokens.text()
    assert not box.revoke_button.isEnabled()

    process: Any = server._process
    closing = qloop.create_task(server.aclose())  # what the window does when the app quits
    qtbot.waitUntil(closing.done, timeout=START_MS)
    closing.result()
    assert server.state == STOPPED and process.exitCode() == 0
    assert again.http.url.text() == "" and again.http.toggle.text() == "Start"
