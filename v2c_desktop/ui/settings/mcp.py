"""The MCP section of the settings dialog: the exact configuration for Claude Desktop and
Cursor (with Copy buttons) and the agents connected to this app right now."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..owner_state import NOT_STARTED, OwnerState, since
from .mcp_config import CLAUDE_DESKTOP_FILE, CURSOR_FILE, claude_desktop_snippet, cursor_snippet

INTRO = (
    "AI agents use this library through the MCP server `v2c mcp`, which they start "
    "themselves. While this app runs it owns the library and serves them, so they see "
    "your imports at once; paste one of these into the agent's configuration."
)
AGENT_COLUMNS = ("Agent", "PID", "Since")


class SnippetBox(QWidget):
    """A read-only JSON snippet with a Copy button."""

    def __init__(self, title: str, text: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QPlainTextEdit(text)
        self.text.setObjectName(name)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lines = text.count("\n") + 1
        scrollbar = self.text.horizontalScrollBar().sizeHint().height()
        self.text.setFixedHeight(self.text.fontMetrics().lineSpacing() * lines + scrollbar + 12)
        self.copy = QPushButton("Copy")
        self.copy.setObjectName(f"{name}Copy")
        self.copy.clicked.connect(self.copy_text)
        header = QHBoxLayout()
        label = QLabel(title)
        label.setWordWrap(True)
        header.addWidget(label, 1)
        header.addWidget(self.copy)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.text)

    def copy_text(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())
        self.copy.setText("Copied")


class McpSection(QGroupBox):
    def __init__(
        self, library: Path, owner: OwnerState | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__("MCP (AI agents)", parent)
        self.setObjectName("settingsMcp")
        self._owner = owner
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.claude = SnippetBox(
            f"Add to {CLAUDE_DESKTOP_FILE} (Claude Desktop: Settings → Developer → Edit Config):",
            claude_desktop_snippet(library),
            "mcpClaudeSnippet",
        )
        self.cursor_box = SnippetBox(
            f"Add to {CURSOR_FILE} in your project, or ~/{CURSOR_FILE} for every project:",
            cursor_snippet(library),
            "mcpCursorSnippet",
        )
        self.tabs = QTabWidget()
        self.tabs.setObjectName("mcpSnippets")
        self.tabs.addTab(self.claude, "Claude Desktop")
        self.tabs.addTab(self.cursor_box, "Cursor")
        self.role = QLabel()
        self.role.setObjectName("mcpRole")
        self.role.setWordWrap(True)
        self.agents = QTableWidget(0, len(AGENT_COLUMNS))
        self.agents.setObjectName("mcpAgents")
        self.agents.setHorizontalHeaderLabels(list(AGENT_COLUMNS))
        self.agents.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.agents.verticalHeader().hide()
        self.agents.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.agents.setMaximumHeight(90)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tabs)
        layout.addWidget(self.role)
        layout.addWidget(self.agents)
        if owner is not None:
            owner.changed.connect(self.show_agents)
        self.show_agents()

    def show_agents(self) -> None:
        owner = self._owner
        clients = owner.clients() if owner is not None else []
        self.role.setText(owner.status_text() if owner is not None else NOT_STARTED)
        self.agents.setRowCount(len(clients))
        for row, client in enumerate(clients):
            values = (client.name, str(client.pid or "?"), since(client))
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(value)  # a long agent name is elided in its cell
                self.agents.setItem(row, column, item)
