"""The settings dialog: edits the typed `Settings` and saves them with `save_settings`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.paths import library_path
from v2c_desktop.core.settings import ImportSettings, ModelSettings, Settings, save_settings

from ..dialogs import show_error
from ..owner_state import OwnerState
from .mcp import McpSection
from .servers import ServersTable, split_list

BROWSERS = ("", "firefox", "chrome", "chromium", "brave", "edge", "opera", "vivaldi", "safari")
POLICIES = ("local-only", "quality")


class SettingsDialog(QDialog):
    """Library, import, model and MCP settings (the agents' configuration and who is connected).

    Signals:
        saved(settings): the settings were written to disk.
    """

    saved = Signal(object)

    def __init__(
        self,
        settings: Settings,
        path: Path | None = None,
        parent: QWidget | None = None,
        *,
        library: Path | None = None,
        owner: OwnerState | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self._settings = settings
        self._path = path
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Changes take effect the next time v2c desktop starts."))
        layout.addWidget(self._library_box(settings))
        layout.addWidget(self._imports_box(settings.imports))
        layout.addWidget(self._models_box(settings.models))
        self.mcp = McpSection(library or library_path(settings.last_library), owner)
        layout.addWidget(self.mcp)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(820, 860)

    # -- sections ----------------------------------------------------------------------------
    def _library_box(self, settings: Settings) -> QGroupBox:
        box = QGroupBox("Library")
        self.library = QLineEdit(settings.last_library or "")
        self.library.setObjectName("settingsLibrary")
        self.library.setPlaceholderText("the default location")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_library)
        row = QHBoxLayout()
        row.addWidget(self.library, 1)
        row.addWidget(browse)
        form = QFormLayout(box)
        form.addRow("Library file:", row)
        return box

    def _imports_box(self, imports: ImportSettings) -> QGroupBox:
        box = QGroupBox("Imports")
        self.languages = QLineEdit(", ".join(imports.languages))
        self.languages.setObjectName("settingsLanguages")
        self.languages.setPlaceholderText("e.g. en, de (empty: the video's own language)")
        self.cookies = QComboBox()
        self.cookies.setObjectName("settingsCookies")
        self.cookies.setEditable(True)
        self.cookies.addItems(list(BROWSERS))
        self.cookies.setCurrentText(imports.cookies_from_browser or "")
        self.cookies.setToolTip("yt-dlp syntax: BROWSER[+KEYRING][:PROFILE][::CONTAINER]")
        self.proxy = QLineEdit(imports.proxy or "")
        self.proxy.setObjectName("settingsProxy")
        self.proxy.setPlaceholderText("e.g. socks5://127.0.0.1:1080")
        form = QFormLayout(box)
        form.addRow("Caption languages:", self.languages)
        form.addRow("Cookies from browser:", self.cookies)
        form.addRow("Proxy:", self.proxy)
        return box

    def _models_box(self, models: ModelSettings) -> QGroupBox:
        box = QGroupBox("Models")
        self.policy = QComboBox()
        self.policy.setObjectName("settingsPolicy")
        self.policy.addItems(list(POLICIES))
        self.policy.setCurrentText(models.policy)
        self.chat_model = QLineEdit(models.chat_model or "")
        self.chat_model.setObjectName("settingsChatModel")
        self.chat_model.setPlaceholderText("automatic (by the policy)")
        self.strict = QCheckBox("Use only this model (no fallback)")
        self.strict.setChecked(models.strict)
        self.servers = ServersTable(models.servers)
        form = QFormLayout(box)
        form.addRow("Policy:", self.policy)
        form.addRow("Chat model:", self.chat_model)
        form.addRow("", self.strict)
        form.addRow(QLabel("OpenAI-compatible servers (Ollama, LM Studio, llama-server, APIs):"))
        form.addRow(self.servers)
        return box

    def _choose_library(self) -> None:
        dialog = QFileDialog(self, "Library file")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("v2c library (*.duckdb)")
        dialog.setDefaultSuffix("duckdb")
        dialog.setOption(QFileDialog.Option.DontConfirmOverwrite, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.library.setText)
        dialog.open()

    # -- saving ------------------------------------------------------------------------------
    def edited(self) -> Settings:
        """The settings as edited; fields the dialog does not show are kept."""
        old = self._settings
        return replace(
            old,
            last_library=self.library.text().strip() or None,
            imports=replace(
                old.imports,
                languages=split_list(self.languages.text()),
                cookies_from_browser=self.cookies.currentText().strip() or None,
                proxy=self.proxy.text().strip() or None,
            ),
            models=replace(
                old.models,
                policy=self.policy.currentText(),
                chat_model=self.chat_model.text().strip() or None,
                strict=self.strict.isChecked(),
                servers=self.servers.servers(),
            ),
        )

    def accept(self) -> None:
        settings = self.edited()
        try:
            save_settings(settings, self._path)
        except (OSError, V2CError) as exc:
            hint = getattr(exc, "hint", "") or "check that the settings folder is writable"
            show_error(self, "Settings not saved", str(exc), hint)
            return
        self._settings = settings
        self.saved.emit(settings)
        super().accept()
