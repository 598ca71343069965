"""The library table: one row per `VideoSummary`, sortable by raw values, filterable by text.

The title cell carries the video's thumbnail (from a `ThumbnailSource`, placeholder until it
arrives) and a quiet second line (the channel, where the transcript came from, when it was
published);
rows drag out as a list of video ids (`VIDEO_IDS_MIME`), which the collections accept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from v2c_desktop.core.domain.videos import VideoSummary
from v2c_desktop.core.timecode import clock

from ...speech_words import origin_words

if TYPE_CHECKING:
    from .thumbnails import ThumbnailSource

COLUMNS = ("Title", "Channel", "Duration", "Origin", "Added")
TITLE, CHANNEL, DURATION, ORIGIN, ADDED = range(len(COLUMNS))
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
SECONDARY_ROLE = Qt.ItemDataRole.UserRole + 3  # the title cell's quiet second line
VIDEO_IDS_MIME = "application/x-v2c-video-ids"


def video_ids_mime(ids: Sequence[str]) -> QMimeData:
    data = QMimeData()
    data.setData(VIDEO_IDS_MIME, json.dumps(list(ids)).encode("utf-8"))
    return data


def video_ids_from(data: QMimeData) -> list[str]:
    """The video ids a drag from the table carries, or [] for anything else."""
    if not data.hasFormat(VIDEO_IDS_MIME):
        return []
    try:
        ids = json.loads(bytes(data.data(VIDEO_IDS_MIME).data()).decode("utf-8"))
    except ValueError:
        return []
    return [str(i) for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


AnyIndex = QModelIndex | QPersistentModelIndex


class VideosModel(QAbstractTableModel):
    """Rows of videos; `set_videos` replaces them, `remove_ids` drops deleted ones."""

    def __init__(
        self, parent: QObject | None = None, thumbnails: ThumbnailSource | None = None
    ) -> None:
        super().__init__(parent)
        self._rows: list[VideoSummary] = []
        self.thumbnails = thumbnails
        if thumbnails is not None:
            thumbnails.ready.connect(self._thumbnail_ready)

    def _thumbnail_ready(self, video_id: str) -> None:
        row = self.row_of(video_id)
        if row >= 0:
            index = self.index(row, TITLE)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    # -- updates -----------------------------------------------------------------------------
    def set_videos(self, videos: list[VideoSummary]) -> None:
        self.beginResetModel()
        self._rows = list(videos)
        self.endResetModel()

    def remove_ids(self, ids: set[str]) -> None:
        for row in reversed(range(len(self._rows))):
            if self._rows[row].id in ids:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rows[row]
                self.endRemoveRows()

    def video(self, row: int) -> VideoSummary:
        return self._rows[row]

    def videos(self) -> list[VideoSummary]:
        return list(self._rows)

    def row_of(self, video_id: str) -> int:
        for row, video in enumerate(self._rows):
            if video.id == video_id:
                return row
        return -1

    # -- QAbstractTableModel -----------------------------------------------------------------
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        video = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(video, column)
        if role == SORT_ROLE:
            return _sort_key(video, column)
        if role == ID_ROLE:
            return video.id
        if role == Qt.ItemDataRole.ToolTipRole and column in (TITLE, CHANNEL):
            if column == CHANNEL:
                return video.channel or None
            return f"{video.title}\n{video.url or video.source_path}"
        if role == Qt.ItemDataRole.DecorationRole and column == TITLE and self.thumbnails:
            return self.thumbnails.pixmap(video.id)
        if role == SECONDARY_ROLE and column == TITLE:
            facts = [
                video.channel,
                origin_words(video.origin),
                f"published {video.published}" if video.published else "",
            ]
            return " · ".join(f for f in facts if f)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == DURATION:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsDragEnabled if index.isValid() else base

    def mimeTypes(self) -> list[str]:
        return [VIDEO_IDS_MIME]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        rows = sorted({i.row() for i in indexes if i.isValid()})
        return video_ids_mime([self._rows[r].id for r in rows if 0 <= r < len(self._rows)])

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction


def _display(video: VideoSummary, column: int) -> str:
    if column == TITLE:
        return video.title
    if column == CHANNEL:
        return video.channel
    if column == DURATION:
        return clock(video.duration)
    if column == ORIGIN:
        return origin_words(video.origin)
    return video.added_at[:10]


def _sort_key(video: VideoSummary, column: int) -> Any:
    if column == DURATION:
        return float(video.duration)
    if column == ADDED:
        return video.added_at
    return _display(video, column).casefold()


class VideosFilterProxy(QSortFilterProxyModel):
    """Sorts by raw values and keeps rows that match the filter text and the collection."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self._text = ""
        self._allowed: set[str] | None = None

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self._text = text.strip().casefold()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_allowed_ids(self, ids: set[str] | None) -> None:
        """Only these videos (a collection's), or every video for None."""
        self.beginFilterChange()
        self._allowed = None if ids is None else set(ids)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: AnyIndex) -> bool:
        model = self.sourceModel()
        if not isinstance(model, VideosModel):
            return True
        video = model.video(source_row)
        if self._allowed is not None and video.id not in self._allowed:
            return False
        if not self._text:
            return True
        haystack = f"{video.title} {video.channel} {video.origin} {origin_words(video.origin)}"
        haystack = haystack.casefold()
        return all(word in haystack for word in self._text.split())
