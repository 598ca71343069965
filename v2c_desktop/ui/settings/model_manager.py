"""The model manager: the settings pages where a person gets and keeps chat models.

`ModelsPage`: which model answers now, the catalog (size, licence, what each is good for,
its speed on this computer, measured or estimated) with Download / Cancel / Resume, Test
and Remove, and the user's own GGUF files (add one with a file dialog). `ServersPage`:
Ollama and LM Studio found on this computer (Use), and OpenAI-compatible servers with a
Test button. Everything goes through `CoreAPI` as jobs on the runner: the window never
waits, and anything slow says it is running and can be stopped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.models import (
    DetectedServerInfo,
    InstalledModelInfo,
    ModelList,
    ModelRow,
    ModelTest,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.settings import ServerSetting

from ..bridge import JobRunner
from .first_run_rows import server_button
from .job_button import JobButton
from .model_downloads import ModelDownloads, while_alive
from .model_rows import CatalogRow, LocalFileRow
from .model_text import failure_text, rate_text, test_text
from .servers import ServersTable

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

Row = TypeVar("Row", CatalogRow, LocalFileRow)
#: The quality `use_server` gives a detected server's models (as the first-run dialog does).
DETECTED_QUALITY = 40
MEASURE_TIP = (
    "Loads the smallest model on this computer and times a short answer (a few seconds). "
    "Every other model's speed is estimated from it: bigger files write more slowly."
)


def _note(text: str, name: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if name:
        label.setObjectName(name)
    return label


def _current_text(models: ModelList) -> str:
    """Which model answers now, in a sentence."""
    by_id = {row.id: row for row in models.models}
    capable = [by_id[i] for i in models.chat_chain if i in by_id and by_id[i].capable]
    if not capable:
        return (
            "Answers now: extractive (the passages that match, quoted with their times). "
            "Download a model below, or use a model server (the Servers page), to get "
            "written answers."
        )
    first = capable[0]
    where = "on this computer" if first.local else "on a server outside this computer"
    return f"Answers now come from {first.label} ({where})."


def _catalog_order(row: ModelRow) -> tuple[bool, bool, int]:
    """Recommended capable models first, smallest first; the test model last."""
    return (not row.capable, not row.recommended, row.size_bytes or 0)


class ModelsPage(QWidget):
    """Signals:
    listed(ModelList): the models were listed (again).
    models_changed(): a model was downloaded, added, removed or measured.
    """

    listed = Signal(object)
    models_changed = Signal()

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        downloads: ModelDownloads,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("modelsPage")
        self._api, self._runner, self.downloads = api, runner, downloads
        self.models: ModelList | None = None
        self.rows: dict[str, CatalogRow] = {}
        self.files: dict[str, LocalFileRow] = {}
        self._list_job = ""
        self._again = False
        self._reference: ModelRow | None = None
        self._just_measured = False
        self.current = _note("Listing the models…", "currentModel")
        self.measure = JobButton(
            "Measure speed", "Stop measuring", runner, label="Measure this computer's speed"
        )
        self.measure.setObjectName("measureSpeed")
        self.measure.setToolTip(MEASURE_TIP)
        self.measure.setEnabled(False)
        self.measure_note = _note(
            "Speeds are estimates for this computer: press Measure speed for a short test.",
            "measureNote",
        )
        self.measure.running.connect(self._measuring)
        self.measure.succeeded.connect(self._measured)
        self.measure.failed.connect(lambda e: self.measure_note.setText(failure_text(e)))
        self.measure.stopped.connect(lambda: self.measure_note.setText("Measuring stopped."))
        speed_row = QHBoxLayout()
        speed_row.addWidget(self.measure_note, 1)
        speed_row.addWidget(self.measure, 0, Qt.AlignmentFlag.AlignTop)

        self.catalog_box = QGroupBox("Chat models to download")
        self.catalog_box.setObjectName("catalogBox")
        self._catalog = QVBoxLayout(self.catalog_box)

        self.files_box = QGroupBox("Your own model files (GGUF)")
        self.files_box.setObjectName("filesBox")
        self._files = QVBoxLayout()
        self.add_file = QPushButton("Add a GGUF file…")
        self.add_file.setObjectName("addModelFile")
        self.add_file.setToolTip("Use a .gguf chat model you already have; it is not copied")
        self.add_file.clicked.connect(self.choose_file)
        self.file_message = _note("", "fileMessage")
        self.file_message.hide()
        add_row = QHBoxLayout()
        add_row.addWidget(self.file_message, 1)
        add_row.addWidget(self.add_file, 0, Qt.AlignmentFlag.AlignTop)
        files = QVBoxLayout(self.files_box)
        files.addLayout(self._files)
        files.addLayout(add_row)

        self.embedder = _note("", "embedderNote")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.current)
        layout.addLayout(speed_row)
        layout.addWidget(self.catalog_box)
        layout.addWidget(self.files_box)
        layout.addWidget(self.embedder)
        layout.addStretch(1)
        # a bound method: disconnected when the page goes with its dialog (a lambda is not)
        downloads.finished.connect(self._download_finished)
        self.refresh()

    # -- listing -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """List the models again (once more after the current listing, if one runs)."""
        if self._list_job:
            self._again = True
            return
        self._list_job = self._runner.start(
            lambda _p: self._api.list_models(),
            label="list models",
            on_finished=while_alive(self, self._listed),
            on_failed=while_alive(self, self._list_failed),
        )

    def _listed(self, models: ModelList) -> None:
        self._list_job = ""
        if self._again:
            self._again = False
            self.refresh()
        self.models = models
        self.current.setText(_current_text(models))
        chat = models.of_kind("chat")
        catalog = sorted((r for r in chat if r.source == "catalog"), key=_catalog_order)
        self._sync(self.rows, self._catalog, catalog, self._catalog_row)
        files = [r for r in chat if r.source == "local-file"]
        self._sync(self.files, self._files, files, self._file_row)
        if not files:
            self.file_message.setText("No files added yet.")
            self.file_message.show()
        self._show_measure(chat)
        embedder = next((r for r in models.models if r.id == models.embedding_model), None)
        name = embedder.label if embedder is not None else models.embedding_model
        shipped = embedder is not None and embedder.installed and not embedder.removable
        self.embedder.setText(
            f"Search finds passages with {name}"
            + (", which comes with the app." if shipped else ".")
        )
        self.listed.emit(models)

    def _list_failed(self, error: V2CError) -> None:
        self._list_job = ""
        self.current.setText(failure_text(error))

    @staticmethod
    def _sync(
        rows: dict[str, Row],
        layout: QVBoxLayout,
        entries: list[ModelRow],
        make: Callable[[ModelRow], Row],
    ) -> None:
        """Update rows in place (a running download or a test result stays), add new ones,
        drop gone ones, in the listed order."""
        wanted = {entry.id for entry in entries}
        for model_id in [i for i in rows if i not in wanted]:
            rows.pop(model_id).deleteLater()
        for index, entry in enumerate(entries):
            row = rows.get(entry.id)
            if row is None:
                row = rows[entry.id] = make(entry)
            else:
                row.update_entry(entry)
            layout.insertWidget(index, row)

    def _catalog_row(self, entry: ModelRow) -> CatalogRow:
        row = CatalogRow(entry, self.downloads)
        row.changed.connect(self._changed)
        return row

    def _file_row(self, entry: ModelRow) -> LocalFileRow:
        self.file_message.hide()
        row = LocalFileRow(entry, self._api, self._runner)
        row.changed.connect(self._changed)
        return row

    def _download_finished(self, _model_id: str, _model: InstalledModelInfo) -> None:
        self._changed()

    def _changed(self) -> None:
        self.refresh()
        self.models_changed.emit()

    # -- measuring ---------------------------------------------------------------------------
    def reference_model(self, chat: list[ModelRow]) -> ModelRow | None:
        """The smallest installed llama.cpp model: the quickest honest measurement."""
        local = [r for r in chat if r.installed and r.runtime == "llamacpp"]
        return min(local, key=lambda r: r.size_bytes or 0, default=None)

    def _show_measure(self, chat: list[ModelRow]) -> None:
        reference = self.reference_model(chat)
        if self.measure.job:
            return
        self.measure.setEnabled(reference is not None)
        if reference is None:
            self.measure.work = None
            self.measure_note.setText(
                "Speeds can be estimated once a model is on this computer (the app's small "
                "test model is missing)."
            )
            return
        model_id = reference.id
        self._reference = reference
        self.measure.work = lambda: self._api.test_model(model_id)
        if self._just_measured:
            return  # keep what the measurement said
        if any(r.speed == "measured" for r in chat if r.runtime == "llamacpp"):
            self.measure_note.setText(
                "Speeds here are measured on this computer, or estimated from a measured "
                "model (bigger files write more slowly)."
            )

    def _measuring(self, running: bool) -> None:
        if running:
            self.measure_note.setText("Measuring: loading a small model and timing an answer…")

    def _measured(self, result: ModelTest) -> None:
        name = self._reference.label if self._reference is not None else result.model
        rate = result.generation_tokens_per_s
        self._just_measured = True
        self.measure_note.setText(
            f"Measured with {name}: it writes {rate_text(rate)} here. The other speeds are "
            "estimated from it (bigger files write more slowly)."
            if rate
            else f"Measured with {name}. {test_text(result)}"
        )
        self._changed()

    # -- adding a file -----------------------------------------------------------------------
    def choose_file(self) -> QFileDialog:
        """A file dialog (opened, never exec'd) for a .gguf file to add."""
        dialog = QFileDialog(self, "Add a GGUF model file")
        dialog.setObjectName("addModelDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters(["GGUF models (*.gguf)", "All files (*)"])
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.add_local_file)
        dialog.open()
        return dialog

    def add_local_file(self, path: str) -> None:
        if not path:
            return
        self.file_message.setText("Adding…")
        self.file_message.show()
        self.add_file.setEnabled(False)
        self._runner.start(
            lambda _p: self._api.add_model(path),
            label="Add a model file",
            on_finished=while_alive(self, self._added),
            on_failed=while_alive(self, self._add_failed),
        )

    def _added(self, model: InstalledModelInfo) -> None:
        self.add_file.setEnabled(True)
        self.file_message.setText(f"Added {model.id}: press Test to try it.")
        self._changed()

    def _add_failed(self, error: V2CError) -> None:
        self.add_file.setEnabled(True)
        self.file_message.setText(failure_text(error))
        self.file_message.show()


class ServersPage(QWidget):
    """Ollama / LM Studio found on this computer, and the OpenAI-compatible servers table
    (saved with the dialog) with a Test button per server.

    Signals:
        models_changed(): a detected server was put to use.
    """

    models_changed = Signal()

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        servers: ServersTable,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("serversPage")
        self._api, self._runner, self.servers = api, runner, servers
        self.detected_box = QGroupBox("Ollama and LM Studio on this computer")
        self.detected_box.setObjectName("detectedBox")
        self.looking = _note("", "serverStatus")
        self.again = QPushButton("Look again")
        self.again.setObjectName("detectAgain")
        self.again.clicked.connect(self.detect)
        self._found = QVBoxLayout()
        top = QHBoxLayout()
        top.addWidget(self.looking, 1)
        top.addWidget(self.again, 0, Qt.AlignmentFlag.AlignTop)
        box = QVBoxLayout(self.detected_box)
        box.addLayout(top)
        box.addLayout(self._found)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.detected_box)
        self.detect()

    def detect(self) -> None:
        self.again.setEnabled(False)
        self.looking.setText("Looking for Ollama and LM Studio…")
        self._runner.start(
            lambda _p: self._api.detect_servers(),
            label="look for local model servers",
            on_finished=while_alive(self, self._detected),
            on_failed=while_alive(self, self._detect_failed),
        )

    def _clear_found(self) -> None:
        while self._found.count():
            item = self._found.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()

    def _detected(self, found: list[DetectedServerInfo]) -> None:
        self.again.setEnabled(True)
        self._clear_found()
        if not found:
            self.looking.setText(
                "No Ollama or LM Studio is running on this computer. Start one and press "
                "Look again, or add any OpenAI-compatible server below."
            )
            return
        self.looking.setText("Found on this computer:")
        configured = {s.base_url.rstrip("/") for s in self.servers.servers()}
        for server in found:
            count = len(server.models)
            if not count:
                self._found.addWidget(_note(f"{server.name} is running but has no models yet."))
                continue
            names = ", ".join(server.models[:3]) + (", …" if count > 3 else "")
            models = f"{count} model{'s' * (count > 1)}: {names}"
            text = f"Use {server.name} at {server.base_url} ({models})"
            button = server_button(text, functools.partial(self.use_server, server))
            if server.base_url.rstrip("/") in configured:
                button.setText(f"{server.name} at {server.base_url}: in use")
                button.setEnabled(False)
            self._found.addWidget(button)

    def _detect_failed(self, error: V2CError) -> None:
        self.again.setEnabled(True)
        self.looking.setText(failure_text(error))

    def use_server(self, server: DetectedServerInfo) -> None:
        """Answer with its models from now on (the owner saves it), and list it below so
        the dialog's Save keeps it."""

        def used(_result: object) -> None:
            setting = ServerSetting(
                name=server.name,
                base_url=server.base_url,
                chat_models=list(server.models),
                quality=DETECTED_QUALITY,
                local=True,
            )
            if all(s.base_url != server.base_url for s in self.servers.servers()):
                self.servers.add_server(setting)
            self.models_changed.emit()
            self.detect()

        self._runner.start(
            lambda _p: self._api.use_server(server, DETECTED_QUALITY),
            label=f"Use {server.name}",
            interactive=True,
            on_finished=while_alive(self, used),
        )
