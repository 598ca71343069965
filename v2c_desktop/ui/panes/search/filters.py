"""The filters under the search box: collection, channel, origin, dates and the mode."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRegularExpression, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from v2c_desktop.core.domain.videos import ORIGINS, Collection
from v2c_desktop.core.search.request import MODES

ANY = "Any"
_DATE = QRegularExpression(r"^\d{4}-\d{2}-\d{2}$|^$")


class SearchFilters(QWidget):
    """Turns the user's choices into `SearchRequest` keyword arguments.

    Signals:
        changed(): any filter changed (the pane searches again).
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.collection = self._combo("searchCollection", "Collection")
        self.channel = self._combo("searchChannel", "Channel")
        self.origin = self._combo("searchOrigin", "Where the transcript came from")
        self.origin.addItems(list(ORIGINS))
        self.after = self._date("searchAfter", "published after")
        self.before = self._date("searchBefore", "published before")
        self.mode = QComboBox()
        self.mode.setObjectName("searchMode")
        self.mode.setToolTip("hybrid: words and meaning; keyword: the words; vector: meaning")
        self.mode.addItems(list(MODES))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for label, widget in (
            ("Collection", self.collection),
            ("Channel", self.channel),
            ("Origin", self.origin),
            ("After", self.after),
            ("Before", self.before),
            ("Mode", self.mode),
        ):
            layout.addWidget(QLabel(label))
            layout.addWidget(widget)
        layout.addStretch(1)
        self.mode.currentIndexChanged.connect(self.changed)

    def _combo(self, name: str, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.setToolTip(tip)
        combo.addItem(ANY, None)
        combo.currentIndexChanged.connect(self.changed)
        return combo

    def _date(self, name: str, tip: str) -> QLineEdit:
        edit = QLineEdit()
        edit.setObjectName(name)
        edit.setPlaceholderText("YYYY-MM-DD")
        edit.setToolTip(tip)
        edit.setValidator(QRegularExpressionValidator(_DATE, edit))
        edit.setMaximumWidth(110)
        edit.editingFinished.connect(self.changed)
        return edit

    # -- contents ----------------------------------------------------------------------------
    def set_collections(self, collections: list[Collection]) -> None:
        items = [(c.name, c.id) for c in sorted(collections, key=lambda c: c.name.casefold())]
        self._refill(self.collection, items)

    def set_channels(self, channels: list[str]) -> None:
        names = sorted({c for c in channels if c}, key=str.casefold)
        self._refill(self.channel, [(c, c) for c in names])

    def _refill(self, combo: QComboBox, items: list[tuple[str, str]]) -> None:
        keep = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(ANY, None)
        for text, data in items:
            combo.addItem(text, data)
        index = combo.findData(keep) if keep is not None else 0
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)
        if index < 0:  # the chosen value is gone: the results change
            self.changed.emit()

    def request_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `SearchRequest` (everything but the query)."""
        origin = self.origin.currentText()
        return {
            "mode": self.mode.currentText(),
            "collection": self.collection.currentData(),
            "channel": self.channel.currentData(),
            "origins": (origin,) if origin != ANY else None,
            "published_after": self.after.text() or None,
            "published_before": self.before.text() or None,
        }
