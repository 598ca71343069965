"""Small dialogs opened with `open()` (never `exec()`), so the asyncio loop keeps running.

A failure is shown as its message and hint, never as a traceback.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget


def error_text(message: str, hint: str) -> str:
    """One line for a status bar or a list: `message — hint`."""
    return f"{message} — {hint}" if hint else message


def show_error(parent: QWidget, title: str, message: str, hint: str) -> QMessageBox:
    """A window-modal warning with the hint as its informative text."""
    box = QMessageBox(
        QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent
    )
    box.setObjectName("errorBox")
    if hint:
        box.setInformativeText(hint)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def confirm(
    parent: QWidget, title: str, text: str, on_yes: Callable[[], object], *, detail: str = ""
) -> QMessageBox:
    """Ask a yes/no question; `on_yes` runs only if the user says yes."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setObjectName("confirmBox")
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    if detail:
        box.setInformativeText(detail)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    yes = box.button(QMessageBox.StandardButton.Yes)

    def done(_result: int) -> None:
        if box.clickedButton() is yes:
            on_yes()

    box.finished.connect(done)
    box.open()
    return box


def ask_text(
    parent: QWidget, title: str, label: str, on_text: Callable[[str], object], initial: str = ""
) -> QInputDialog:
    """Ask for one line of text; `on_text` gets it stripped, and only when it is not empty."""
    dialog = QInputDialog(parent)
    dialog.setObjectName("textPrompt")
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
    dialog.setTextValue(initial)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def chosen(text: str) -> None:
        if text.strip():
            on_text(text.strip())

    dialog.textValueSelected.connect(chosen)
    dialog.open()
    return dialog
