"""Search results as the reader sees them: one group per video, one card per passage.

A group names its video once (elided on one line, the whole title on hover) with its channel;
each card below shows the passage's time range, its chapter and its snippet, wrapped, with
the matched words bold. "Show all" swaps the snippet for the passage's whole text (matched
words still bold), so nothing the search found is hidden behind an ellipsis.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from v2c_desktop.core.search.request import SearchHit
from v2c_desktop.core.timecode import clock

from ...elided_label import ElidedLabel
from ...rich_text import escape, snippet_html
from ..seek_card import SeekCard, card_label

_MARKED = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def marked_words(snippet: str) -> set[str]:
    """The words a snippet marks as matched (`**word**`), case-folded."""
    return {m.group(1).casefold() for m in _MARKED.finditer(snippet)}


def full_text_html(text: str, words: set[str]) -> str:
    """`text` escaped, with every whole-word occurrence of `words` bold."""
    if not words:
        return escape(text)
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)({alternatives})(?!\w)", re.IGNORECASE)
    out: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        out.append(escape(text[pos : match.start()]))
        out.append(f"<b>{escape(match.group(0))}</b>")
        pos = match.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def time_range(hit: SearchHit) -> str:
    return f"{clock(hit.start)}–{clock(hit.end)}"


class ResultCard(SeekCard):
    """One passage; a click anywhere on it (but its "Show all" button) plays its moment."""

    def __init__(self, hit: SearchHit, parent: QWidget | None = None) -> None:
        super().__init__("resultCard", parent)
        self.hit = hit
        self.set_moment(hit.video_id, hit.start)
        self.setToolTip(f"Click (or press Enter) to play from {clock(hit.start)}")
        self.time = QLabel(escape(time_range(hit)))
        self.time.setObjectName("cardTime")
        self.time.setTextFormat(Qt.TextFormat.RichText)
        bold = QFont(self.time.font())
        bold.setBold(True)
        self.time.setFont(bold)
        self.meta = ElidedLabel(f"chapter: {hit.chapter}" if hit.chapter else "")
        self.meta.setObjectName("cardMeta")
        self.meta.setEnabled(False)  # the palette's disabled text: quieter, not a fixed colour
        self.expand = QToolButton()
        self.expand.setObjectName("cardExpand")
        self.expand.setText("Show all")
        self.expand.setCheckable(True)
        self.expand.setAutoRaise(True)
        self.expand.setToolTip("Show the whole passage instead of the snippet")
        self.expand.toggled.connect(self._show_all)
        self._snippet_html = snippet_html(hit.snippet)
        self._full_html = full_text_html(hit.text, marked_words(hit.snippet))
        self.snippet = card_label(self._snippet_html, "cardSnippet", Qt.TextFormat.RichText)
        self.snippet.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.time)
        top.addWidget(self.meta, 1)
        top.addWidget(self.expand)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.snippet)
        self.expand.setVisible(len(hit.text) > len(_MARKED.sub(r"\1", hit.snippet).strip("…")) + 2)

    def _show_all(self, on: bool) -> None:
        self.snippet.setText(self._full_html if on else self._snippet_html)
        self.expand.setText("Show less" if on else "Show all")


class VideoGroup(QFrame):
    """The passages of one video, the video named once above them.

    Signals:
        seek_requested(video_id, seconds): one of its cards was clicked.
    """

    seek_requested = Signal(str, float)

    def __init__(self, hits: list[SearchHit], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultGroup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        first = hits[0]
        self.video_id = first.video_id
        self.title = ElidedLabel(first.title or first.video_id, preferred=600)
        self.title.setObjectName("groupTitle")
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        count = f"{len(hits)} passage{'s' if len(hits) != 1 else ''}"
        self.facts = QLabel(escape(" · ".join(f for f in (first.channel, count) if f)))
        self.facts.setObjectName("groupFacts")
        self.facts.setEnabled(False)
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.title, 1)
        header.addWidget(self.facts)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(header)
        self.cards: list[ResultCard] = []
        for hit in hits:
            card = ResultCard(hit)
            card.seek_requested.connect(self.seek_requested)
            layout.addWidget(card)
            self.cards.append(card)


def group_by_video(hits: list[SearchHit]) -> list[list[SearchHit]]:
    """Hits of each video together, videos in the order of their best hit, each video's
    passages in the order they come in it."""
    groups: dict[str, list[SearchHit]] = {}
    for hit in hits:
        groups.setdefault(hit.video_id, []).append(hit)
    return [sorted(group, key=lambda h: h.start) for group in groups.values()]
