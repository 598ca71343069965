"""The sortable, filterable table of videos with its context menu.

The title column takes the width: the channel and the origin are said on the title cell's
second line, so their columns start hidden, as does the date added (the newest come first);
the header's menu shows them, to sort by them. Titles are never squeezed to a few letters.
Rows drag onto a collection in the sidebar.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QItemSelection, QModelIndex, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.videos import Collection, VideoSummary

from ...speech_words import NO_LOCAL_MEDIA, can_transcribe
from .thumbnails import ThumbnailSource
from .title_delegate import TitleDelegate
from .videos_model import (
    ADDED,
    CHANNEL,
    COLUMNS,
    ID_ROLE,
    ORIGIN,
    TITLE,
    VideosFilterProxy,
    VideosModel,
)

EMPTY_TEXT = (
    "No videos yet. Add some with File → Add videos (Ctrl+O), "
    "or drop subtitle files, folders or video links on this window."
)


RESIZE_PRECISION = 64
CHANNEL_WIDTH = 130
TITLE_MIN_WIDTH = 180


class VideosTable(QWidget):
    """A filter box over the table; the menu acts on the selected rows.

    Signals:
        current_changed(video_id): "" when nothing is selected.
        play_requested(video_id)
        add_to_collection_requested(collection_id, video_ids)
        new_collection_requested(video_ids): make a collection and put these videos in it.
        remove_from_collection_requested(video_ids): from the collection being shown.
        remove_requested(video_ids): from the library (the pane confirms first).
        rename_requested(video_id): the user wants to give the video their own title.
        export_requested(video_ids): export these videos to Obsidian.
        notion_requested(video_ids): export these videos to Notion.
        retranscribe_requested(video_id): transcribe its local media file again ("Re-transcribe
            with…", enabled only for a video whose media file the library knows).
    """

    current_changed = Signal(str)
    play_requested = Signal(str)
    add_to_collection_requested = Signal(str, list)
    new_collection_requested = Signal(list)
    remove_from_collection_requested = Signal(list)
    remove_requested = Signal(list)
    rename_requested = Signal(str)
    export_requested = Signal(list)
    notion_requested = Signal(list)
    retranscribe_requested = Signal(str)

    def __init__(
        self, parent: QWidget | None = None, thumbnails: ThumbnailSource | None = None
    ) -> None:
        super().__init__(parent)
        self.collections: list[Collection] = []
        self.in_collection = False
        self.model = VideosModel(self, thumbnails)
        self.proxy = VideosFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit()
        self.filter.setObjectName("videoFilter")
        self.filter.setPlaceholderText("Filter by title, channel or origin")
        self.filter.setClearButtonEnabled(True)
        self.view = QTableView()
        self.view.setObjectName("videos")
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(ADDED, Qt.SortOrder.DescendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setShowGrid(False)
        self.view.setItemDelegateForColumn(TITLE, TitleDelegate(self.view))
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setDefaultDropAction(Qt.DropAction.CopyAction)
        rows = self.view.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() * 2 + 16)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TITLE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(CHANNEL, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(CHANNEL, CHANNEL_WIDTH)
        for column in (CHANNEL, ORIGIN, ADDED):  # said on the title's second line, or rarely wanted
            header.setSectionHidden(column, True)
        header.setMinimumSectionSize(48)
        header.setHighlightSections(False)
        # fitting columns measures rows: 500 videos took 0.4 s of start-up; 64 rows is enough
        header.setResizeContentsPrecision(RESIZE_PRECISION)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self.view.setMinimumWidth(TITLE_MIN_WIDTH + 120)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setObjectName("emptyLibrary")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty, 1)
        self.model.modelReset.connect(self._show_empty)
        self.model.rowsRemoved.connect(self._show_empty)
        self._show_empty()
        self.filter.textChanged.connect(self.proxy.set_text)
        self.view.selectionModel().selectionChanged.connect(self._on_selection)
        self.view.doubleClicked.connect(self._on_double_click)
        self.view.customContextMenuRequested.connect(self._menu)

    # -- contents ----------------------------------------------------------------------------
    def set_videos(self, videos: list[VideoSummary]) -> None:
        keep = self.selected_ids()
        self.model.set_videos(videos)
        self.select_ids(keep)

    def visible_ids(self) -> list[str]:
        return [str(self.proxy.index(row, 0).data(ID_ROLE)) for row in range(self.proxy.rowCount())]

    def selected_ids(self) -> list[str]:
        rows = self.view.selectionModel().selectedRows()
        return [str(index.data(ID_ROLE)) for index in sorted(rows, key=lambda i: i.row())]

    def selected_count(self) -> int:
        return len(self.view.selectionModel().selectedRows())

    def select_ids(self, ids: list[str]) -> None:
        selection = self.view.selectionModel()
        selection.clearSelection()
        for video_id in ids:
            row = self.model.row_of(video_id)
            if row < 0:
                continue
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            if index.isValid():
                selection.select(
                    index,
                    selection.SelectionFlag.Select | selection.SelectionFlag.Rows,
                )
                selection.setCurrentIndex(index, selection.SelectionFlag.NoUpdate)

    def _show_empty(self) -> None:
        empty = self.model.rowCount() == 0
        self.empty.setVisible(empty)
        self.view.setVisible(not empty)

    # -- events ------------------------------------------------------------------------------
    def _on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        ids = self.selected_ids()
        self.current_changed.emit(ids[0] if len(ids) == 1 else "")

    def _on_double_click(self, index: QModelIndex) -> None:
        self.play_requested.emit(str(index.data(ID_ROLE)))

    def _add_to(self, collection_id: str, ids: list[str]) -> None:
        self.add_to_collection_requested.emit(collection_id, ids)

    def _menu(self, point: QPoint) -> None:
        ids = self.selected_ids()
        if ids:
            self.context_menu(ids).popup(self.view.viewport().mapToGlobal(point))

    def context_menu(self, ids: list[str]) -> QMenu:
        """The menu for the selected rows `ids` (built, not shown: `_menu` pops it up)."""
        menu = QMenu(self)
        menu.setToolTipsVisible(True)  # a disabled action says why in its tooltip
        if len(ids) == 1:
            menu.addAction("Play from the start", lambda: self.play_requested.emit(ids[0]))
            menu.addAction("Rename…", lambda: self.rename_requested.emit(ids[0]))
            self._add_retranscribe(menu, ids[0])
        what = "this video" if len(ids) == 1 else f"these {len(ids)} videos"
        menu.addAction(
            f"New collection with {what}…", lambda: self.new_collection_requested.emit(ids)
        )
        into = menu.addMenu("Add to collection")
        for collection in sorted(self.collections, key=lambda c: c.name.casefold()):
            into.addAction(collection.name, partial(self._add_to, collection.id, ids))
        into.addSeparator()
        into.addAction("New collection…", lambda: self.new_collection_requested.emit(ids))
        if self.in_collection:
            menu.addAction(
                "Remove from this collection",
                lambda: self.remove_from_collection_requested.emit(ids),
            )
        menu.addAction("Export to Obsidian…", lambda: self.export_requested.emit(ids))
        menu.addAction("Export to Notion…", lambda: self.notion_requested.emit(ids))
        menu.addSeparator()
        menu.addAction("Remove from library…", lambda: self.remove_requested.emit(ids))
        return menu

    def _add_retranscribe(self, menu: QMenu, video_id: str) -> None:
        row = self.model.row_of(video_id)
        local = row >= 0 and can_transcribe(self.model.video(row).source_path)
        action = menu.addAction(
            "Re-transcribe with…", lambda: self.retranscribe_requested.emit(video_id)
        )
        action.setObjectName("retranscribeAction")
        action.setEnabled(local)
        action.setToolTip(
            "Transcribe its speech again with a speech model you choose"
            if local
            else NO_LOCAL_MEDIA
        )

    def _header_menu(self, point: QPoint) -> None:
        header = self.view.horizontalHeader()
        menu = QMenu(self)
        for column, name in enumerate(COLUMNS):
            if column == TITLE:
                continue
            action = menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(column))
            action.toggled.connect(lambda on, c=column: header.setSectionHidden(c, not on))
        menu.popup(header.mapToGlobal(point))
