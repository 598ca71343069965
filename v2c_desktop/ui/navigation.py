"""The left navigation: one entry per pane; an entry stays hidden until its pane exists."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from . import look
from .icons import bind

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
ENTRIES = (("library", "Library"), ("search", "Search"), ("chat", "Chat"), ("brief", "Briefs"))


class Navigation(QListWidget):
    """Signals:
    pane_selected(key): "library", "search", "chat" or "brief".
    """

    pane_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("navigation")
        for key, text in ENTRIES:
            item = QListWidgetItem(text)
            item.setData(KEY_ROLE, key)
            item.setSizeHint(QSize(0, self.fontMetrics().height() + 2 * look.MARGIN))
            self.addItem(item)
            bind(item, key, owner=self)
        size = self.fontMetrics().height() + 2
        self.setIconSize(QSize(size, size))
        self.setSpacing(1)
        self.setFixedWidth(look.NAVIGATION_WIDTH)
        self.currentItemChanged.connect(self._on_current)

    def _on_current(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self.pane_selected.emit(str(item.data(KEY_ROLE)))

    def _item(self, key: str) -> QListWidgetItem | None:
        for row in range(self.count()):
            if self.item(row).data(KEY_ROLE) == key:
                return self.item(row)
        return None

    def set_available(self, key: str, available: bool) -> None:
        item = self._item(key)
        if item is not None:
            item.setHidden(not available)

    def is_available(self, key: str) -> bool:
        item = self._item(key)
        return item is not None and not item.isHidden()

    def select(self, key: str) -> None:
        item = self._item(key)
        if item is not None and not item.isHidden():
            self.setCurrentItem(item)
