"""The Help menu: the keyboard shortcuts, About, and "Where is my library?".

The shortcuts dialog reads the window as it is when opened: every `QAction` and `QShortcut`
below it that has a key, wherever a pane or the player registered it, so the list cannot go
stale. An action is listed under its menu, else under the pane or dock that owns it; a
`QShortcut` with no description is named after the standard key it is bound to ("Find
next").

About says which version this is, the licences of what it bundles (the models on this
machine, the icons, Qt) and where the library and the settings live, each with an Open
folder button; "Where is my library?" is that last part alone. Every dialog is opened with
`open()`, never `exec()`: the asyncio loop keeps running under it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import PySide6
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop import __version__
from v2c_desktop.core.settings import settings_path

from . import look
from .icons import ICON_LICENCE, bind

if TYPE_CHECKING:
    from v2c_desktop.core.domain.models import ModelList

OpenUrl = Callable[[QUrl], bool]
APP_LICENCE = "v2c desktop is free software under the MIT licence."
QT_LICENCE = f"Qt and PySide6 {PySide6.__version__} (LGPL-3.0)."


# -- the shortcuts, read from the window ----------------------------------------------------
@dataclass(frozen=True)
class ShortcutRow:
    """One key the window answers: where it belongs, what it does, the keys."""

    where: str
    what: str
    keys: str


def plain(text: str) -> str:
    """A menu text without its mnemonic `&` and trailing `…`."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…. ").strip()


def key_text(sequences: list[QKeySequence]) -> str:
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in sequences)


@cache
def _standard_names() -> dict[str, str]:
    """Each key sequence of this platform's standard keys -> the key's name in words."""
    names: dict[str, str] = {}
    for member in QKeySequence.StandardKey:
        if member == QKeySequence.StandardKey.UnknownKey:
            continue
        words = "".join(f" {c.lower()}" if c.isupper() else c for c in member.name).strip()
        for sequence in QKeySequence.keyBindings(member):
            names.setdefault(sequence.toString(), words[:1].upper() + words[1:])
    return names


def _menus_of(action: QAction) -> list[QMenu]:
    return [o for o in action.associatedObjects() if isinstance(o, QMenu)]


def _owner_name(widget: QWidget | None, window: QMainWindow, panes: dict[str, QWidget]) -> str:
    """The pane or dock `widget` belongs to, in words ("Library", "Player"), else "Window"."""
    names = {id(pane): key.capitalize() for key, pane in panes.items()}
    while widget is not None and widget is not window:
        if id(widget) in names:
            return names[id(widget)]
        if isinstance(widget, QDockWidget):
            return plain(widget.windowTitle()) or "Window"
        widget = widget.parentWidget()
    return "Window"


def shortcut_rows(
    window: QMainWindow, panes: dict[str, QWidget] | None = None
) -> list[ShortcutRow]:
    """Every key the window's actions and shortcuts answer, menus first (in menu-bar
    order), then the panes and docks, each group in the order it was registered."""
    panes = panes or {}
    order = [plain(a.text()) for a in window.menuBar().actions()]
    rows: list[ShortcutRow] = []
    for action in window.findChildren(QAction):
        sequences = [s for s in action.shortcuts() if not s.isEmpty()]
        if not sequences:
            continue
        menus = _menus_of(action)
        where = plain(menus[0].title()) if menus else ""
        if not where:
            parent = action.parent()
            where = _owner_name(parent if isinstance(parent, QWidget) else None, window, panes)
        what = plain(action.text()) or plain(action.toolTip()) or action.objectName()
        rows.append(ShortcutRow(where, what, key_text(sequences)))
    for shortcut in window.findChildren(QShortcut):
        sequences = [s for s in shortcut.keys() if not s.isEmpty()]  # noqa: SIM118 (QShortcut.keys, not a dict)
        if not sequences:
            continue
        parent = shortcut.parent()
        where = _owner_name(parent if isinstance(parent, QWidget) else None, window, panes)
        what = (
            shortcut.whatsThis()
            or _standard_names().get(sequences[0].toString())
            or shortcut.objectName()
            or "(no description)"
        )
        rows.append(ShortcutRow(where, what, key_text(sequences)))
    unique = list(dict.fromkeys(rows))
    rank = {name: i for i, name in enumerate(order)}
    return sorted(unique, key=lambda r: rank.get(r.where, len(rank)))  # stable: groups in order


