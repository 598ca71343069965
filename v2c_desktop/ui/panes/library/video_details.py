"""The details of one video: its facts, its chapters (clickable) and its transcript, and
its comments in a tab of their own (read from the site only when asked).

The title and the link are single elided lines (the whole text on hover): a long title or
URL never widens the pane or pushes the transcript around.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.captions import CaptionChoice
from v2c_desktop.core.domain.comments import Comments
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.ids import is_web
from v2c_desktop.core.timecode import clock

from ...elided_label import ElidedLabel
from ...speech_words import can_transcribe, origin_words, transcript_origin
from .comments_view import CommentsView
from .find_bar import FindBar
from .transcript_view import TranscriptView

START_ROLE = Qt.ItemDataRole.UserRole + 1
EMPTY = "Select a video to read its transcript."


class VideoDetails(QWidget):
    """Shows one `VideoRecord`; follows the player's time on its transcript.

    Signals:
        seek_requested(video_id, seconds): a chapter or a transcript timestamp was clicked.
        retranscribe_requested(video_id): "Re-transcribe…" was clicked (a local video only).
        caption_track_requested(video_id): "Caption track…" was clicked (a web video whose
            site offers several caption tracks).
    """

    seek_requested = Signal(str, float)
    retranscribe_requested = Signal(str)
    caption_track_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record: VideoRecord | None = None
        self.title = ElidedLabel(preferred=400)
        self.title.setObjectName("videoTitle")
        font = QFont(self.title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.facts = ElidedLabel(preferred=400)
        self.facts.setObjectName("videoFacts")
        self.link = ElidedLabel(preferred=400)
        self.link.setObjectName("videoLink")
        self.link.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_link = QToolButton()
        self.open_link.setObjectName("videoOpenLink")
        self.open_link.setText("Open")
        self.open_link.setAutoRaise(True)
        self.open_link.setToolTip("Open the video's page in the browser")
        self.open_link.clicked.connect(self._open_page)
        self.find_button = QToolButton()
        self.find_button.setObjectName("findButton")
        self.find_button.setText("Find…")
        self.find_button.setAutoRaise(True)
        self.find_button.setToolTip("Find in the transcript (Ctrl+F)")
        self.retranscribe = QToolButton()
        self.retranscribe.setObjectName("videoRetranscribe")
        self.retranscribe.setText("Re-transcribe…")
        self.retranscribe.setAutoRaise(True)
        self.retranscribe.setToolTip(
            "Transcribe this video's speech again on this computer, with a speech model "
            "you choose; its transcript is replaced only when that is done"
        )
        self.retranscribe.clicked.connect(self._ask_retranscribe)
        self.caption_track = QToolButton()
        self.caption_track.setObjectName("videoCaptionTrack")
        self.caption_track.setText("Caption track…")
        self.caption_track.setAutoRaise(True)
        self.caption_track.setToolTip(
            "Read the transcript from another of the caption tracks the video's site offers "
            "(another language, the creator's or speech recognition, a machine translation)"
        )
        self.caption_track.clicked.connect(self._ask_caption_track)
        link_row = QHBoxLayout()
        link_row.setContentsMargins(0, 0, 0, 0)
        link_row.addWidget(self.link, 1)
        link_row.addWidget(self.open_link)
        link_row.addWidget(self.find_button)
        link_row.addWidget(self.retranscribe)
        link_row.addWidget(self.caption_track)
        self.chapters = QListWidget()
        self.chapters.setObjectName("chapters")
        self.chapters.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.chapters.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.transcript = TranscriptView()
        self.transcript.setPlaceholderText(EMPTY)
        self.find_bar = FindBar(self.transcript, self)
        self.find_button.clicked.connect(self.open_find)
        reader = QWidget()
        column = QVBoxLayout(reader)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.find_bar)
        column.addWidget(self.transcript, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.chapters)
        split.addWidget(reader)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        split.setChildrenCollapsible(False)
        self.comments = CommentsView()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("detailsTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(split, "Transcript")
        self.tabs.addTab(self.comments, "Comments")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addLayout(link_row)
        layout.addWidget(self.tabs, 1)
        self.chapters.itemClicked.connect(self._on_chapter)
        self.chapters.itemActivated.connect(self._on_chapter)
        self.transcript.seek_requested.connect(self.seek_requested)
        self.clear()

    @property
    def video_id(self) -> str:
        return self.record.video.id if self.record else ""

    def clear(self) -> None:
        self.record = None
        self.title.set_full_text("")
        self.facts.set_full_text("")
        self.link.set_full_text("")
        self.open_link.hide()
        self.find_button.hide()
        self.retranscribe.hide()
        self.caption_track.hide()
        self.chapters.clear()
        self.chapters.hide()
        self.find_bar.hide()
        self.transcript.clear_transcript()
        self.comments.clear()
        self.tabs.setTabText(1, "Comments")
        self.tabs.setCurrentIndex(0)

    def show_record(self, record: VideoRecord) -> None:
        if record.video.id != self.video_id:  # the same video read again keeps its comments
            self.comments.set_video(record)
            self.tabs.setTabText(1, "Comments")
        self.record = record
        video = record.video
        self.title.set_full_text(video.title or video.id)
        self.facts.set_full_text(_facts(record))
        self.facts.setToolTip(_facts_tip(record))
        self.link.set_full_text(video.url or video.source_path)
        self.open_link.setVisible(is_web(video.url))
        self.retranscribe.setVisible(can_transcribe(video.source_path))
        self.caption_track.setVisible(offers_caption_tracks(record))
        self.chapters.clear()
        for chapter in record.chapters:
            item = QListWidgetItem(f"[{clock(chapter.start)}]  {chapter.title}")
            item.setData(START_ROLE, chapter.start)
            item.setToolTip(chapter.title)
            self.chapters.addItem(item)
        self.chapters.setVisible(bool(record.chapters))
        self.transcript.set_transcript(video.id, record.transcript.segments, record.chapters)
        self.find_button.setVisible(self.transcript.has_transcript())
        self.find_bar.refresh()

    def has_transcript(self) -> bool:
        return self.transcript.has_transcript()

    def show_comments(self, found: Comments) -> None:
        """Comments read for the video shown (the caller checked it still is)."""
        self.comments.show_comments(found)
        self.tabs.setTabText(1, f"Comments ({found.count})")

    def open_find(self) -> None:
        if self.has_transcript():
            self.find_bar.open_find()

    def set_playhead(self, video_id: str, seconds: float) -> None:
        if self.record is not None and video_id == self.record.video.id:
            self.transcript.set_playhead(seconds)

    def _on_chapter(self, item: QListWidgetItem) -> None:
        if self.record is not None:
            self.seek_requested.emit(self.record.video.id, float(item.data(START_ROLE)))

    def _ask_retranscribe(self) -> None:
        if self.record is not None:
            self.retranscribe_requested.emit(self.record.video.id)

    def _ask_caption_track(self) -> None:
        if self.record is not None:
            self.caption_track_requested.emit(self.record.video.id)

    def _open_page(self) -> None:
        if self.record is not None and is_web(self.record.video.url):
            QDesktopServices.openUrl(QUrl(self.record.video.url))


def offers_caption_tracks(record: VideoRecord) -> bool:
    """A web video whose site offered several caption tracks when it was imported, or whose
    import did not count them (an older one, a local archive of it): "Caption track…" can
    offer the others. A file has no site; a video with one track has nothing to choose."""
    video, count = record.video, record.transcript.track_count
    if video.platform == "file" or not is_web(video.url):
        return False
    return count is None or count > 1


def _facts(record: VideoRecord) -> str:
    video, transcript = record.video, record.transcript
    facts = [
        video.channel,
        clock(record.duration),
        f"published {video.published}" if video.published else "",
        transcript_origin(transcript, language=True),
        f"{len(transcript.segments)} lines",
    ]
    return " · ".join(f for f in facts if f)


def _facts_tip(record: VideoRecord) -> str:
    """The facts in full, and who made the transcript (a speech model's engine, versions)."""
    transcript = record.transcript
    tip = _facts(record)
    origin = origin_words(transcript.origin)
    if transcript.producer:
        made = "transcribed on this computer by" if transcript.origin == "stt" else "from"
        tip += f"\nTranscript: {origin}, {made} {transcript.producer}"
    if transcript.track:
        name = f" “{transcript.track_name}”" if transcript.track_name else ""
        count = transcript.track_count
        of = f", one of {count} tracks" if count and count > 1 else ""
        tip += f"\nCaption track{name}: {track_words(transcript.track)}{of}"
    return tip


def track_words(key: str) -> str:
    """A recorded track key in words: "auto captions (en), translated into de"."""
    try:
        return CaptionChoice.parse(key).words()
    except V2CError:
        return key
