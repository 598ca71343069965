"""First run: with no capable chat model the app offers one, once, without blocking."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.models import DetectedServerInfo
from v2c_desktop.core.models.installed.catalog import CatalogEntry, UrlSource
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings, load_settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.settings.first_run import FirstRunDialog
from v2c_desktop.ui.settings.first_run_rows import DownloadRow
from v2c_desktop.ui.ui_state import load_ui_state

pytestmark = pytest.mark.gui

OLLAMA = DetectedServerInfo("ollama", "http://127.0.0.1:11434/v1", ("llama3.2:3b", "qwen2.5:7b"))
DATA = b"GGUF" + bytes(range(256)) * (8 * 1024 - 1) + bytes(252)  # 2 MiB: two 1 MiB chunks


async def found_ollama() -> list[DetectedServerInfo]:
    """What detection answers when Ollama runs (the probe itself is the network's)."""
    return [OLLAMA]


def core_with(qtbot: QtBot, tmp_path: Path, settings: Settings, manager: ModelManager) -> CoreAPI:
    """A real core whose owner's models come from `manager` (a test catalog)."""
    registry = ModelRegistry(settings.models, manager)
    services = Services.open(
        tmp_path / "lib.duckdb", settings=settings, registry=registry, index_on_import=False
    )
    return CoreAPI(services)


def dialog_of(window: MainWindow) -> FirstRunDialog | None:
    return window.findChild(FirstRunDialog, "firstRunDialog")


def test_it_appears_without_a_capable_model_and_decide_later_dismisses_it_for_good(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow], tmp_path: Path
) -> None:
    assert wait_for(qtbot, crashcourse.capable_chat_model()) is False  # SmolLM2 only
    state = tmp_path / "desktop.json"
    window = make_window(crashcourse)
    window.offer_first_run(state_path=state, detect=found_ollama)
    qtbot.waitUntil(lambda: dialog_of(window) is not None and dialog_of(window).isVisible())
    dialog = dialog_of(window)
    assert dialog is not None and not dialog.isModal()
    qtbot.waitUntil(lambda: bool(dialog.rows))  # listed by the library's owner
    labels = [row.entry.label for row in dialog.rows]
    assert "Qwen2.5 3B Instruct (Q4_K_M)" in labels and len(labels) >= 2
    qwen = dialog.rows[labels.index("Qwen2.5 3B Instruct (Q4_K_M)")]
    texts = " ".join(label.text() for label in qwen.findChildren(QLabel))
    assert "1.9 GB" in texts and "qwen-research" in texts and "8 GB laptop" in texts
    qtbot.waitUntil(lambda: bool(dialog.findChildren(QPushButton, "useServer")))
    (server,) = dialog.findChildren(QPushButton, "useServer")
    assert server.text() == f"Use ollama at {OLLAMA.base_url} (2 models)"
    qtbot.mouseClick(dialog.later, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and dialog.choice == "later"
    assert load_ui_state(state).first_run == "later"
    started: list[str] = []  # every job from here on, the dialog's own ones included
    window.runner.started.connect(lambda job_id, _label: started.append(job_id))
    window.offer_first_run(state_path=state, detect=found_ollama)  # the next start
    # A second dialog would open from a background check: wait until every job started
    # since is over (a job's callback runs before the runner forgets it), then look.
    qtbot.waitUntil(lambda: not any(window.runner.is_running(job) for job in started))
    assert window.findChildren(FirstRunDialog) == [dialog] and not dialog.isVisible()


def test_a_detected_server_is_saved_as_a_configured_server(
    qtbot: QtBot, runner: JobRunner, tmp_path: Path
) -> None:
    window_settings = load_settings()
    api = core_with(qtbot, tmp_path, window_settings, ModelManager(tmp_path / "models", []))
    dialog = FirstRunDialog(api, runner, detect=found_ollama, state_path=tmp_path / "s.json")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: bool(dialog.findChildren(QPushButton, "useServer")))
    with qtbot.waitSignal(dialog.models_changed, timeout=10000):
        dialog.findChildren(QPushButton, "useServer")[0].click()
    (saved,) = load_settings().models.servers
    assert (saved.name, saved.base_url, saved.local) == ("ollama", OLLAMA.base_url, True)
    assert saved.chat_models == ["llama3.2:3b", "qwen2.5:7b"]
    assert window_settings.models.servers == [saved]  # live for the owner's registry too
    assert load_ui_state(tmp_path / "s.json").first_run == "server"
    wait_for(qtbot, api.aclose())