class ShortcutsDialog(QDialog):
    """The keys, grouped by menu or pane, as read from the window when it was opened."""

    def __init__(self, rows: list[ShortcutRow], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.rows = rows
        self.tree = QTreeWidget()
        self.tree.setObjectName("shortcutsList")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["What it does", "Keys"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        groups: dict[str, QTreeWidgetItem] = {}
        for row in rows:
            group = groups.get(row.where)
            if group is None:
                group = QTreeWidgetItem([row.where, ""])
                group.setFont(0, look.font("heading", self.font()))
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.tree.addTopLevelItem(group)
                groups[row.where] = group
            group.addChild(QTreeWidgetItem([row.what, row.keys]))
        self.tree.expandAll()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        look.pad(layout, margin=look.SECTION)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.resize(460, 560)

    def listed(self) -> list[tuple[str, str, str]]:
        """(group, what, keys) as the tree shows them."""
        shown = []
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            if group is None:
                continue
            for c in range(group.childCount()):
                child = group.child(c)
                if child is not None:
                    shown.append((group.text(0), child.text(0), child.text(1)))
        return shown


# -- where things live ----------------------------------------------------------------------
def _path_label(path: Path, name: str) -> QLabel:
    label = QLabel(str(path))
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _folder_button(name: str, folder: Path, open_url: OpenUrl) -> QPushButton:
    button = QPushButton("Open folder")
    button.setObjectName(name)
    bind(button, "open_folder")
    button.setToolTip(str(folder))
    button.clicked.connect(lambda: open_url(QUrl.fromLocalFile(str(folder))))
    return button


class PlacesBox(QWidget):
    """The library file and the settings file, each with Open folder (and Copy path)."""

    def __init__(self, library: Path | None, open_url: OpenUrl, parent: QWidget | None = None):
        super().__init__(parent)
        settings = settings_path()
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(look.GAP)
        grid.setVerticalSpacing(look.GAP)
        grid.setColumnStretch(1, 1)
        self.library = _path_label(library or Path("(not open yet)"), "libraryPath")
        self.settings = _path_label(settings, "settingsPath")
        grid.addWidget(QLabel("Library"), 0, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.library, 0, 1)
        if library is not None:
            self.open_library = _folder_button("openLibraryFolder", library.parent, open_url)
            copy = QPushButton("Copy path")
            copy.setObjectName("copyLibraryPath")
            bind(copy, "copy")
            copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(str(library)))
            row = QHBoxLayout()
            row.setSpacing(look.GAP)
            row.addWidget(self.open_library)
            row.addWidget(copy)
            row.addStretch(1)
            grid.addLayout(row, 1, 1)
        grid.addWidget(QLabel("Settings"), 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.settings, 2, 1)
        self.open_settings = _folder_button("openSettingsFolder", settings.parent, open_url)
        row = QHBoxLayout()
        row.addWidget(self.open_settings)
        row.addStretch(1)
        grid.addLayout(row, 3, 1)


def _heading(text: str, role: look.Role = "heading") -> QLabel:
    label = QLabel(text)
    label.setFont(look.font(role))
    return label


class AboutDialog(QDialog):
    """The version, the licences of what the app bundles, and where things live."""

    def __init__(self, library: Path | None, open_url: OpenUrl, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About v2c desktop")
        title = _heading(f"v2c desktop {__version__}", "title")
        title.setObjectName("aboutVersion")
        blurb = QLabel(
            "Your videos' transcripts as a local library that you and your AI agents can "
            "search, question and cite to the second. Everything stays on this computer."
        )
        blurb.setWordWrap(True)
        self.models = QLabel("Reading the models on this computer…")
        self.models.setObjectName("aboutModels")
        self.models.setTextFormat(Qt.TextFormat.PlainText)
        self.models.setWordWrap(True)
        credits = QLabel("\n".join([ICON_LICENCE + ".", QT_LICENCE, APP_LICENCE]))
        credits.setObjectName("aboutLicences")
        credits.setTextFormat(Qt.TextFormat.PlainText)
        credits.setWordWrap(True)
        self.places = PlacesBox(library, open_url)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        look.pad(layout, margin=look.SECTION)
        layout.addWidget(title)
        layout.addWidget(blurb)
        layout.addSpacing(look.SECTION)
        layout.addWidget(_heading("Models"))
        layout.addWidget(self.models)
        layout.addSpacing(look.SECTION)
        layout.addWidget(_heading("Licences"))
        layout.addWidget(credits)
        layout.addSpacing(look.SECTION)
        layout.addWidget(_heading("Where things are"))
        layout.addWidget(self.places)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    def show_models(self, models: ModelList) -> None:
        installed = [m for m in models.models if m.installed and m.local]
        if not installed:
            self.models.setText("No model is installed: answers quote the transcripts.")
            return
        lines = []
        for model in installed:
            use = "search" if model.kind == "embed" else "answers"
            lines.append(f"{model.label} ({use}): {model.licence or 'licence not recorded'}")
        self.models.setText("\n".join(lines))

    def show_models_failed(self, message: str) -> None:
        self.models.setText(f"Could not read the models: {message}")


class WhereDialog(QDialog):
    """ "Where is my library?": the library file and the settings, with Open folder."""

    def __init__(self, library: Path | None, open_url: OpenUrl, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("whereDialog")
        self.setWindowTitle("Where is my library?")
        intro = QLabel(
            "Your whole library (videos, transcripts, collections, chats) is this one file. "
            "Copy it to back it up; open another with --library."
        )
        intro.setWordWrap(True)
        self.places = PlacesBox(library, open_url)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        look.pad(layout, margin=look.SECTION)
        layout.addWidget(intro)
        layout.addWidget(self.places)
        layout.addWidget(buttons)
        self.setMinimumWidth(480)


@dataclass
class HelpActions:
    shortcuts: QAction
    about: QAction
    where: QAction


def add_help_menu(window: QMainWindow) -> HelpActions:
    """The Help menu, last on the menu bar; the window connects what the actions do."""
    menu = window.menuBar().addMenu("&Help")
    menu.setObjectName("helpMenu")
    actions = HelpActions(
        shortcuts=QAction("&Keyboard shortcuts", window),
        about=QAction("&About v2c desktop", window),
        where=QAction("&Where is my library?", window),
    )
    actions.shortcuts.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
    actions.shortcuts.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    actions.about.setMenuRole(QAction.MenuRole.AboutRole)
    for action, icon_name in (
        (actions.shortcuts, "shortcuts"),
        (actions.where, "where"),
        (actions.about, "about"),
    ):
        bind(action, icon_name)
        menu.addAction(action)
        window.addAction(action)
    return actions
