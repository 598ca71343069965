"""The collections list beside the library table: All videos, then each collection."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.videos import Collection

from ...dialogs import ask_text, confirm

ID_ROLE = Qt.ItemDataRole.UserRole + 1
ALL = ""


class CollectionsSidebar(QWidget):
    """Picks the collection the table shows, and asks for collection changes.

    Signals:
        selected(collection_id): "" for All videos.
        create_requested(name)
        rename_requested(collection_id, name)
        delete_requested(collection_id)
    """

    selected = Signal(str)
    create_requested = Signal(str)
    rename_requested = Signal(str, str)
    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._collections: dict[str, Collection] = {}
        self.list = QListWidget()
        self.list.setObjectName("collections")
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.new_button = self._button("New", "Create a collection", self.ask_create)
        self.rename_button = self._button("Rename", "Rename the collection", self.ask_rename)
        self.delete_button = self._button("Delete", "Delete the collection", self.ask_delete)
        buttons = QHBoxLayout()
        for button in (self.new_button, self.rename_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.setMinimumWidth(120)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.list.currentItemChanged.connect(self._on_current)
        self.list.customContextMenuRequested.connect(self._menu)
        self.set_collections([])

    def _button(self, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    # -- contents ----------------------------------------------------------------------------
    def set_collections(self, collections: list[Collection]) -> None:
        """Replace the list, keeping the current selection when it still exists."""
        keep = self.current_id()
        self._collections = {c.id: c for c in collections}
        self.list.blockSignals(True)
        self.list.clear()
        self._add_item("All videos", ALL)
        for collection in sorted(collections, key=lambda c: c.name.casefold()):
            self._add_item(f"{collection.name} ({len(collection.video_ids)})", collection.id)
        self.list.blockSignals(False)
        self.select(keep if keep in self._collections else ALL)

    def _add_item(self, text: str, collection_id: str) -> None:
        item = QListWidgetItem(text)
        item.setData(ID_ROLE, collection_id)
        self.list.addItem(item)

    def collections(self) -> list[Collection]:
        return list(self._collections.values())

    def collection(self, collection_id: str) -> Collection | None:
        return self._collections.get(collection_id)

    def current_id(self) -> str:
        item = self.list.currentItem()
        return str(item.data(ID_ROLE)) if item is not None else ALL

    def select(self, collection_id: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(ID_ROLE) == collection_id:
                self.list.setCurrentRow(row)
                return

    def _on_current(self, current: QListWidgetItem | None, _previous: object) -> None:
        self._update_buttons()
        self.selected.emit(str(current.data(ID_ROLE)) if current is not None else ALL)

    def _update_buttons(self) -> None:
        is_collection = self.current_id() != ALL
        self.rename_button.setEnabled(is_collection)
        self.delete_button.setEnabled(is_collection)

    # -- asking the user ---------------------------------------------------------------------
    def ask_create(self) -> None:
        ask_text(self, "New collection", "Name:", self.create_requested.emit)

    def ask_rename(self) -> None:
        collection = self._collections.get(self.current_id())
        if collection is not None:
            ask_text(
                self,
                "Rename collection",
                "New name:",
                lambda name: self.rename_requested.emit(collection.id, name),
                collection.name,
            )

    def ask_delete(self) -> None:
        collection = self._collections.get(self.current_id())
        if collection is not None:
            confirm(
                self,
                "Delete collection",
                f"Delete the collection “{collection.name}”?",
                lambda: self.delete_requested.emit(collection.id),
                detail="Its videos stay in the library.",
            )

    def _menu(self, point: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction("New collection…", self.ask_create)
        if self.current_id() != ALL:
            menu.addAction("Rename…", self.ask_rename)
            menu.addAction("Delete…", self.ask_delete)
        menu.popup(self.list.viewport().mapToGlobal(point))
