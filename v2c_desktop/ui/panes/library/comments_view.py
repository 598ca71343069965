"""A video's comments in its details: loaded on request, shown as plain text.

Comments come from the video's site, so nothing is read until the user asks ("Load
comments", a cancellable job the pane runs); comments the library kept come back at once.
Each comment shows its author, date and likes, and whether the channel wrote, pinned or
hearted it; replies are indented under the comment they answer.

Comment text is a stranger's: it is put into the document with `QTextCursor.insertText`,
which never reads markup, so `<a href=...>` or `<script>` show as the characters they are
and nothing in a comment becomes a link.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.comments import MAX_LIMIT, Comments
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.ids import is_web

#: How many comments "Load comments" asks for; "Load more" doubles it, up to `MAX_LIMIT`.
FIRST_LIMIT = 100
REPLY_MARGIN = 28.0
GAP = 8.0
INVITE = "Comments come from the video's site: Load comments reads them (kept for next time)."
NO_SITE = "This video was imported from a file on this computer: it has no comments."
LOADING = "Reading comments…"
CANCELLED = "Cancelled: no comments were read."


def summary(found: Comments) -> str:
    """The line above the comments: how many, from where, and whether there are more."""
    if found.disabled:
        said = "Comments are turned off for this video."
    elif not found.comments:
        said = "No comments."
    else:
        said = f"{found.count} comment" + ("" if found.count == 1 else "s")
        said += " (all of them)" if found.complete else ""
    when = found.fetched_at.replace("T", " ")[:16]
    said += f" · read from the site {when}" if when else ""
    if not found.in_library:
        said += " · the video is not in the library (no transcript)"
    return said


class CommentsView(QWidget):
    """The comments of the video the details show.

    Signals:
        load_requested(video_id, limit, refresh): read (up to `limit`) comments; `refresh`
            reads them from the site even when the library holds enough.
        cancel_requested(): stop the read that is running.
    """

    load_requested = Signal(str, int, bool)
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("comments")
        self.video_id = ""
        self.shown: Comments | None = None
        self._next_limit = FIRST_LIMIT
        self.status = QLabel()
        self.status.setObjectName("commentsStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.load = QPushButton("Load comments")
        self.load.setObjectName("loadComments")
        self.load.setToolTip("Read this video's comments from its site (or the library)")
        self.load.clicked.connect(self._load)
        self.reload = QPushButton("Read again")
        self.reload.setObjectName("reloadComments")
        self.reload.setToolTip("Read the comments from the site again (new ones may be there)")
        self.reload.clicked.connect(self._reload)
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("cancelComments")
        self.cancel.clicked.connect(self.cancel_requested)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.status, 1)
        row.addWidget(self.load)
        row.addWidget(self.reload)
        row.addWidget(self.cancel)
        self.list = QTextEdit()
        self.list.setObjectName("commentsText")
        self.list.setReadOnly(True)
        self.list.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.list.setAcceptRichText(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.list, 1)
        self.clear()

    # -- what the pane tells it --------------------------------------------------------------
    def clear(self) -> None:
        self.video_id = ""
        self.shown = None
        self._next_limit = FIRST_LIMIT
        self.status.setText("")
        self.list.clear()
        self.list.hide()
        for button in (self.load, self.reload, self.cancel):
            button.hide()

    def set_video(self, record: VideoRecord) -> None:
        """A new video is shown: nothing is read until the user asks."""
        self.clear()
        self.video_id = record.video.id
        if is_web(record.video.url):
            self.status.setText(INVITE)
            self.load.setText("Load comments")
            self.load.show()
        else:
            self.status.setText(NO_SITE)

    def set_loading(self) -> None:
        self.status.setText(LOADING)
        self.load.hide()
        self.reload.hide()
        self.cancel.show()

    def show_comments(self, found: Comments) -> None:
        self.shown = found
        self.cancel.hide()
        self.status.setText(summary(found))
        more = not found.complete and found.count < MAX_LIMIT
        self._next_limit = min(max(found.count * 2, FIRST_LIMIT), MAX_LIMIT)
        self.load.setText("Load more")
        self.load.setVisible(more)
        self.reload.show()
        self._fill(found)

    def show_failed(self, message: str, hint: str) -> None:
        self.cancel.hide()
        self.status.setText(f"{message}\n{hint}" if hint else message)
        self._show_buttons_again()

    def show_cancelled(self) -> None:
        self.cancel.hide()
        self.status.setText(summary(self.shown) if self.shown else CANCELLED)
        self._show_buttons_again()

    def text(self) -> str:
        """The comments as shown (for tests and copying)."""
        return self.list.toPlainText()

    # -- inside ------------------------------------------------------------------------------
    def _show_buttons_again(self) -> None:
        self.load.setVisible(self.shown is None or not self.shown.complete)
        self.reload.setVisible(self.shown is not None)

    def _load(self) -> None:
        if self.video_id:
            self.load_requested.emit(self.video_id, self._next_limit, False)

    def _reload(self) -> None:
        if self.video_id:
            limit = max(self.shown.count if self.shown else 0, FIRST_LIMIT)
            self.load_requested.emit(self.video_id, min(limit, MAX_LIMIT), True)

    def _fill(self, found: Comments) -> None:
        self.list.clear()
        self.list.setVisible(bool(found.comments))
        cursor = QTextCursor(self.list.document())
        bold = QTextCharFormat()
        bold.setFontWeight(QFont.Weight.Bold)
        plain = QTextCharFormat()
        for n, comment in enumerate(found.comments):
            block = QTextBlockFormat()
            block.setLeftMargin(REPLY_MARGIN if comment.is_reply else 0.0)
            block.setTopMargin(GAP if n else 0.0)
            if n:
                cursor.insertBlock(block, plain)
            else:
                cursor.setBlockFormat(block)
            cursor.insertText(("↳ " if comment.is_reply else "") + comment.facts, bold)
            body = QTextBlockFormat()
            body.setLeftMargin(block.leftMargin())
            for line in comment.text.splitlines() or [""]:
                cursor.insertBlock(body, plain)
                cursor.insertText(line, plain)
        self.list.moveCursor(QTextCursor.MoveOperation.Start)
