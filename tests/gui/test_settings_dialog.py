"""The settings dialog edits the typed settings, saves them, and never shows or logs keys."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGroupBox, QLineEdit, QMessageBox, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from v2c_desktop.core.settings import ModelSettings, ServerSetting, Settings, load_settings
from v2c_desktop.ui.settings.dialog import SettingsDialog
from v2c_desktop.ui.settings.servers import KEY, KEY_ENV, MODELS, NAME, URL

pytestmark = pytest.mark.gui

SECRET = "sk-test-0123456789"


def test_edits_are_saved_and_unknown_fields_kept(
    qtbot: QtBot, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = ServerSetting("lab", "http://localhost:8080/v1", api_key=SECRET, quality=80)
    settings = Settings(models=ModelSettings(servers=[server], idle_unload_s=30.0))
    path = tmp_path / "settings.json"
    dialog = SettingsDialog(settings, path)
    qtbot.addWidget(dialog)
    key = dialog.servers.cell(0, KEY)
    assert key.echoMode() == QLineEdit.EchoMode.Password and key.text() == SECRET
    dialog.library.setText(str(tmp_path / "other.duckdb"))
    dialog.languages.setText("de, en")
    dialog.cookies.setCurrentText("firefox")
    dialog.proxy.setText("socks5://127.0.0.1:1080")
    assert not dialog.transcribe_web.isChecked()  # the user's consent: off until given
    dialog.transcribe_web.setChecked(True)
    dialog.policy.setCurrentText("quality")
    dialog.chat_model.setText("lab/qwen")
    dialog.servers.add_server(None)
    dialog.servers.cell(1, NAME).setText("cloud")
    dialog.servers.cell(1, URL).setText("https://api.example.com/v1")
    dialog.servers.cell(1, KEY_ENV).setText("EXAMPLE_API_KEY")
    dialog.servers.cell(1, MODELS).setText("big, small")
    with qtbot.waitSignal(dialog.saved) as saved:
        dialog.accept()
    loaded = load_settings(path)
    assert saved.args[0] == loaded
    assert loaded.last_library == str(tmp_path / "other.duckdb")
    assert loaded.imports.languages == ["de", "en"]
    assert loaded.imports.cookies_from_browser == "firefox"
    assert loaded.imports.proxy == "socks5://127.0.0.1:1080"
    assert loaded.imports.transcribe_without_captions
    assert loaded.models.policy == "quality" and loaded.models.chat_model == "lab/qwen"
    assert loaded.models.idle_unload_s == 30.0  # not on the dialog: kept
    lab, cloud = loaded.models.servers
    assert lab.api_key == SECRET and lab.quality == 80
    assert cloud.api_key is None and cloud.api_key_env == "EXAMPLE_API_KEY"
    assert cloud.chat_models == ["big", "small"]
    assert SECRET not in caplog.text
    assert SECRET not in repr(loaded)


def test_the_mcp_section_shows_the_exact_snippets_and_copies_them(
    qtbot: QtBot, tmp_path: Path
) -> None:
    library = tmp_path / "my library.duckdb"
    dialog = SettingsDialog(Settings(), tmp_path / "settings.json", library=library)
    qtbot.addWidget(dialog)
    box = dialog.findChild(QGroupBox, "settingsMcp")
    assert box is not None
    v2c = str(Path(sys.executable).absolute().with_name("v2c"))
    expected = {"mcpServers": {"v2c": {"command": v2c, "args": ["mcp", "--library", str(library)]}}}
    claude = box.findChild(QPlainTextEdit, "mcpClaudeSnippet")
    cursor = box.findChild(QPlainTextEdit, "mcpCursorSnippet")
    assert claude is not None and cursor is not None
    assert json.loads(claude.toPlainText()) == expected
    assert json.loads(cursor.toPlainText()) == expected
    assert Path(v2c).is_file()  # the venv's console script: what an agent will start
    copy = box.findChild(QPushButton, "mcpClaudeSnippetCopy")
    assert copy is not None
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == claude.toPlainText()
    assert dialog.mcp.role.text() == "Agents: not started"  # no owner session in this test


def test_an_unwritable_settings_file_shows_an_error_and_keeps_the_dialog(
    qtbot: QtBot, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    dialog = SettingsDialog(Settings(), blocker / "settings.json")
    qtbot.addWidget(dialog)
    dialog.show()
    saved: list[object] = []
    dialog.saved.connect(saved.append)
    dialog.accept()
    assert saved == [] and dialog.isVisible()
    box = dialog.findChild(QMessageBox, "errorBox")
    assert box is not None and box.text()
    box.close()
