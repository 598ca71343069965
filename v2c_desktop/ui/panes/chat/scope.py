"""What a question is about: the whole library, some ticked videos, or one collection.

The ticked videos are kept as a set of ids, apart from the list that shows them: a refresh
of the library, a switch to another kind of scope or a filter never loses or hides a tick
(a ticked video stays listed whatever the filter), and a saved chat's scope shows its
videos ticked even when it asked a collection.
"""

from __future__ import annotations

from collections.abc import Iterable
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

from ...elided_label import ElidedLabel

ID_ROLE = Qt.ItemDataRole.UserRole + 1
LIBRARY, VIDEOS, COLLECTION = "The whole library", "Videos", "A collection"
KINDS = (VIDEOS, COLLECTION, LIBRARY)


@dataclass(frozen=True)
class Scope:
    video_ids: tuple[str, ...] = ()
    collection: str | None = None
    library: bool = False

    @property
    def empty(self) -> bool:
        return not self.video_ids and not self.collection and not self.library


class ScopePicker(QWidget):
    """Tick videos (filtered by a search box), choose one collection, or the whole library.

    Signals:
        changed(): the scope changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatScope")
        self.ticked: set[str] = set()  # what is ticked, whether listed (yet) or not
        self.video_count = 0
        self.kind = QComboBox()
        self.kind.setObjectName("scopeKind")
        self.kind.addItems(list(KINDS))
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
        # a long collection name is elided, never widening the pane
        self.collections.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.collections.setMinimumContentsLength(12)
        self.whole = QLabel()
        self.whole.setObjectName("scopeLibrary")
        self.whole.setWordWrap(True)
        self.summary = ElidedLabel()
        self.summary.setObjectName("scopeSummary")
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
        library_page = QWidget()
        page = QVBoxLayout(library_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.whole)
        page.addStretch(1)
        self.pages = QStackedWidget()
        for widget in (video_page, collection_page, library_page):  # in the order of KINDS
            self.pages.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Ask about"))
        layout.addWidget(self.kind)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.summary)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.filter.textChanged.connect(self._filter)
        self.videos.itemChanged.connect(self._on_item)
        self.collections.currentIndexChanged.connect(lambda _i: self._changed())
        self._show_library_count()
        self._changed()

    def set_library(self, videos: list[VideoSummary], collections: list[Collection]) -> None:
        """Offer these videos and collections, keeping what was chosen where it still exists."""
        chosen = self.collections.currentData()
        self.video_count = len(videos)
        self.videos.blockSignals(True)
        self.videos.clear()
        for video in videos:
            item = QListWidgetItem(video.title or video.id)
            item.setData(ID_ROLE, video.id)
            item.setToolTip(f"{video.title}\n{video.channel} · {video.id}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = video.id in self.ticked
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.videos.addItem(item)
        self.videos.blockSignals(False)
        self.collections.blockSignals(True)
        self.collections.clear()
        for collection in collections:
            count = len(collection.video_ids)
            self.collections.addItem(f"{collection.name} ({count})", collection.id)
            self.collections.setItemData(
                self.collections.count() - 1, collection.name, Qt.ItemDataRole.ToolTipRole
            )
        index = self.collections.findData(chosen)
        self.collections.setCurrentIndex(max(0, index))
        self.collections.blockSignals(False)
        self._show_library_count()
        self._filter(self.filter.text())
        self._changed()

    def listed_ids(self) -> list[str]:
        return [str(self.videos.item(row).data(ID_ROLE)) for row in range(self.videos.count())]

    def scope(self) -> Scope:
        kind = self.kind.currentText()
        if kind == LIBRARY:
            return Scope(library=True) if self.video_count else Scope()
        if kind == COLLECTION:
            chosen = self.collections.currentData()
            return Scope(collection=str(chosen)) if chosen else Scope()
        return Scope(video_ids=tuple(v for v in self.listed_ids() if v in self.ticked))

    def set_ticked(self, video_ids: Iterable[str]) -> None:
        """Tick exactly these videos (also those the library has not listed yet)."""
        self.ticked = set(video_ids)
        self.videos.blockSignals(True)
        for row in range(self.videos.count()):
            item = self.videos.item(row)
            checked = item.data(ID_ROLE) in self.ticked
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.videos.blockSignals(False)
        self._filter(self.filter.text())
        self._changed()

    def set_scope(
        self,
        video_ids: list[str] | tuple[str, ...],
        collection: str | None,
        *,
        library: bool = False,
    ) -> None:
        """Show a saved chat's scope: the whole library, its collection, else its videos;
        its videos are ticked in every case, so switching to "Videos" shows them."""
        self.set_ticked(video_ids)
        if library:
            self.kind.setCurrentText(LIBRARY)
        elif collection and self.collections.findData(collection) >= 0:
            self.collections.setCurrentIndex(self.collections.findData(collection))
            self.kind.setCurrentText(COLLECTION)
        else:
            self.kind.setCurrentText(VIDEOS)
        self._changed()

    def _on_item(self, item: QListWidgetItem) -> None:
        video_id = str(item.data(ID_ROLE))
        if item.checkState() == Qt.CheckState.Checked:
            self.ticked.add(video_id)
        else:
            self.ticked.discard(video_id)
        self._changed()

    def _on_kind(self, _index: int) -> None:
        self.pages.setCurrentIndex(KINDS.index(self.kind.currentText()))
        self._changed()

    def _filter(self, text: str) -> None:
        """Hide the videos the filter does not match, but never a ticked one."""
        needle = text.strip().lower()
        for row in range(self.videos.count()):
            item = self.videos.item(row)
            ticked = item.data(ID_ROLE) in self.ticked
            item.setHidden(bool(needle) and not ticked and needle not in item.text().lower())

    def _show_library_count(self) -> None:
        count = self.video_count
        self.whole.setText(
            f"Every video of the library ({count} video{'s' if count != 1 else ''}); the "
            "passages that best match the question are read."
            if count
            else "The library has no videos yet."
        )

    def _changed(self) -> None:
        scope = self.scope()
        if scope.library:
            self.summary.set_full_text(f"The whole library ({self.video_count} videos)")
        elif scope.collection:
            self.summary.set_full_text(f"The collection {self.collections.currentText()}")
        elif scope.video_ids:
            count = len(scope.video_ids)
            self.summary.set_full_text(f"{count} video{'s' if count != 1 else ''} ticked")
        else:
            self.summary.set_full_text("Nothing chosen yet: tick videos above.")
        self.changed.emit()
