"""One search hit as a card: title, time range, snippet with matched words bold, chapter."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from v2c_desktop.core.search.request import SearchHit

from ...rich_text import escape, range_label, snippet_html
from ..seek_card import SeekCard, card_label


class ResultCard(SeekCard):
    """A search hit; a click anywhere on it plays the hit's moment."""

    def __init__(self, hit: SearchHit, parent: QWidget | None = None) -> None:
        super().__init__("resultCard", parent)
        self.hit = hit
        self.set_moment(hit.video_id, hit.start)
        rich = Qt.TextFormat.RichText
        self.title = card_label(
            f"<b>{escape(hit.title)}</b> &nbsp;{escape(range_label(hit.start, hit.end))}",
            "cardTitle",
            rich,
        )
        self.snippet = card_label(snippet_html(hit.snippet), "cardSnippet", rich)
        facts = [hit.channel, f"chapter: {hit.chapter}" if hit.chapter else ""]
        self.meta = QLabel(escape(" · ".join(f for f in facts if f)))
        self.meta.setObjectName("cardMeta")
        self.meta.setTextFormat(rich)
        self.meta.setEnabled(False)  # the palette's disabled text: quieter, not a fixed colour
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.snippet)
        layout.addWidget(self.meta)
        self.meta.setVisible(bool(self.meta.text()))
