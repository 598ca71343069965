"""The filters under the search box: collection, channel, origin, dates and the mode.

A date filter leaves out the videos that have no publish date (nobody can say they fall in
the range); "Include undated" keeps them, and the pane says how many were left out.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRegularExpression, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

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
        self.include_undated = QCheckBox("Include undated")
        self.include_undated.setObjectName("searchIncludeUndated")
        self.include_undated.setToolTip(
            "Also search the videos that have no publish date when a date is set"
        )
        self.include_undated.setEnabled(False)
        self.include_undated.toggled.connect(self.changed)
        self.mode = QComboBox()
        self.mode.setObjectName("searchMode")
        self.mode.setToolTip("hybrid: words and meaning; keyword: the words; vector: meaning")
        self.mode.addItems(list(MODES))
        # two rows, so the pane stays usable at half a small screen's width
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for row in (
            (("Collection", self.collection), ("Channel", self.channel), ("Origin", self.origin)),
            (
                ("After", self.after),
                ("Before", self.before),
                ("", self.include_undated),
                ("Mode", self.mode),
            ),
        ):
            line = QHBoxLayout()
            for label, widget in row:
                if label:
                    line.addWidget(QLabel(label))
                line.addWidget(widget)
            line.addStretch(1)
            layout.addLayout(line)
        self.mode.currentIndexChanged.connect(self.changed)

    def _combo(self, name: str, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.setToolTip(tip)
        # names are the user's (any length): the box keeps its width and elides them
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(6)
        combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
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
        edit.textChanged.connect(self._dates_changed)
        return edit

    def _dates_changed(self) -> None:
        self.include_undated.setEnabled(self.has_dates())

    def has_dates(self) -> bool:
        return bool(self.after.text() or self.before.text())

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
            "include_undated": self.has_dates() and self.include_undated.isChecked(),
        }
