"""The window's actions and their shortcuts, in one place (menus and keys share them); each
action whose name `icons.NAMES` knows gets that icon."""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from .icons import NAMES, bind

Shortcut = str | QKeySequence | QKeySequence.StandardKey


@dataclass
class AppActions:
    add: QAction
    add_files: QAction
    add_folder: QAction
    settings: QAction
    chat_models: QAction
    quit: QAction
    library: QAction
    search: QAction
    chat: QAction
    brief: QAction
    play_pause: QAction
    back: QAction
    forward: QAction


def _action(window: QMainWindow, text: str, shortcut: Shortcut | None = None) -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    window.addAction(action)
    return action


def create_actions(window: QMainWindow) -> AppActions:
    """Create the actions and the menus that show them."""
    actions = AppActions(
        add=_action(window, "&Add videos…", QKeySequence.StandardKey.Open),
        add_files=_action(window, "Add &files…"),
        add_folder=_action(window, "Add f&older…"),
        settings=_action(window, "&Settings…", QKeySequence.StandardKey.Preferences),
        chat_models=_action(window, "Get a &chat model…"),
        quit=_action(window, "&Quit", QKeySequence.StandardKey.Quit),
        library=_action(window, "&Library", "Ctrl+1"),
        search=_action(window, "&Search", QKeySequence.StandardKey.Find),
        chat=_action(window, "&Chat", "Ctrl+L"),
        brief=_action(window, "&Briefs", "Ctrl+B"),
        play_pause=_action(window, "&Play/Pause", "Space"),
        back=_action(window, "&Back 10 s", "Alt+Left"),
        forward=_action(window, "&Forward 10 s", "Alt+Right"),
    )
    actions.chat.setEnabled(False)  # until a chat pane is attached
    actions.brief.setEnabled(False)  # until a brief pane is attached
    for field in fields(actions):
        if field.name in NAMES:
            bind(getattr(actions, field.name), field.name)
    menus = window.menuBar()
    file_menu = menus.addMenu("&File")
    for action in (actions.add, actions.add_files, actions.add_folder):
        file_menu.addAction(action)
    file_menu.addSeparator()
    file_menu.addAction(actions.settings)
    file_menu.addAction(actions.chat_models)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    view_menu = menus.addMenu("&View")
    view_menu.setObjectName("viewMenu")
    for action in (actions.library, actions.search, actions.chat, actions.brief):
        view_menu.addAction(action)
    play_menu = menus.addMenu("&Playback")
    for action in (actions.play_pause, actions.back, actions.forward):
        play_menu.addAction(action)
    return actions


def is_text_input(widget: QWidget | None) -> bool:
    """Whether keys typed now belong to a text field (Space must type, not play)."""
    if isinstance(widget, QLineEdit | QPlainTextEdit | QAbstractSpinBox):
        return not getattr(widget, "isReadOnly", lambda: False)()
    if isinstance(widget, QTextEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return False


def focus_is_text_input() -> bool:
    return is_text_input(QApplication.focusWidget())
