"""A transcript that reads as paragraphs of sentences, every one a link to its moment.

Each paragraph opens with a `[m:ss]` link; each sentence is a quiet link (the text's own
colour, a hand cursor) that seeks to the start of the caption line it begins in. The view
keeps where every caption line's text sits in the document, so the line being played is lit
exactly (a caption line may end one sentence and start the next) and followed: the view
scrolls to it without touching the user's selection, pauses while the user scrolls, and
follows again after any seek.

Find (Ctrl+F in the library) lights every match and steps through them; while a search is
open the view stays where the match is instead of following playback.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import QTextBrowser, QTextEdit, QWidget

from v2c_desktop.core.domain.videos import Chapter, Segment
from v2c_desktop.core.timecode import clock

from ...links import parse_seek_href, seek_href
from .reading import paragraphs

#: After the user scrolls, the view leaves the playhead alone for this long.
SCROLL_PAUSE_S = 4.0
#: A playhead jump longer than this is a seek: following starts again at once.
SEEK_JUMP_S = 3.0
MATCH = QColor(255, 224, 102)  # find highlights: the colours browsers use, on any palette
CURRENT_MATCH = QColor(255, 150, 50)
EMPTY = "This video has no transcript lines."
STAMP = "stamp"  # the anchor name of a paragraph's [m:ss] link


class TranscriptView(QTextBrowser):
    """The transcript of one video, built from its segments and chapters.

    Signals:
        seek_requested(video_id, seconds): a timestamp or a sentence was clicked.
    """

    seek_requested = Signal(str, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        # a caption may hold a URL or a run of symbols: wrap it rather than scroll sideways
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.anchorClicked.connect(self._on_anchor)
        self.video_id = ""
        self.follow = True
        self._ranges: dict[int, tuple[int, int]] = {}  # segment -> (first, end) positions
        self._order: list[int] = []  # segments with text, in time order
        self._starts: list[float] = []  # their start times
        self._current = -1  # the lit segment
        self._seconds = -1.0
        self._paused_until = 0.0
        self._matches: list[tuple[int, int]] = []
        self._match = -1
        bar = self.verticalScrollBar()
        bar.actionTriggered.connect(self._user_scrolled)  # arrows, pages, dragging; not code
        bar.sliderPressed.connect(self._user_scrolled)

    # -- contents ----------------------------------------------------------------------------
    def set_transcript(
        self, video_id: str, segments: Sequence[Segment], chapters: Sequence[Chapter] = ()
    ) -> None:
        self.video_id = video_id
        self._current, self._seconds, self._paused_until = -1, -1.0, 0.0
        self._matches, self._match = [], -1
        self._ranges = {}
        document = QTextDocument(self)
        document.setDefaultFont(self.font())
        document.setUndoRedoEnabled(False)
        cursor = QTextCursor(document)
        block = QTextBlockFormat()
        block.setBottomMargin(self.fontMetrics().height() * 0.6)
        block.setLineHeight(115, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        plain = QTextCharFormat()
        shown = paragraphs(segments, chapters)
        for number, paragraph in enumerate(shown):
            if number:
                cursor.insertBlock(block, plain)
            else:
                cursor.setBlockFormat(block)
            cursor.insertText(f"[{clock(paragraph.start)}]", self._link(paragraph.start))
            cursor.insertText("\u00a0 ", plain)
            for index, sentence in enumerate(paragraph.sentences):
                if index:
                    cursor.insertText(" ", plain)
                quiet = self._quiet_link(sentence.start)
                for k, piece in enumerate(sentence.pieces):
                    if k:
                        cursor.insertText(" ", quiet)
                    begin = cursor.position()
                    cursor.insertText(piece.text, quiet)
                    first, _end = self._ranges.get(piece.segment, (begin, begin))
                    self._ranges[piece.segment] = (first, cursor.position())
        if not shown:
            italic = QTextCharFormat()
            italic.setFontItalic(True)
            cursor.insertText(EMPTY, italic)
        self._order = sorted(self._ranges)
        self._starts = [segments[i].start for i in self._order]
        old = self.document()
        ours = old.parent() is self  # the first one is Qt's, and Qt deletes it itself
        self.setDocument(document)
        if ours:
            old.deleteLater()
        self.setExtraSelections([])

    def _link(self, seconds: float) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setAnchor(True)
        fmt.setAnchorHref(seek_href(self.video_id, seconds))
        fmt.setForeground(self.palette().brush(QPalette.ColorRole.Link))
        fmt.setFontUnderline(True)
        fmt.setToolTip(f"Play from {clock(seconds)}")
        fmt.setAnchorNames([STAMP])
        return fmt

    def _quiet_link(self, seconds: float) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setAnchor(True)
        fmt.setAnchorHref(seek_href(self.video_id, seconds))
        return fmt

    def clear_transcript(self) -> None:
        self.video_id = ""
        self._ranges, self._order, self._starts = {}, [], []
        self._current, self._matches, self._match = -1, [], -1
        self.setExtraSelections([])
        self.clear()

    def has_transcript(self) -> bool:
        return bool(self._order)

    def segment_range(self, index: int) -> tuple[int, int] | None:
        """Where segment `index`'s text is in the document (first, end), or None."""
        return self._ranges.get(index)

    def line_text(self, index: int) -> str:
        """The text of segment `index` as the view shows it."""
        span = self._ranges.get(index)
        if span is None:
            return ""
        cursor = QTextCursor(self.document())
        cursor.setPosition(span[0])
        cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().replace("\u2029", " ")

    def links(self) -> list[tuple[str, str, bool]]:
        """Every link as (text, href, is the paragraph's [m:ss]), in document order; a
        sentence's link text is the sentence."""
        out: list[tuple[str, str, bool]] = []
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                href = fmt.anchorHref()
                stamp = STAMP in fmt.anchorNames()
                if href:
                    if out and out[-1][1] == href and not stamp and not out[-1][2]:
                        out[-1] = (out[-1][0] + fragment.text(), href, False)
                    else:
                        out.append((fragment.text(), href, stamp))
                it += 1
            block = block.next()
        return out

    # -- the playhead ------------------------------------------------------------------------
    def current_line(self) -> int:
        """The lit segment's index, or -1."""
        return self._current

    def set_playhead(self, seconds: float) -> None:
        """Light the caption line playing at `seconds` and keep it in view when following."""
        if self._seconds >= 0 and abs(seconds - self._seconds) > SEEK_JUMP_S:
            self._paused_until = 0.0  # a seek: follow again at once
        self._seconds = seconds
        at = bisect_right(self._starts, seconds) - 1
        index = self._order[at] if at >= 0 else -1
        if index == self._current:
            return
        self._current = index
        self._show_selections()
        if index >= 0 and self._following():
            self._scroll_to(self._ranges[index][0])

    def _following(self) -> bool:
        return self.follow and not self._matches and time.monotonic() >= self._paused_until

    def _user_scrolled(self, *_args: object) -> None:
        self._paused_until = time.monotonic() + SCROLL_PAUSE_S

    def wheelEvent(self, event: QWheelEvent) -> None:
        self._user_scrolled()
        super().wheelEvent(event)

    def _scroll_to(self, position: int) -> None:
        """Bring `position` to the middle third of the view, leaving the selection alone."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        rect = self.cursorRect(cursor)
        height = self.viewport().height()
        if height / 4 <= rect.center().y() <= height * 3 / 4:
            return
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + rect.center().y() - height // 3)

    # -- find --------------------------------------------------------------------------------
    def find_all(self, text: str) -> int:
        """Light every match of `text` (any case) and make the first one current."""
        self._matches = []
        if text:
            document = self.document()
            cursor = document.find(text, 0)
            while not cursor.isNull():
                self._matches.append((cursor.selectionStart(), cursor.selectionEnd()))
                cursor = document.find(text, cursor)
        self._match = 0 if self._matches else -1
        self._show_selections()
        if self._matches:
            self._scroll_to(self._matches[0][0])
        return len(self._matches)

    def find_step(self, backwards: bool = False) -> int:
        """Make the next (or previous) match current, wrapping around; its 0-based index."""
        if not self._matches:
            return -1
        step = -1 if backwards else 1
        self._match = (self._match + step) % len(self._matches)
        self._show_selections()
        self._scroll_to(self._matches[self._match][0])
        return self._match

    def current_match(self) -> int:
        return self._match

    def match_count(self) -> int:
        return len(self._matches)

    def clear_find(self) -> None:
        self._matches, self._match = [], -1
        self._show_selections()

    # -- painting ----------------------------------------------------------------------------
    def _show_selections(self) -> None:
        selections = []
        for number, (first, end) in enumerate(self._matches):
            background = CURRENT_MATCH if number == self._match else MATCH
            selections.append(self._selection(first, end, background, QColor(0, 0, 0)))
        if self._current >= 0:
            first, end = self._ranges[self._current]
            palette = self.palette()
            selections.insert(
                0,
                self._selection(
                    first,
                    end,
                    palette.color(QPalette.ColorRole.Highlight),
                    palette.color(QPalette.ColorRole.HighlightedText),
                ),
            )
        self.setExtraSelections(selections)

    def _selection(
        self, first: int, end: int, background: QColor, foreground: QColor
    ) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.document())
        cursor.setPosition(first)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(background)
        fmt.setForeground(foreground)
        selection.format = fmt
        return selection

    def changeEvent(self, event: QEvent) -> None:
        """Re-light the current line in the new colours when the system palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._show_selections()

    def _on_anchor(self, url: QUrl) -> None:
        target = parse_seek_href(url.toString())
        if target is not None:
            self._paused_until = 0.0  # the user chose a moment: follow it
            cursor = self.textCursor()
            cursor.clearSelection()  # no focus frame left around the sentence clicked
            self.setTextCursor(cursor)
            self.seek_requested.emit(*target)
