"""The model manager's rows: a catalog model (download, resume, test, remove) and a GGUF file
of the user's own (test, remove from the list).

Every action goes through `CoreAPI` as a job; a row says what it is doing and what came of
it in plain words, and tells the page to list the models again when they changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QWidget

from v2c_desktop.core.domain.models import ModelRow, ModelTest
from v2c_desktop.core.errors import V2CError

from ..bridge import JobRunner
from ..dialogs import confirm
from ..rich_text import escape
from .first_run_rows import DownloadRow
from .job_button import JobButton
from .model_downloads import ModelDownloads, while_alive
from .model_text import failure_text, size_text, speed_text, speed_tooltip, test_text

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

TEST_MODEL_NOTE = (
    "A tiny test model that comes with the app: it loads in a second, but its answers are "
    "poor. Testing it measures this computer's speed for the estimates."
)


class _Actions:
    """Test and Remove for a row that shows one installed model (`entry`)."""

    entry: ModelRow
    message: QLabel
    changed: SignalInstance
    _api: CoreAPI
    _runner: JobRunner

    def _make_actions(self, owner: QWidget) -> QHBoxLayout:
        self.test = JobButton("Test", "Stop test", self._runner, label=f"Test {self.entry.label}")
        self.test.setObjectName("modelTest")
        self.test.setToolTip("Load the model, let it answer a short question and time it")
        self.test.work = lambda: self._api.test_model(self.entry.id)
        self.test.running.connect(self._testing)
        self.test.succeeded.connect(self._tested)
        self.test.failed.connect(lambda error: self._say(failure_text(error)))
        self.test.stopped.connect(lambda: self._say("Test stopped."))
        self.remove = QPushButton("Remove")
        self.remove.setObjectName("modelRemove")
        self.remove.clicked.connect(lambda: self.ask_remove(owner))
        box = QHBoxLayout()
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.test)
        box.addWidget(self.remove)
        return box

    def _testing(self, running: bool) -> None:
        if running:
            self._say("Loading the model and letting it answer a short question…")

    def _tested(self, result: ModelTest) -> None:
        self._say(test_text(result))
        self.changed.emit()  # its speed is measured now: the estimates change

    def remove_question(self) -> tuple[str, str]:
        return f"Remove {self.entry.label}?", ""

    def ask_remove(self, owner: QWidget) -> None:
        question, detail = self.remove_question()
        confirm(owner, "Remove model", question, self.remove_now, detail=detail)

    def remove_now(self) -> None:
        self.remove.setEnabled(False)
        self._say("Removing…")
        widget = self.remove
        self._runner.start(
            lambda _p: self._api.remove_model(self.entry.id),
            label=f"Remove {self.entry.label}",
            on_finished=while_alive(widget, lambda _id: self.changed.emit()),
            on_failed=while_alive(widget, self._remove_failed),
        )

    def _remove_failed(self, error: V2CError) -> None:
        self.remove.setEnabled(True)
        self._say(failure_text(error))

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))


class CatalogRow(DownloadRow, _Actions):
    """A catalog chat model: what it is good for, its size, licence and speed here; Download
    (with progress, Cancel and Resume), then Test and Remove.

    Signals:
        installed(model_id)
        changed(): the models changed (downloaded, stopped, removed, measured): list again.
    """

    changed = Signal()

    def __init__(
        self, entry: ModelRow, downloads: ModelDownloads, parent: QWidget | None = None
    ) -> None:
        self._api, self._runner = downloads.api, downloads.runner
        self.failed_before = False
        super().__init__(entry, downloads, parent)
        self.setObjectName("catalogRow")
        self.speed = QLabel()
        self.speed.setObjectName("modelSpeed")
        self.grid.addWidget(self.speed, 2, 0)
        self.grid.addLayout(self._make_actions(self), 2, 1)
        self.installed.connect(lambda _id: self.changed.emit())
        self.update_entry(entry)

    def update_entry(self, entry: ModelRow) -> None:
        """Show the row's model as listed now (keeping a message or a running download)."""
        self.entry = entry
        self.title.setText(self.title_text())
        self.note.setText(entry.note if entry.capable else TEST_MODEL_NOTE)
        self.speed.setText(speed_text(entry))
        self.speed.setToolTip(speed_tooltip(entry))
        running = self.downloads.running(entry.id) is not None
        shipped = entry.installed and not entry.removable
        if not running:
            self.download.setEnabled(not entry.installed)
            if shipped:
                self.download.setText("Comes with the app")
            elif entry.installed:
                self.download.setText("Installed")
            elif entry.partial_bytes:
                self.download.setText("Resume")
            elif self.failed_before:
                self.download.setText("Try again")
            else:
                self.download.setText("Download")
        self.test.setVisible(entry.installed)
        self.remove.setVisible(not running and (entry.removable or entry.partial_bytes > 0))
        self.remove.setText("Remove" if entry.installed else "Discard part")

    def _show_running(self) -> None:
        super()._show_running()
        if hasattr(self, "remove"):  # not yet while the base class builds the row
            self.remove.hide()

    def _on_cancelled(self, model_id: str) -> None:
        super()._on_cancelled(model_id)
        if model_id == self.entry.id:
            self.changed.emit()  # the part kept: it can be discarded now

    def _on_failed(self, model_id: str, error: V2CError) -> None:
        super()._on_failed(model_id, error)
        if model_id == self.entry.id:
            self.failed_before = True
            self.changed.emit()  # a part may be kept, or discarded (a wrong checksum)

    def remove_question(self) -> tuple[str, str]:
        entry = self.entry
        if not entry.installed:
            return (
                f"Discard the {size_text(entry.partial_bytes)} downloaded of {entry.label}?",
                "A later download starts from the beginning.",
            )
        return (
            f"Delete {entry.label} ({size_text(entry.size_bytes or 0)}) from this computer?",
            "You can download it again later.",
        )

    def _say(self, text: str) -> None:
        DownloadRow._say(self, text)


