"""Find in the transcript: a bar above it with the words, "3 of 12", previous and next.

Enter or F3 goes to the next match, Shift+Enter or Shift+F3 to the previous one, Escape
closes the bar and gives the transcript back its focus.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from .transcript_view import TranscriptView


class FindBar(QWidget):
    """Searches `view` as the user types; F3 and Shift+F3 work anywhere inside `scope`."""

    def __init__(self, view: TranscriptView, scope: QWidget) -> None:
        super().__init__(scope)
        self.setObjectName("findBar")
        self.view = view
        self.edit = QLineEdit()
        self.edit.setObjectName("findText")
        self.edit.setPlaceholderText("Find in transcript")
        self.edit.setClearButtonEnabled(True)
        self.edit.installEventFilter(self)
        self.edit.setMinimumWidth(self.fontMetrics().horizontalAdvance("x" * 14))
        self.count = QLabel()
        self.count.setObjectName("findCount")
        self.count.setMinimumWidth(self.fontMetrics().horizontalAdvance("888 of 888") + 8)
        self.previous = self._button("▲", "Previous match (Shift+Enter)", self.find_previous)
        self.next = self._button("▼", "Next match (Enter)", self.find_next)
        self.close_button = self._button("✕", "Close (Escape)", self.close_find)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.previous)
        layout.addWidget(self.next)
        layout.addWidget(self.close_button)
        self.edit.textChanged.connect(self._search)
        for keys, slot in (
            (QKeySequence.StandardKey.FindNext, self.find_next),
            (QKeySequence.StandardKey.FindPrevious, self.find_previous),
        ):
            shortcut = QShortcut(QKeySequence(keys), scope)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self.hide()

    def _button(self, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def open_find(self) -> None:
        """Show the bar with its words selected (Ctrl+F again selects them again)."""
        self.show()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()
        if self.edit.text():
            self._search(self.edit.text())

    def close_find(self) -> None:
        self.view.clear_find()
        self.hide()
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def find_next(self) -> None:
        if self.isVisible():
            self.view.find_step()
            self._show_count()

    def find_previous(self) -> None:
        if self.isVisible():
            self.view.find_step(backwards=True)
            self._show_count()

    def refresh(self) -> None:
        """The transcript changed: search it again for the same words."""
        if self.isVisible() and self.edit.text():
            self._search(self.edit.text())
        else:
            self.count.clear()

    def _search(self, text: str) -> None:
        self.view.find_all(text)
        self._show_count()

    def _show_count(self) -> None:
        total = self.view.match_count()
        if not self.edit.text():
            self.count.clear()
        elif not total:
            self.count.setText("No match")
        else:
            self.count.setText(f"{self.view.current_match() + 1} of {total}")
        self.previous.setEnabled(total > 1)
        self.next.setEnabled(total > 1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    self.find_previous()
                else:
                    self.find_next()
                return True
            if key == Qt.Key.Key_Escape:
                self.close_find()
                return True
        return super().eventFilter(watched, event)
