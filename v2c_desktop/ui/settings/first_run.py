"""First run: no model can write answers yet, so offer one (non-modal, shown once).

The choices are a recommended catalog model to download, a model server already running on
this computer (Ollama, LM Studio), or extractive answers (quoted passages) for now. The
answer is remembered in `desktop.json`, so the dialog does not come back once dismissed.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.openai_compat import DetectedServer, detect_local_servers
from v2c_desktop.core.models.registry import DETECTED_QUALITY
from v2c_desktop.core.settings import ServerSetting, Settings, save_settings

from ..bridge import JobRunner
from ..dialogs import show_error
from ..ui_state import load_ui_state, save_ui_state
from .first_run_rows import DownloadRow, server_button

Detect = Callable[[], Awaitable[list[DetectedServer]]]
INTRO = (
    "v2c can answer questions about your videos with a language model that runs on this "
    "computer. None is set up yet. Pick one now, or keep going with extractive answers "
    "(the passages that match your question, quoted with their timestamps)."
)


async def detect_servers() -> list[DetectedServer]:
    async with httpx.AsyncClient() as http:
        return await detect_local_servers(http)


def offer_first_run(
    parent: QWidget,
    capable: Callable[[], Awaitable[bool]],
    runner: JobRunner,
    settings: Settings,
    on_models_changed: Callable[[], None],
    *,
    manager: ModelManager | None = None,
    detect: Detect = detect_servers,
    state_path: Path | None = None,
) -> None:
    """Open the dialog (non-modal) when no capable chat model exists and it was never
    answered; the check itself runs as a job."""
    if load_ui_state(state_path).first_run is not None:
        return

    def checked(available: bool) -> None:
        if not available:
            open_model_setup(
                parent,
                runner,
                settings,
                on_models_changed,
                manager=manager,
                detect=detect,
                state_path=state_path,
            )

    runner.start(lambda _p: capable(), label="check chat models", on_finished=checked)


def open_model_setup(
    parent: QWidget,
    runner: JobRunner,
    settings: Settings,
    on_models_changed: Callable[[], None],
    *,
    manager: ModelManager | None = None,
    detect: Detect = detect_servers,
    state_path: Path | None = None,
) -> FirstRunDialog:
    """Open the chat model set-up now, whatever was answered before (the user asked)."""
    dialog = FirstRunDialog(
        runner,
        settings,
        manager or ModelManager.default(),
        detect,
        state_path=state_path,
        parent=parent,
    )
    dialog.models_changed.connect(on_models_changed)
    # show(), not open(): open() is window-modal and would lock the window for the
    # whole of a multi-gigabyte download; exec() would block the event loop
    dialog.show()
    return dialog


class FirstRunDialog(QDialog):
    """Signals:
    models_changed(): a model was installed or a server configured (re-list the models).
    """

    models_changed = Signal()

    def __init__(
        self,
        runner: JobRunner,
        settings: Settings,
        manager: ModelManager,
        detect: Detect,
        *,
        state_path: Path | None = None,
        settings_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunDialog")
        self.setWindowTitle("Set up answers")
        self.setModal(False)
        self._runner, self._settings = runner, settings
        self._state_path, self._settings_path = state_path, settings_path
        self.choice = ""
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(QLabel("<b>Download a recommended model</b>"))
        self.rows: list[DownloadRow] = []
        for entry in manager.catalog:
            if entry.kind == "chat" and entry.recommended and entry.capable:
                row = DownloadRow(entry, manager, runner)
                row.installed.connect(self._installed)
                layout.addWidget(row)
                self.rows.append(row)
        layout.addWidget(QLabel("<b>Or use a model server on this computer</b>"))
        self.servers = QVBoxLayout()
        self.looking = QLabel("Looking for Ollama and LM Studio…")
        self.looking.setObjectName("serverStatus")
        self.looking.setWordWrap(True)
        self.servers.addWidget(self.looking)
        layout.addLayout(self.servers)
        self.extractive = QPushButton("Use extractive answers for now")
        self.extractive.setObjectName("useExtractive")
        self.extractive.clicked.connect(lambda: self.choose("extractive"))
        layout.addWidget(self.extractive, 0, Qt.AlignmentFlag.AlignRight)
        self.resize(640, 560)
        self.detect_job = runner.start(
            lambda _p: detect(), label="look for local model servers", on_finished=self._found
        )

    # -- choices -----------------------------------------------------------------------------
    def _found(self, servers: list[DetectedServer]) -> None:
        if not servers:
            self.looking.setText("No Ollama or LM Studio is running on this computer.")
            return
        self.looking.setText("Found:")
        for server in servers:
            if server.models:
                count = len(server.models)
                text = f"Use {server.name} at {server.base_url} ({count} model{'s' * (count > 1)})"
                self.servers.addWidget(
                    server_button(text, functools.partial(self.use_server, server))
                )
            else:
                note = QLabel(f"{server.name} is running but has no models yet.")
                note.setWordWrap(True)
                self.servers.addWidget(note)

    def use_server(self, server: DetectedServer) -> None:
        """Configure the server in the settings (live in this process, and saved)."""
        servers = self._settings.models.servers
        if not any(s.base_url == server.base_url for s in servers):
            servers.append(
                ServerSetting(
                    name=server.name,
                    base_url=server.base_url,
                    chat_models=list(server.models),
                    quality=DETECTED_QUALITY,
                    local=True,
                )
            )
        try:
            save_settings(self._settings, self._settings_path)
        except OSError as exc:
            show_error(self, "Settings not saved", str(exc), "check the settings folder")
        self.models_changed.emit()
        self.choose("server")

    def _installed(self, _model_id: str) -> None:
        self.models_changed.emit()
        self.choose("download")

    def choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()

    def done(self, result: int) -> None:
        """Any way out counts as an answer: remembered, so the dialog is not shown again."""
        for row in self.rows:
            row.stop()
        state = load_ui_state(self._state_path)
        state.first_run = self.choice or "dismissed"
        with contextlib.suppress(OSError):  # not remembered: offered again, which is harmless
            save_ui_state(state, self._state_path)
        super().done(result)
