"""The transcript reader: where a timestamp goes when its video has nothing to play here.

It shows the video's transcript as paragraphs, scrolled to the cited second, with the lines
said then lit and the quote (when the click carried one) marked inside them. Beside it: the
video's page at that second in the browser (http(s) links only, `core.ids.is_web`), the
link at that second for the clipboard, and "Locate media file..." for a video whose media
is somewhere on this machine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.file_kinds import MEDIA_EXTENSIONS
from v2c_desktop.core.ids import is_web, timestamp_url
from v2c_desktop.core.timecode import clock

from ..links import parse_seek_href, seek_href
from .reader_text import QuoteMatch, find_quote, lines_at, paragraphs

OpenUrl = Callable[[QUrl], bool]


def media_filter() -> str:
    patterns = " ".join(f"*{extension}" for extension in sorted(MEDIA_EXTENSIONS))
    return f"Video or audio files ({patterns});;All files (*)"


class TranscriptReader(QWidget):
    """A video's transcript opened at a second.

    Signals:
        moved(video_id, seconds): a timestamp inside the reader was clicked (it moved there).
        media_chosen(video_id, path): the user picked the video's media file.
        retry_requested(video_id): "Try again" (after the video failed to play here).
    """

    moved = Signal(str, float)
    media_chosen = Signal(str, str)
    retry_requested = Signal(str)

    def __init__(self, open_url: OpenUrl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcriptReader")
        self._open_url = open_url
        self.record: VideoRecord | None = None
        self.seconds = 0.0
        self.quote = ""
        self.match: QuoteMatch | None = None
        self.cited: list[int] = []
        self._spans: list[tuple[int, int]] = []  # each line's text in the document
        self._keep_in_view = False  # until the user scrolls, resizes re-scroll to the cite
        self._reason = ""

        self.where = QLabel()
        self.where.setObjectName("readerWhere")
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        bold = self.where.font()
        bold.setBold(True)
        self.where.setFont(bold)
        self.reason = QLabel()
        self.reason.setObjectName("readerReason")
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        self.reason.setWordWrap(True)
        self.retry_button = QPushButton("Try again")
        self.retry_button.setObjectName("readerRetry")
        self.retry_button.setToolTip("Try to play this video here again")
        self.retry_button.hide()
        self.text = QTextBrowser()
        self.text.setObjectName("readerText")
        self.text.setOpenLinks(False)
        self.text.setOpenExternalLinks(False)
        self.text.anchorClicked.connect(self._on_anchor)
        self.text.verticalScrollBar().actionTriggered.connect(self._user_scrolled)
        self.text.viewport().installEventFilter(self)
        self.open_button = QPushButton("Open at this time in the browser")
        self.open_button.setObjectName("readerOpen")
        self.copy_button = QPushButton("Copy link at this time")
        self.copy_button.setObjectName("readerCopy")
        self.locate_button = QPushButton("Locate media file…")
        self.locate_button.setObjectName("readerLocate")
        self.locate_button.setToolTip(
            "Choose this video's video or audio file: it plays from then on"
        )
        buttons = QGridLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.open_button, 0, 0, 1, 2)
        buttons.addWidget(self.copy_button, 1, 0)
        buttons.addWidget(self.locate_button, 1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.where)
        why = QHBoxLayout()
        why.setContentsMargins(0, 0, 0, 0)
        why.addWidget(self.reason, 1)
        why.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(why)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)
        self.open_button.clicked.connect(self.open_in_browser)
        self.copy_button.clicked.connect(self.copy_link)
        self.locate_button.clicked.connect(self.locate_media)
        self.retry_button.clicked.connect(lambda: self.retry_requested.emit(self.video_id))

    # -- what it shows -----------------------------------------------------------------------
    @property
    def video_id(self) -> str:
        return self.record.video.id if self.record else ""

    def show_record(self, record: VideoRecord, reason: str, retry: bool = False) -> None:
        """Show `record`'s transcript (built again only for another video or new lines);
        `retry` offers "Try again" (it failed to play here, maybe only for now)."""
        same = (
            self.record is not None
            and self.record.video.id == record.video.id
            and self.record.transcript.segments == record.transcript.segments
            and self.record.chapters == record.chapters
        )
        self.record = record
        self._reason = reason
        self._say(reason)
        self.retry_button.setVisible(retry)
        if not same:
            self._build()

    def show_at(self, seconds: float, quote: str = "") -> None:
        """Scroll to `seconds`, light the lines said then, and mark `quote` when given."""
        if self.record is None:
            return
        segments = self.record.transcript.segments
        self.seconds, self.quote = max(0.0, seconds), quote
        self.match = find_quote(segments, quote, seconds) if quote.strip() else None
        self.cited = list(self.match.lines) if self.match else lines_at(segments, seconds)
        note = ""
        if quote.strip() and self.match is None:
            note = "The quoted words are not in this transcript: the lines at that time are lit."
        self._say(" ".join(t for t in (self._reason, note) if t))
        self.where.setText(f"Transcript at {clock(self.seconds)}")
        link = self.link()
        self.open_button.setVisible(is_web(link))
        self.open_button.setToolTip(link if is_web(link) else "")
        self.copy_button.setEnabled(bool(link))
        self.copy_button.setToolTip(link)
        self._light()
        self._keep_in_view = True
        self.scroll_to_cited()

    def link(self) -> str:
        """The video's link at the cited second (what Copy puts on the clipboard)."""
        return timestamp_url(self.record.video, self.seconds) if self.record else ""

    def marked_text(self) -> str:
        """The words the quote mark covers, "" without a found quote."""
        if self.match is None:
            return ""
        cursor = self._cursor(self._position(*self.match.start), self._position(*self.match.end))
        return cursor.selectedText()

    def cited_visible(self) -> bool:
        """Whether the first lit line is on screen."""
        if not self.cited:
            return False
        rect = self.text.cursorRect(self._cursor(self._spans[self.cited[0]][0]))
        return self.text.viewport().rect().intersects(rect)

    # -- actions -----------------------------------------------------------------------------
    def open_in_browser(self) -> bool:
        link = self.link()
        if not is_web(link):  # never hand any other scheme to the system
            return False
        return self._open_url(QUrl(link))

    def copy_link(self) -> None:
        link = self.link()
        if link:
            QGuiApplication.clipboard().setText(link)

    def locate_media(self) -> QFileDialog:
        """Ask for the media file (a window-modal dialog, `open()`, never `exec()`)."""
        dialog = QFileDialog(self, "Locate the video or audio file of this video")
        dialog.setObjectName("locateMediaDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter(media_filter())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if self.record is not None and self.record.video.source_path:
            folder = Path(self.record.video.source_path).parent
            dialog.setDirectory(str(folder))
        video_id = self.video_id
        dialog.fileSelected.connect(
            lambda path: self.media_chosen.emit(video_id, path) if path else None
        )
        dialog.open()
        return dialog

    def scroll_to_cited(self) -> None:
        if not self.cited:
            return
        rect = self.text.cursorRect(self._cursor(self._spans[self.cited[0]][0]))
        bar = self.text.verticalScrollBar()
        bar.setValue(bar.value() + rect.top() - self.text.viewport().height() // 4)

    # -- the document ------------------------------------------------------------------------
    def _build(self) -> None:
        assert self.record is not None
        record = self.record
        document = self.text.document()
        document.clear()
        self._spans = []
        self.text.setExtraSelections([])
        cursor = QTextCursor(document)
        plain = QTextCharFormat()
        heading = QTextCharFormat()
        heading.setFontWeight(QFont.Weight.Bold)
        spaced = QTextBlockFormat()
        spaced.setTopMargin(4)
        spaced.setBottomMargin(4)
        segments = record.transcript.segments
        if not segments:
            cursor.insertText("This video has no transcript lines.", plain)
            return
        first = True
        for paragraph in paragraphs(segments, record.chapters):
            if paragraph.chapter is not None:  # its time is its first paragraph's link
                if not first:
                    cursor.insertBlock(spaced)
                cursor.setBlockFormat(spaced)
                cursor.insertText(paragraph.chapter.title, heading)
                first = False
            if not paragraph.segments:
                continue
            if not first:
                cursor.insertBlock(spaced)
            cursor.setBlockFormat(spaced)
            first = False
            self._time_link(cursor, segments[paragraph.segments[0]].start)
            for index in paragraph.segments:
                text = " ".join(segments[index].text.split())
                begin = cursor.position()
                cursor.insertText(text, plain)
                self._spans.append((begin, cursor.position()))
                cursor.insertText(" ", plain)
        self.text.verticalScrollBar().setValue(0)

    def _time_link(self, cursor: QTextCursor, seconds: float) -> None:
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setAnchorHref(seek_href(self.video_id, seconds))
        link.setForeground(self.palette().brush(QPalette.ColorRole.Link))
        cursor.insertText(f"[{clock(seconds)}]", link)
        cursor.insertText("  ", QTextCharFormat())

    def _light(self) -> None:
        palette = self.palette()
        soft = QColor(palette.color(QPalette.ColorRole.Highlight))
        soft.setAlpha(60)
        lines = QTextCharFormat()
        lines.setBackground(soft)
        selections = []
        for index in self.cited:
            selection = QTextEdit.ExtraSelection()
            selection.cursor = self._cursor(*self._spans[index])
            selection.format = lines
            selections.append(selection)
        if self.match is not None:
            mark = QTextCharFormat()
            mark.setBackground(palette.brush(QPalette.ColorRole.Highlight))
            mark.setForeground(palette.brush(QPalette.ColorRole.HighlightedText))
            selection = QTextEdit.ExtraSelection()
            selection.cursor = self._cursor(
                self._position(*self.match.start), self._position(*self.match.end)
            )
            selection.format = mark
            selections.append(selection)
        self.text.setExtraSelections(selections)

    def _position(self, line: int, offset: int) -> int:
        """The document position of `offset` in line `line`'s text (spaces are collapsed
        in the document, so the offset is counted over the line's words)."""
        assert self.record is not None
        raw = self.record.transcript.segments[line].text
        shown = len(" ".join(raw[:offset].split()))
        if raw[:offset].strip() and raw[offset - 1].isspace():
            shown += 1  # the offset starts a word after a space
        begin, end = self._spans[line]
        return min(begin + shown, end)

    def _cursor(self, start: int, end: int | None = None) -> QTextCursor:
        cursor = QTextCursor(self.text.document())
        cursor.setPosition(start)
        if end is not None:
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def _say(self, text: str) -> None:
        self.reason.setText(text)
        self.reason.setVisible(bool(text))

    # -- events ------------------------------------------------------------------------------
    def _on_anchor(self, url: QUrl) -> None:
        target = parse_seek_href(url.toString())
        if target is not None and target[0] == self.video_id:
            self.show_at(target[1])
            self.moved.emit(*target)

    def _user_scrolled(self, _action: int) -> None:
        self._keep_in_view = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.text.viewport():
            if event.type() == QEvent.Type.Wheel:
                self._keep_in_view = False
            elif event.type() == QEvent.Type.Resize and self._keep_in_view:
                self.scroll_to_cited()  # lines wrap anew: the cite moved
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        """Light the lines in the new colours when the system palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.record is not None:
            self._light()
