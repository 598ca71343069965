"""The OpenAI-compatible servers table of the settings dialog; API keys are password fields."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.settings import ServerSetting

COLUMNS = ("Name", "Base URL", "API key variable", "API key", "Chat models")
NAME, URL, KEY_ENV, KEY, MODELS = range(len(COLUMNS))


def split_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class ServersTable(QWidget):
    """Edits a list of `ServerSetting`; fields it does not show are kept as they were."""

    def __init__(self, servers: list[ServerSetting], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._originals: list[ServerSetting | None] = []
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("servers")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
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
            self.table.setCellWidget(row, column, edit)

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)
            del self._originals[row]

    def cell(self, row: int, column: int) -> QLineEdit:
        widget = self.table.cellWidget(row, column)
        assert isinstance(widget, QLineEdit)
        return widget

    def servers(self) -> list[ServerSetting]:
        out = []
        for row in range(self.table.rowCount()):
            name = self.cell(row, NAME).text().strip()
            url = self.cell(row, URL).text().strip()
            if not name or not url:
                continue
            original = self._originals[row] or ServerSetting(name=name, base_url=url)
            out.append(
                replace(
                    original,
                    name=name,
                    base_url=url,
                    api_key_env=self.cell(row, KEY_ENV).text().strip() or None,
                    api_key=self.cell(row, KEY).text() or None,
                    chat_models=split_list(self.cell(row, MODELS).text()),
                )
            )
        return out
