"""What a question is about: one video, several, or a collection of the library."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.videos import Collection, VideoSummary

ID_ROLE = Qt.ItemDataRole.UserRole + 1
VIDEOS, COLLECTION = "Videos", "A collection"


@dataclass(frozen=True)
class Scope:
    video_ids: tuple[str, ...] = ()
    collection: str | None = None

    @property
    def empty(self) -> bool:
        return not self.video_ids and not self.collection


class ScopePicker(QWidget):
    """Tick videos (filtered by a search box) or choose one collection.

    Signals:
        changed(): the scope changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatScope")
        self.kind = QComboBox()
        self.kind.setObjectName("scopeKind")
        self.kind.addItems([VIDEOS, COLLECTION])
        self.filter = QLineEdit()
        self.filter.setObjectName("scopeFilter")
        self.filter.setPlaceholderText("Filter videos")
        self.filter.setClearButtonEnabled(True)
        self.videos = QListWidget()
        self.videos.setObjectName("scopeVideos")
        self.videos.setTextElideMode(Qt.TextElideMode.ElideRight)  # full titles in tooltips
        self.videos.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.collections = QComboBox()
        self.collections.setObjectName("scopeCollection")
        self.summary = QLabel()
        self.summary.setObjectName("scopeSummary")
        self.summary.setWordWrap(True)
        video_page = QWidget()
        page = QVBoxLayout(video_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.filter)
        page.addWidget(self.videos, 1)
        collection_page = QWidget()
        page = QVBoxLayout(collection_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.collections)
        page.addStretch(1)
        self.pages = QStackedWidget()
        self.pages.addWidget(video_page)
        self.pages.addWidget(collection_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Ask about"))
        layout.addWidget(self.kind)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.summary)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.filter.textChanged.connect(self._filter)
        self.videos.itemChanged.connect(lambda _item: self._changed())
        self.collections.currentIndexChanged.connect(lambda _i: self._changed())
        self._changed()

    def set_library(self, videos: list[VideoSummary], collections: list[Collection]) -> None:
        """Offer these videos and collections, keeping what was chosen where it still exists."""
        ticked = set(self.scope().video_ids if self.kind.currentText() == VIDEOS else ())
        chosen = self.collections.currentData()
        self.videos.blockSignals(True)
        self.videos.clear()
        for video in videos:
            item = QListWidgetItem(video.title or video.id)
            item.setData(ID_ROLE, video.id)
            item.setToolTip(f"{video.title}\n{video.channel} · {video.id}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = video.id in ticked
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.videos.addItem(item)
        self.videos.blockSignals(False)
        self.collections.blockSignals(True)
        self.collections.clear()
        for collection in collections:
            count = len(collection.video_ids)
            self.collections.addItem(f"{collection.name} ({count})", collection.id)
        index = self.collections.findData(chosen)
        self.collections.setCurrentIndex(max(0, index))
        self.collections.blockSignals(False)
        self._filter(self.filter.text())
        self._changed()

    def scope(self) -> Scope:
        if self.kind.currentText() == COLLECTION:
            chosen = self.collections.currentData()
            return Scope(collection=str(chosen)) if chosen else Scope()
        ids = []
        for row in range(self.videos.count()):
            item = self.videos.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                ids.append(str(item.data(ID_ROLE)))
        return Scope(video_ids=tuple(ids))

    def set_scope(self, video_ids: list[str] | tuple[str, ...], collection: str | None) -> None:
        """Show a saved chat's scope: its collection, else its videos ticked."""
        if collection and self.collections.findData(collection) >= 0:
            self.collections.setCurrentIndex(self.collections.findData(collection))
            self.kind.setCurrentText(COLLECTION)
        else:
            self.kind.setCurrentText(VIDEOS)
            wanted = set(video_ids)
            self.videos.blockSignals(True)
            for row in range(self.videos.count()):
                item = self.videos.item(row)
                checked = item.data(ID_ROLE) in wanted
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.videos.blockSignals(False)
        self._changed()

    def _on_kind(self, index: int) -> None:
        self.pages.setCurrentIndex(index)
        self._changed()

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.videos.count()):
            item = self.videos.item(row)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    def _changed(self) -> None:
        scope = self.scope()
        if scope.collection:
            self.summary.setText(f"The collection {self.collections.currentText()}")
        elif scope.video_ids:
            count = len(scope.video_ids)
            self.summary.setText(f"{count} video{'s' if count != 1 else ''} ticked")
        else:
            self.summary.setText("Tick videos or choose a collection to ask about.")
        self.changed.emit()
