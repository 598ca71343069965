"""A transcript where every line's `[m:ss]` is a seek link and the line being played is lit."""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, QUrl, Signal
from PySide6.QtGui import QPalette, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QTextBrowser, QTextEdit, QWidget

from v2c_desktop.core.domain.videos import Segment

from ...links import parse_seek_href
from ...rich_text import escape, time_link


class TranscriptView(QTextBrowser):
    """One paragraph (text block) per segment, so block `i` is segment `i`.

    Signals:
        seek_requested(video_id, seconds): a timestamp link was clicked.
    """

    seek_requested = Signal(str, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor)
        self.video_id = ""
        self.follow = True
        self._starts: list[float] = []
        self._current = -1

    def set_transcript(self, video_id: str, segments: list[Segment]) -> None:
        self.video_id = video_id
        self._starts = [s.start for s in segments]
        self._current = -1
        self.setExtraSelections([])
        paragraphs = (
            f"<p>{time_link(video_id, s.start)}&nbsp; {escape(s.text)}</p>" for s in segments
        )
        self.setHtml("".join(paragraphs) or "<p><i>This video has no transcript lines.</i></p>")

    def clear_transcript(self) -> None:
        self.video_id = ""
        self._starts = []
        self._current = -1
        self.setExtraSelections([])
        self.clear()

    def current_line(self) -> int:
        """The highlighted segment's index, or -1."""
        return self._current

    def set_playhead(self, seconds: float) -> None:
        """Highlight the segment playing at `seconds` (and keep it in view when following)."""
        index = bisect_right(self._starts, seconds) - 1
        if index == self._current:
            return
        self._current = index
        if index < 0:
            self.setExtraSelections([])
            return
        block = self.document().findBlockByNumber(index)
        selection = QTextEdit.ExtraSelection()
        selection.cursor = QTextCursor(block)
        fmt = QTextCharFormat()
        fmt.setBackground(self.palette().brush(QPalette.ColorRole.Highlight))
        fmt.setForeground(self.palette().brush(QPalette.ColorRole.HighlightedText))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.format = fmt
        self.setExtraSelections([selection])
        if self.follow and not self.textCursor().hasSelection():  # never undo a selection
            cursor = QTextCursor(block)
            self.setTextCursor(cursor)
            self.ensureCursorVisible()

    def changeEvent(self, event: QEvent) -> None:
        """Re-light the current line in the new colours when the system palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._current >= 0:
            seconds = self._starts[self._current]
            self._current = -1
            self.set_playhead(seconds)

    def line_text(self, index: int) -> str:
        return self.document().findBlockByNumber(index).text()

    def _on_anchor(self, url: QUrl) -> None:
        target = parse_seek_href(url.toString())
        if target is not None:
            self.seek_requested.emit(*target)
