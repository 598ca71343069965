"""The OpenAI-compatible servers table of the settings dialog; API keys are password fields.

With a `test` function (the dialog's `CoreAPI.test_server`), each row has a Test button that
tries the server as typed, before it is saved, and says what came of it below the table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.models import ModelTest
from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.settings import ServerSetting

from ..bridge import JobRunner
from .job_button import JobButton
from .model_text import failure_text, test_text

COLUMNS = ("Name", "Base URL", "API key variable", "API key", "Chat models")
NAME, URL, KEY_ENV, KEY, MODELS = range(len(COLUMNS))
TEST = len(COLUMNS)  # the Test buttons' column, when the table can test

TestServer = Callable[[ServerSetting], Awaitable[ModelTest]]


def split_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class ServersTable(QWidget):
    """Edits a list of `ServerSetting`; fields it does not show are kept as they were."""

    def __init__(
        self,
        servers: list[ServerSetting],
        parent: QWidget | None = None,
        *,
        runner: JobRunner | None = None,
        test: TestServer | None = None,
    ) -> None:
        super().__init__(parent)
        self._originals: list[ServerSetting | None] = []
        self._runner = runner
        self._test = test if runner is not None else None
        columns = len(COLUMNS) + (1 if self._test is not None else 0)
        self.table = QTableWidget(0, columns)
        self.table.setObjectName("servers")
        self.table.setHorizontalHeaderLabels([*COLUMNS, ""][:columns])
        self.table.horizontalHeader().setSectionResizeMode(URL, QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        add = QPushButton("Add server")
        remove = QPushButton("Remove server")
        add.clicked.connect(lambda: self.add_server(None))
        remove.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        self.result = QLabel()
        self.result.setObjectName("serverTestResult")
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(self.result)
        for server in servers:
            self.add_server(server)

    def add_server(self, server: ServerSetting | None) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self._originals.append(server)
        values = {
            NAME: server.name if server else "",
            URL: server.base_url if server else "http://localhost:11434/v1",
            KEY_ENV: (server.api_key_env or "") if server else "",
            KEY: (server.api_key or "") if server else "",
            MODELS: ", ".join(server.chat_models) if server else "",
        }
        for column, value in values.items():
            edit = QLineEdit(value)
            edit.setFrame(False)
            if column == KEY:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
                edit.setPlaceholderText("prefer the variable")
            if column == KEY_ENV:
                edit.setPlaceholderText("e.g. OPENAI_API_KEY")
            if column == MODELS:
                edit.setPlaceholderText("e.g. llama3.2:3b, qwen2.5:7b")
            self.table.setCellWidget(row, column, edit)
        if self._test is not None and self._runner is not None:
            self.table.setCellWidget(row, TEST, self._test_button())

    def _test_button(self) -> JobButton:
        assert self._runner is not None
        button = JobButton("Test", "Stop", self._runner, label="Test a model server")
        button.setObjectName("serverTest")
        button.setToolTip("Ask the server a short question, as typed here (before saving)")
        button.work = lambda: self._test_row(button)
        button.running.connect(lambda running: self._testing(button, running))
        button.succeeded.connect(lambda result: self._say(self._tested_text(button, result)))
        button.failed.connect(lambda error: self._say(failure_text(error)))
        button.stopped.connect(lambda: self._say("Test stopped."))
        return button

    def _row_of(self, widget: QWidget) -> int:
        for row in range(self.table.rowCount()):
            if self.table.cellWidget(row, TEST) is widget:
                return row
        return -1

    async def _test_row(self, button: QWidget) -> ModelTest:
        server = self.server_at(self._row_of(button))
        if server is None:
            raise bad_request("this server has no name or no address yet", "type both first")
        assert self._test is not None
        return await self._test(server)

    def _testing(self, button: QWidget, running: bool) -> None:
        if running:
            server = self.server_at(self._row_of(button))
            self._say(f"Testing {server.name}…" if server is not None else "Testing…")

    def _tested_text(self, button: QWidget, result: ModelTest) -> str:
        server = self.server_at(self._row_of(button))
        name = server.name if server is not None else "The server"
        model = result.model.rsplit("/", 1)[-1]
        text = f"{name} ({model}): {test_text(result)}"
        if server is not None and not server.chat_models:
            text += f" To answer with it, type {model} under Chat models."
        return text

    def _say(self, text: str) -> None:
        self.result.setText(text)
        self.result.setVisible(bool(text))

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)
            del self._originals[row]

    def cell(self, row: int, column: int) -> QLineEdit:
        widget = self.table.cellWidget(row, column)
        assert isinstance(widget, QLineEdit)
        return widget

    def test_button(self, row: int) -> JobButton:
        widget = self.table.cellWidget(row, TEST)
        assert isinstance(widget, JobButton)
        return widget

    def server_at(self, row: int) -> ServerSetting | None:
        """The server row `row` describes as typed (None without a name or an address)."""
        if not 0 <= row < self.table.rowCount():
            return None
        name = self.cell(row, NAME).text().strip()
        url = self.cell(row, URL).text().strip()
        if not name or not url:
            return None
        original = self._originals[row] or ServerSetting(name=name, base_url=url)
        return replace(
            original,
            name=name,
            base_url=url,
            api_key_env=self.cell(row, KEY_ENV).text().strip() or None,
            api_key=self.cell(row, KEY).text() or None,
            chat_models=split_list(self.cell(row, MODELS).text()),
        )

    def servers(self) -> list[ServerSetting]:
        found = (self.server_at(row) for row in range(self.table.rowCount()))
        return [server for server in found if server is not None]