class SlowBody(httpx.AsyncByteStream):
    """Half the file, then nothing until the test lets it go on (a download in progress)."""

    def __init__(self, go_on: asyncio.Event) -> None:
        self.go_on = go_on

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield DATA[: len(DATA) // 2]
        await self.go_on.wait()
        yield DATA[len(DATA) // 2 :]


def tiny_catalog(tmp_path: Path, go_on: asyncio.Event) -> ModelManager:
    entry = CatalogEntry(
        id="llamacpp/Tiny-Q4",
        kind="chat",
        runtime="llamacpp",
        label="Tiny (test)",
        source=UrlSource("https://models.example/Tiny-Q4.gguf", "Tiny-Q4.gguf"),
        size_bytes=len(DATA),
        sha256=hashlib.sha256(DATA).hexdigest(),
        verify="sha256",
        context_window=2048,
        chat_format=None,
        licence="Apache-2.0",
        recommended=True,
        capable=True,
        dimensions=None,
        note="a file served by the test",
    )

    def reply(request: httpx.Request) -> httpx.Response:
        start = int(request.headers.get("Range", "bytes=0-")[6:].rstrip("-") or 0)
        if start:
            return httpx.Response(
                206,
                content=DATA[start:],
                headers={"Content-Range": f"bytes {start}-{len(DATA) - 1}/{len(DATA)}"},
            )
        return httpx.Response(
            200, stream=SlowBody(go_on), headers={"Content-Length": str(len(DATA))}
        )

    transport = httpx.MockTransport(reply)
    return ModelManager(
        tmp_path / "models", [entry], http_factory=lambda: httpx.AsyncClient(transport=transport)
    )


async def nothing_found() -> list[DetectedServerInfo]:
    return []


def test_a_download_shows_progress_can_be_cancelled_and_resumes(
    qtbot: QtBot, runner: JobRunner, tmp_path: Path
) -> None:
    go_on = asyncio.Event()
    manager = tiny_catalog(tmp_path, go_on)
    api = core_with(qtbot, tmp_path, load_settings(), manager)
    dialog = FirstRunDialog(api, runner, detect=nothing_found, state_path=tmp_path / "s.json")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: "No Ollama" in dialog.looking.text() and bool(dialog.rows))
    (row,) = dialog.findChildren(DownloadRow)
    qtbot.mouseClick(row.download, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.bar.value() == 500, timeout=10000)  # half of it, shown
    assert row.bar.isVisible() and row.cancel.isVisible() and not row.download.isEnabled()
    with qtbot.waitSignal(runner.cancelled, timeout=10000):
        qtbot.mouseClick(row.cancel, Qt.MouseButton.LeftButton)
    assert row.download.text() == "Resume" and "Resume goes on" in row.message.text()
    assert (tmp_path / "models" / "Tiny-Q4.gguf.part").stat().st_size == len(DATA) // 2
    with qtbot.waitSignal(dialog.models_changed, timeout=10000):
        row.download.click()  # the server now answers the Range request at once
    assert not dialog.isVisible() and dialog.choice == "download"
    assert (tmp_path / "models" / "Tiny-Q4.gguf").read_bytes() == DATA
    assert [m.id for m in manager.installed()] == ["llamacpp/Tiny-Q4"]
    wait_for(qtbot, api.aclose())
