"""The Help menu: the keyboard shortcuts read from the window itself, About (version,
licences, where things live), and "Where is my library?" with working Open folder buttons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QMenu, QPushButton
from pytestqt.qtbot import QtBot

from v2c_desktop import __version__
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.settings import settings_path
from v2c_desktop.ui.help import AboutDialog, ShortcutsDialog, WhereDialog
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]


def help_menu(window: MainWindow) -> QMenu:
    menu = window.menuBar().findChild(QMenu, "helpMenu")
    assert menu is not None
    return menu


def native(keys: str | QKeySequence.StandardKey) -> str:
    return QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)


def test_the_shortcuts_dialog_lists_every_key_the_window_registers(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    texts = [a.text() for a in help_menu(window).actions()]
    assert texts == ["&Keyboard shortcuts", "&Where is my library?", "&About v2c desktop"]
    dialog = window.open_shortcuts()
    assert isinstance(dialog, ShortcutsDialog) and dialog.isVisible()
    listed = dialog.listed()
    assert ("File", "Add videos", native(QKeySequence.StandardKey.Open)) in listed
    assert ("Playback", "Play/Pause", "Space") in listed
    assert ("View", "Chat", native("Ctrl+L")) in listed
    assert ("Player", "Mute", "M") in listed  # the player dock's own action
    assert ("Help", "Keyboard shortcuts", native(QKeySequence.StandardKey.HelpContents)) in listed
    # the find bar's QShortcut has no text: it is named after its standard key
    assert ("Library", "Find next", native(QKeySequence.StandardKey.FindNext)) in listed
    # nothing the window answers is missing
    keyed = [a for a in window.findChildren(QAction) if any(not s.isEmpty() for s in a.shortcuts())]
    keyed_shortcuts = [s for s in window.findChildren(QShortcut) if s.keys()]
    assert len(listed) == len({(a.text(), a.shortcut().toString()) for a in keyed}) + len(
        {(id(s.parent()), s.key().toString()) for s in keyed_shortcuts}
    )
    groups = [dialog.tree.topLevelItem(i).text(0) for i in range(dialog.tree.topLevelItemCount())]
    assert groups[:4] == ["File", "View", "Playback", "Help"]
    dialog.reject()

    # a shortcut a pane registers later is listed the next time: the list cannot go stale
    extra = QAction("Jump to the newest video", window.search)
    extra.setShortcut(QKeySequence("Ctrl+Shift+J"))
    window.search.addAction(extra)
    again = window.open_shortcuts()
    assert ("Search", "Jump to the newest video", native("Ctrl+Shift+J")) in again.listed()
    again.reject()


def test_about_says_the_version_the_licences_and_where_things_live(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    opened: list[QUrl] = []
    window.open_url = lambda url: bool(opened.append(url)) or True
    qtbot.waitUntil(lambda: window.library_path is not None, timeout=30000)
    window.help.about.trigger()
    dialog = window.findChild(AboutDialog, "aboutDialog")
    assert dialog is not None and dialog.isVisible()
    version = dialog.findChild(QLabel, "aboutVersion")
    assert version is not None and version.text() == f"v2c desktop {__version__}"
    licences = dialog.findChild(QLabel, "aboutLicences")
    assert licences is not None
    assert "Font Awesome Free" in licences.text() and "LGPL" in licences.text()
    # the models on this machine, with their licences, read through the core
    qtbot.waitUntil(lambda: "all-MiniLM-L6-v2" in dialog.models.text(), timeout=30000)
    assert "(search): Apache-2.0" in dialog.models.text()
    assert dialog.places.library.text() == str(window.library_path)
    assert dialog.places.settings.text() == str(settings_path())
    open_library = dialog.findChild(QPushButton, "openLibraryFolder")
    open_settings = dialog.findChild(QPushButton, "openSettingsFolder")
    assert open_library is not None and open_settings is not None
    qtbot.mouseClick(open_library, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(open_settings, Qt.MouseButton.LeftButton)
    assert [Path(u.toLocalFile()) for u in opened] == [
        Path(str(window.library_path)).parent,
        settings_path().parent,
    ]
    dialog.reject()


def test_where_is_my_library_shows_the_file_and_opens_its_folder(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    opened: list[QUrl] = []
    window.open_url = lambda url: bool(opened.append(url)) or True
    qtbot.waitUntil(lambda: window.library_path is not None, timeout=30000)
    window.help.where.trigger()
    dialog = window.findChild(WhereDialog, "whereDialog")
    assert dialog is not None and dialog.isVisible()
    library = Path(str(window.library_path))
    assert dialog.places.library.text() == str(library) and library.is_file()
    copy = dialog.findChild(QPushButton, "copyLibraryPath")
    assert copy is not None
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(library)
    button = dialog.findChild(QPushButton, "openLibraryFolder")
    assert button is not None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert opened == [QUrl.fromLocalFile(str(library.parent))]
    dialog.reject()
