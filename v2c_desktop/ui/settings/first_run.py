"""First run: no model can write answers yet, so offer one (non-modal, shown once).

The choices are a recommended catalog model to download, a model server already running on
this computer (Ollama, LM Studio), more choices in the model manager, or "Decide later":
nothing is downloaded and answers are extractive (quoted passages) until a model is set up
from the status bar or the chat's model picker. The answer is remembered in `desktop.json`,
so the dialog does not come back once dismissed.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from v2c_desktop.core.domain.models import DetectedServerInfo, ModelList

from ..bridge import JobRunner
from ..ui_state import load_ui_state, save_ui_state
from .first_run_rows import DownloadRow, server_button
from .model_downloads import ModelDownloads

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

Detect = Callable[[], Awaitable[list[DetectedServerInfo]]]
INTRO = (
    "v2c can answer questions about your videos with a language model that runs on this "
    "computer. None is set up yet. Pick one now, or decide later: until then answers are "
    "extractive (the passages that match your question, quoted with their timestamps)."
)
LATER_NOTE = (
    "You can get a model at any time: click “Chat: extractive” in the status bar, "
    "choose “Get a better model…” in the chat's model list, or open Settings → Models."
)


def offer_first_run(
    parent: QWidget,
    api: CoreAPI,
    runner: JobRunner,
    on_models_changed: Callable[[], None],
    *,
    detect: Detect | None = None,
    state_path: Path | None = None,
    downloads: ModelDownloads | None = None,
    on_more: Callable[[], object] | None = None,
) -> None:
    """Open the dialog (non-modal) when no capable chat model exists and it was never
    answered; the check itself runs as a job."""
    if load_ui_state(state_path).first_run is not None:
        return

    def checked(available: bool) -> None:
        if not available:
            open_model_setup(
                parent,
                api,
                runner,
                on_models_changed,
                detect=detect,
                state_path=state_path,
                downloads=downloads,
                on_more=on_more,
            )

    runner.start(
        lambda _p: api.capable_chat_model(), label="check chat models", on_finished=checked
    )


def open_model_setup(
    parent: QWidget,
    api: CoreAPI,
    runner: JobRunner,
    on_models_changed: Callable[[], None],
    *,
    detect: Detect | None = None,
    state_path: Path | None = None,
    downloads: ModelDownloads | None = None,
    on_more: Callable[[], object] | None = None,
) -> FirstRunDialog:
    """Open the chat model set-up now, whatever was answered before."""
    dialog = FirstRunDialog(
        api,
        runner,
        detect=detect,
        state_path=state_path,
        downloads=downloads,
        parent=parent,
    )
    dialog.models_changed.connect(on_models_changed)
    if on_more is not None:
        dialog.more.show()
        dialog.more_requested.connect(on_more)
    # show(), not open(): open() is window-modal and would lock the window for the
    # whole of a multi-gigabyte download; exec() would block the event loop
    dialog.show()
    return dialog


class FirstRunDialog(QDialog):
    """Signals:
    models_changed(): a model was installed or a server configured (re-list the models).
    rows_listed(count): the recommended models to download are shown.
    more_requested(): the user asked for the model manager (its own files, other servers).

    `downloads` is the window's: a download started here goes on when the dialog closes.
    Without it the dialog keeps its own, and closing the dialog stops them (the parts are
    kept for a resume).
    """

    models_changed = Signal()
    rows_listed = Signal(int)
    more_requested = Signal()

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        *,
        detect: Detect | None = None,
        state_path: Path | None = None,
        downloads: ModelDownloads | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunDialog")
        self.setWindowTitle("Set up answers")
        self.setModal(False)
        self._api, self._runner = api, runner
        self._own_downloads = downloads is None
        self.downloads = downloads or ModelDownloads(api, runner, self)
        self._state_path = state_path
        self.choice = ""
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(QLabel("<b>Download a recommended model</b>"))
        self.rows: list[DownloadRow] = []
        self._rows = QVBoxLayout()
        layout.addLayout(self._rows)
        self.list_job = runner.start(
            lambda _p: api.list_models(), label="list models", on_finished=self._listed
        )
        layout.addWidget(QLabel("<b>Or use a model server on this computer</b>"))
        self.servers = QVBoxLayout()
        self.looking = QLabel("Looking for Ollama and LM Studio…")
        self.looking.setObjectName("serverStatus")
        self.looking.setWordWrap(True)
        self.servers.addWidget(self.looking)
        layout.addLayout(self.servers)
        later_note = QLabel(LATER_NOTE)
        later_note.setObjectName("laterNote")
        later_note.setWordWrap(True)
        layout.addStretch(1)
        layout.addWidget(later_note)
        self.more = QPushButton("More choices…")
        self.more.setObjectName("moreChoices")
        self.more.setToolTip("The model manager: every catalog model, your own GGUF file, servers")
        self.more.clicked.connect(self._more)
        self.more.hide()  # shown when someone listens (the window's model manager)
        self.later = QPushButton("Decide later")
        self.later.setObjectName("decideLater")
        self.later.setToolTip("Nothing is downloaded; answers quote passages until then")
        self.later.clicked.connect(lambda: self.choose("later"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.more)
        buttons.addStretch(1)
        buttons.addWidget(self.later)
        layout.addLayout(buttons)
        self.resize(640, 600)
        look = detect or api.detect_servers
        self.detect_job = runner.start(
            lambda _p: look(), label="look for local model servers", on_finished=self._found
        )

    # -- choices -----------------------------------------------------------------------------
    def _listed(self, models: ModelList) -> None:
        """A row per recommended chat model the owner does not have yet."""
        for entry in models.of_kind("chat"):
            if entry.recommended and entry.capable and entry.source == "catalog":
                row = DownloadRow(entry, self.downloads)
                row.installed.connect(self._installed)
                self._rows.addWidget(row)
                self.rows.append(row)
        self.rows_listed.emit(len(self.rows))

    def _found(self, servers: list[DetectedServerInfo]) -> None:
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

    def use_server(self, server: DetectedServerInfo) -> None:
        """Answer with that server's models: configured in the owner (live, and saved)."""

        def configured(_result: object) -> None:
            self.models_changed.emit()
            self.choose("server")

        self._runner.start(
            lambda _p: self._api.use_server(server),
            label=f"Use {server.name}",
            interactive=True,
            on_finished=configured,
        )

    def _installed(self, _model_id: str) -> None:
        self.models_changed.emit()
        self.choose("download")

    def _more(self) -> None:
        self.more_requested.emit()
        self.choose("manager")

    def choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()

    def done(self, result: int) -> None:
        """Any way out counts as an answer: remembered, so the dialog is not shown again.
        Its own downloads stop (their parts are kept); the window's go on."""
        if self._own_downloads:
            self.downloads.cancel_all()
        state = load_ui_state(self._state_path)
        state.first_run = self.choice or "dismissed"
        with contextlib.suppress(OSError):  # not remembered: offered again, which is harmless
            save_ui_state(state, self._state_path)
        super().done(result)
