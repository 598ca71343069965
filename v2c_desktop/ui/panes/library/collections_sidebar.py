"""The collections list beside the library table: All videos, then each collection.

Videos dragged from the table drop onto a collection (the row under the pointer lights up
while they hover; "All videos" takes no drop). "New" makes a collection of the videos
selected in the table, when there are any.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.videos import Collection

from ...dialogs import ask_text, confirm, show_error
from .videos_model import video_ids_from

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def schedule_hours(text: str) -> float | bool | None:
    """What the user typed for a schedule: hours, None for "off" (or 0), False if neither."""
    word = text.strip().lower().removesuffix("h").strip()
    if word in ("off", "never", "no", "0"):
        return None
    try:
        hours = float(word.replace(",", "."))
    except ValueError:
        return False
    return None if hours == 0 else hours


ALL = ""


class CollectionList(QListWidget):
    """The list itself: takes drops of videos on a collection's row.

    Signals:
        videos_dropped(collection_id, video_ids)
    """

    videos_dropped = Signal(str, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self._target: QListWidgetItem | None = None

    def collection_at(self, point: QPoint) -> str:
        item = self.itemAt(point)
        return str(item.data(ID_ROLE)) if item is not None else ALL

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if video_ids_from(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        point = event.position().toPoint()
        if video_ids_from(event.mimeData()) and self.collection_at(point) != ALL:
            self._mark(self.itemAt(point))
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            self._mark(None)
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._mark(None)
        super().dragLeaveEvent(event)

    def _mark(self, item: QListWidgetItem | None) -> None:
        """Light the row the videos would drop on (the selection stays as it is)."""
        if item is self._target:
            return
        if self._target is not None:
            self._target.setBackground(QBrush())
        self._target = item
        if item is not None:
            color = self.palette().color(QPalette.ColorRole.Highlight)
            color.setAlphaF(0.35)
            item.setBackground(QBrush(color))

    def dropEvent(self, event: QDropEvent) -> None:
        self._mark(None)
        ids = video_ids_from(event.mimeData())
        target = self.collection_at(event.position().toPoint())
        if ids and target != ALL:
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.videos_dropped.emit(target, ids)
        else:
            event.ignore()


class CollectionsSidebar(QWidget):
    """Picks the collection the table shows, and asks for collection changes.

    Signals:
        selected(collection_id): "" for All videos.
        create_requested(name): the pane puts the table's selected videos in it.
        rename_requested(collection_id, name)
        delete_requested(collection_id)
        videos_dropped(collection_id, video_ids): rows of the table were dropped on it.
        export_requested(collection_id): export the collection to Obsidian.
    """

    selected = Signal(str)
    export_requested = Signal(str)
    notion_requested = Signal(str)
    refresh_requested = Signal(str)  # check the followed playlists, channels, feeds
    schedule_requested = Signal(str, object)  # collection id, hours between checks or None
    create_requested = Signal(str)
    rename_requested = Signal(str, str)
    delete_requested = Signal(str)
    videos_dropped = Signal(str, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._collections: dict[str, Collection] = {}
        #: How many videos a new collection would take (the table's selection).
        self.selected_count: Callable[[], int] = lambda: 0
        self.list = CollectionList()
        self.list.videos_dropped.connect(self.videos_dropped)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setObjectName("collections")
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.new_button = self._button(
            "New", "Create a collection (of the videos selected in the table)", self.ask_create
        )
        self.new_button.setText("New…")
        self.more_button = QToolButton(self)
        self.more_button.setText("⋯")
        self.more_button.setToolTip("Rename or delete the collection")
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        more = QMenu(self.more_button)
        self.rename_action = more.addAction("Rename…", self.ask_rename)
        self.delete_action = more.addAction("Delete…", self.ask_delete)
        self.more_button.setMenu(more)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.more_button)
        buttons.addStretch(1)
        self.setMinimumWidth(110)
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
        item.setToolTip(text if collection_id == ALL else f"{text}\nDrop videos here to add them")
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
        self.more_button.setEnabled(self.current_id() != ALL)

    # -- asking the user ---------------------------------------------------------------------
    def ask_create(self) -> None:
        count = self.selected_count()
        label = "Name:"
        if count:
            what = "the selected video goes" if count == 1 else f"the {count} selected videos go"
            label = f"Name ({what} in it):"
        ask_text(self, "New collection", label, self.create_requested.emit)

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

    def ask_schedule(self) -> None:
        """Hours between two checks of the collection's sources while the app runs."""
        collection = self._collections.get(self.current_id())
        if collection is None:
            return

        def chosen(text: str) -> None:
            hours = schedule_hours(text)
            if hours is False:
                show_error(
                    self,
                    "Check automatically",
                    f"“{text}” is not a number of hours",
                    "Type hours between two checks, such as 6 or 0.5, or “off”.",
                )
            else:
                self.schedule_requested.emit(collection.id, hours)

        ask_text(
            self,
            "Check automatically",
            f"Check “{collection.name}” for new videos every how many hours while the app "
            "runs? (“off”: only when you ask)",
            chosen,
            "6",
        )

    def _menu(self, point: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction("New collection…", self.ask_create)
        if self.current_id() != ALL:
            menu.addAction("Rename…", self.ask_rename)
            menu.addAction("Delete…", self.ask_delete)
            current = self.current_id()
            menu.addAction("Check for new videos", lambda: self.refresh_requested.emit(current))
            menu.addAction("Check automatically…", self.ask_schedule)
            menu.addAction("Export to Obsidian…", lambda: self.export_requested.emit(current))
            menu.addAction("Export to Notion…", lambda: self.notion_requested.emit(current))
        menu.popup(self.list.viewport().mapToGlobal(point))
