"""The "Local HTTP server" part of the MCP settings: start and stop `v2c mcp --http` on a
port, show its URL to copy, make a token (shown once, with a Copy button) and revoke one.

The server itself belongs to the window (`ui/http_server.py`), so it goes on running when
the dialog closes and stops when the app quits. A token is saved at once (as a hash, in
the settings file) and a running server accepts it from its next request; it is shown only
in this box, until the dialog closes. Revoking removes it from the settings file the same
way: the running server refuses it from its next request.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.mcp_tokens import add_token, list_tokens, next_name, revoke_token

from ..http_server import FAILED, RUNNING, STARTING, STOPPED, HttpServer

INTRO = (
    "For agents that cannot start a program: the same tools at a URL on this computer, "
    "for clients that send one of your tokens. Export to Obsidian is not offered over HTTP."
)
ONCE = "Shown only now: copy it into your client. v2c keeps only a hash of it."
STATES = {STOPPED: "Stopped", STARTING: "Starting…", RUNNING: "Running", FAILED: "Not running"}


def copy_row(field: QLineEdit, name: str) -> tuple[QHBoxLayout, QPushButton]:
    """`field` (read-only) with a Copy button beside it."""
    field.setReadOnly(True)
    field.setObjectName(name)
    button = QPushButton("Copy")
    button.setObjectName(f"{name}Copy")

    def copy() -> None:
        QGuiApplication.clipboard().setText(field.text())
        button.setText("Copied")

    def changed(text: str) -> None:
        button.setText("Copy")
        button.setEnabled(bool(text))  # nothing to copy until there is a URL or a token

    button.clicked.connect(copy)
    field.textChanged.connect(changed)
    changed(field.text())
    row = QHBoxLayout()
    row.addWidget(field, 1)
    row.addWidget(button)
    return row, button


class HttpServerBox(QGroupBox):
    """Start/stop with the port, the URL, and Create token."""

    def __init__(
        self,
        server: HttpServer | None,
        port: int,
        settings_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Local HTTP server", parent)
        self.setObjectName("mcpHttp")
        self.server = server
        self._settings_path = settings_path
        self._shown: str | None = None  # the name of the token on show, if one is
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.port = QSpinBox()
        self.port.setObjectName("mcpHttpPort")
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("any free port")
        self.port.setValue(port)
        self.toggle = QPushButton("Start")
        self.toggle.setObjectName("mcpHttpToggle")
        self.toggle.clicked.connect(self._toggle)
        self.status = QLabel()
        self.status.setObjectName("mcpHttpStatus")
        self.status.setWordWrap(True)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Port:"))
        controls.addWidget(self.port)
        controls.addWidget(self.toggle)
        controls.addWidget(self.status, 1)
        self.url = QLineEdit()
        self.url.setPlaceholderText("the URL, once the server runs")
        url_row, self.copy_url = copy_row(self.url, "mcpHttpUrl")
        self.token_name = QLineEdit()
        self.token_name.setObjectName("mcpHttpTokenName")
        self.token_name.setPlaceholderText("token name, e.g. claude-web (optional)")
        self.create_button = QPushButton("Create token")
        self.create_button.setObjectName("mcpHttpCreateToken")
        self.create_button.clicked.connect(self.create_token)
        name_row = QHBoxLayout()
        name_row.addWidget(self.token_name, 1)
        name_row.addWidget(self.create_button)
        self.token = QLineEdit()
        self.token.setPlaceholderText("a new token shows here once")
        token_row, self.copy_token = copy_row(self.token, "mcpHttpToken")
        self.token_note = QLabel()
        self.token_note.setObjectName("mcpHttpTokenNote")
        self.token_note.setWordWrap(True)
        self.tokens = QLabel()
        self.tokens.setObjectName("mcpHttpTokens")
        self.tokens.setWordWrap(True)
        self.revoke_choice = QComboBox()
        self.revoke_choice.setObjectName("mcpHttpRevokeChoice")
        self.revoke_choice.setToolTip("The token to revoke")
        self.revoke_button = QPushButton("Revoke")
        self.revoke_button.setObjectName("mcpHttpRevoke")
        self.revoke_button.setToolTip(
            "Clients using this token are refused from their next request"
        )
        self.revoke_button.clicked.connect(self.revoke_token)
        revoke_row = QHBoxLayout()
        revoke_row.addWidget(self.tokens, 1)
        revoke_row.addWidget(self.revoke_choice)
        revoke_row.addWidget(self.revoke_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(controls)
        layout.addLayout(url_row)
        layout.addLayout(name_row)
        layout.addLayout(token_row)
        layout.addWidget(self.token_note)
        layout.addLayout(revoke_row)
        if server is not None:
            server.changed.connect(self.show_state)
        self.show_state()
        self.show_tokens()

    # -- the server --------------------------------------------------------------------------
    def _toggle(self) -> None:
        server = self.server
        if server is None:
            return
        if server.state in (RUNNING, STARTING):
            server.stop()
        else:
            server.start(self.port.value())

    def show_state(self) -> None:
        server = self.server
        if server is None:
            self.toggle.setEnabled(False)
            self.status.setText("Available while the library is open in the app")
            return
        state = server.state
        running = state in (RUNNING, STARTING)
        self.toggle.setText("Stop" if running else "Start")
        self.port.setEnabled(not running)
        self.url.setText(server.url if state == RUNNING else "")
        text = STATES[state]
        if state == FAILED and server.error is not None:
            message, hint = server.error
            text = f"Not running: {message}" + (f"\nHint: {hint}" if hint else "")
        self.status.setText(text)

    # -- tokens ------------------------------------------------------------------------------
    def create_token(self) -> None:
        try:
            name = self.token_name.text().strip() or next_name(list_tokens(self._settings_path))
            record, secret = add_token(name, self._settings_path)
        except V2CError as error:
            self.token.clear()
            self.token_note.setText(f"{error.message}. {error.hint_for('app')}")
            return
        self.token_name.clear()
        self._shown = record.name
        self.token.setText(secret)
        self.token_note.setText(f"Token {record.name}. {ONCE}")
        self.show_tokens()

    def revoke_token(self) -> None:
        name = self.revoke_choice.currentText()
        if not name:
            return
        try:
            revoke_token(name, self._settings_path)
        except V2CError as error:
            self.token_note.setText(f"{error.message}. {error.hint_for('app')}")
        else:
            if name == self._shown:  # the token on show no longer works: stop offering it
                self.token.clear()
            self.token_note.setText(f"Token {name} revoked: clients using it are now refused.")
        self.show_tokens()

    def show_tokens(self) -> None:
        try:
            names = [token.name for token in list_tokens(self._settings_path)]
        except V2CError as error:
            names = []
            self.tokens.setText(error.message)
        else:
            self.tokens.setText(
                f"Tokens: {', '.join(names)}"
                if names
                else "No tokens yet: every request is refused until you create one."
            )
        self.revoke_choice.clear()
        self.revoke_choice.addItems(names)
        self.revoke_choice.setEnabled(bool(names))
        self.revoke_button.setEnabled(bool(names))