class LocalFileRow(QFrame, _Actions):
    """A GGUF file the user added: it stays where it is; Test, and Remove from the list.

    Signals:
        changed(): list the models again.
    """

    changed = Signal()

    def __init__(
        self, entry: ModelRow, api: CoreAPI, runner: JobRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.entry, self._api, self._runner = entry, api, runner
        self.setObjectName("localFileRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        size = f" · {size_text(entry.size_bytes)}" if entry.size_bytes else ""
        title = QLabel(f"<b>{escape(entry.label)}</b>{size} · your own file")
        title.setTextFormat(Qt.TextFormat.RichText)
        title.setObjectName("modelTitle")
        path = QLabel(entry.path)
        path.setObjectName("modelPath")
        path.setTextFormat(Qt.TextFormat.PlainText)
        path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        path.setWordWrap(True)
        self.speed = QLabel()
        self.speed.setObjectName("modelSpeed")
        self.message = QLabel()
        self.message.setObjectName("modelMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.hide()
        grid = QGridLayout(self)
        grid.addWidget(title, 0, 0)
        grid.addWidget(path, 1, 0)
        grid.addWidget(self.speed, 2, 0)
        grid.addLayout(self._make_actions(self), 0, 1)
        grid.addWidget(self.message, 3, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        self.remove.setText("Remove from list")
        self.remove.setToolTip("Forget this file here; the file itself stays on your disk")
        self.update_entry(entry)

    def update_entry(self, entry: ModelRow) -> None:
        self.entry = entry
        self.speed.setText(speed_text(entry))
        self.speed.setToolTip(speed_tooltip(entry))

    def remove_question(self) -> tuple[str, str]:
        return f"Remove {self.entry.label} from the list?", "The file itself stays on your disk."
