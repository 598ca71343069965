"""The details of one video: its facts, its chapters (clickable) and its transcript."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QSplitter, QVBoxLayout, QWidget

from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.timecode import clock

from ...rich_text import escape
from .transcript_view import TranscriptView

START_ROLE = Qt.ItemDataRole.UserRole + 1


class VideoDetails(QWidget):
    """Shows one `VideoRecord`; follows the player's time on its transcript.

    Signals:
        seek_requested(video_id, seconds): a chapter or a transcript timestamp was clicked.
    """

    seek_requested = Signal(str, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record: VideoRecord | None = None
        self.header = QLabel()
        self.header.setObjectName("videoHeader")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setOpenExternalLinks(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.chapters = QListWidget()
        self.chapters.setObjectName("chapters")
        self.transcript = TranscriptView()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.chapters)
        split.addWidget(self.transcript)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(split, 1)
        self.chapters.itemClicked.connect(self._on_chapter)
        self.chapters.itemActivated.connect(self._on_chapter)
        self.transcript.seek_requested.connect(self.seek_requested)
        self.clear()

    @property
    def video_id(self) -> str:
        return self.record.video.id if self.record else ""

    def clear(self) -> None:
        self.record = None
        self.header.setText("<i>Select a video to see its chapters and transcript.</i>")
        self.chapters.clear()
        self.chapters.hide()
        self.transcript.clear_transcript()

    def show_record(self, record: VideoRecord) -> None:
        self.record = record
        self.header.setText(_header_html(record))
        self.chapters.clear()
        for chapter in record.chapters:
            item = QListWidgetItem(f"[{clock(chapter.start)}]  {chapter.title}")
            item.setData(START_ROLE, chapter.start)
            self.chapters.addItem(item)
        self.chapters.setVisible(bool(record.chapters))
        self.transcript.set_transcript(record.video.id, record.transcript.segments)

    def set_playhead(self, video_id: str, seconds: float) -> None:
        if self.record is not None and video_id == self.record.video.id:
            self.transcript.set_playhead(seconds)

    def _on_chapter(self, item: QListWidgetItem) -> None:
        if self.record is not None:
            self.seek_requested.emit(self.record.video.id, float(item.data(START_ROLE)))


def _header_html(record: VideoRecord) -> str:
    video, transcript = record.video, record.transcript
    facts = [
        video.channel,
        clock(record.duration),
        f"published {video.published}" if video.published else "",
        f"{transcript.origin} ({transcript.language})"
        if transcript.language
        else transcript.origin,
        f"{len(transcript.segments)} lines",
    ]
    line = " · ".join(escape(f) for f in facts if f)
    link = ""
    if video.url:
        link = f'<br><a href="{escape(video.url)}">{escape(video.url)}</a>'
    elif video.source_path:
        link = f"<br>{escape(video.source_path)}"
    return f"<b>{escape(video.title or video.id)}</b><br>{line}{link}"
