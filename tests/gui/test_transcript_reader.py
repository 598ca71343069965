"""Every timestamp goes somewhere: a video with nothing to play opens its transcript at the
cited second (lines lit, quote marked, its page and link at that time), and plays from the
moment its media is found beside the subtitles or located by the user."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for
from tests.gui.player_helpers import (
    QUOTED_LINE,
    make_dock,
    recorder,
    subtitles_alone,
    write_wav,
)
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import (
    Chapter,
    Segment,
    Transcript,
    Video,
    VideoRecord,
)
from v2c_desktop.core.ids import timestamp_url
from v2c_desktop.core.settings import Settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.links import seek_href
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.player.backend import PlayerBackend
from v2c_desktop.ui.player.choice import Kind, media_beside
from v2c_desktop.ui.player.dock import PlayerDock
from v2c_desktop.ui.player.local_backend import LocalBackend
from v2c_desktop.ui.player.reader import TranscriptReader
from v2c_desktop.ui.player.reader_text import find_quote, lines_at, paragraphs
from v2c_desktop.ui.player.youtube_backend import YouTubeBackend

pytestmark = pytest.mark.gui

HOMUNCULUS = "youtube:fxZWtc0mYpQ"


def open_reader(
    qtbot: QtBot, dock: PlayerDock, video_id: str, seconds: float, quote: str = ""
) -> TranscriptReader:
    """Click a timestamp of a video with nothing to play: the reader opens there."""
    with qtbot.waitSignal(
        dock.position_changed, timeout=10000, check_params_cb=lambda v, _s: v == video_id
    ):
        dock.play_at(video_id, seconds, quote=quote)
    qtbot.waitUntil(dock.showing_reader, timeout=10000)
    return dock.reader


# -- the reader --------------------------------------------------------------------------------
def test_a_subtitle_only_timestamp_opens_the_transcript_at_that_second(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    video_id, _media = subtitles_alone(qtbot, core, tmp_path / "talk")
    opened: list[QUrl] = []
    dock = make_dock(qtbot, runner, core, opened)
    reader = open_reader(qtbot, dock, video_id, 150.0)
    assert reader.video_id == video_id
    assert reader.cited == [QUOTED_LINE]  # the line said at 2:30
    assert reader.where.text() == "Transcript at 2:30"
    assert "subtitle file alone" in reader.reason.text()
    qtbot.waitUntil(reader.cited_visible)
    assert reader.text.verticalScrollBar().value() > 0  # scrolled down to it
    (lit,) = reader.text.extraSelections()
    assert lit.cursor.selectedText().startswith("Photosynthesis turns the light")
    assert dock.transport.isHidden() and dock.backend is None
    # no web page: no browser button, and nothing was opened
    assert reader.open_button.isHidden()
    assert not reader.open_in_browser() and opened == []
    reader.copy_button.click()
    record = wait_for(qtbot, core.get_video(video_id))
    assert QGuiApplication.clipboard().text() == timestamp_url(record.video, 150.0)
    # the next click on the same video moves the reader at once
    dock.play_at(video_id, 20.5)
    assert reader.cited == [10] and reader.where.text() == "Transcript at 0:20"
    qtbot.waitUntil(lambda: not runner.active() and dock.showing_reader())
    # a click on a timestamp inside the reader moves it too, and says so
    with qtbot.waitSignal(dock.position_changed) as moved:
        reader.text.anchorClicked.emit(QUrl(seek_href(video_id, 100)))
    assert moved.args == [video_id, 100.0] and reader.cited == [50]


def test_the_quote_is_marked_inside_the_cited_lines(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    video_id, _media = subtitles_alone(qtbot, core, tmp_path / "talk")
    dock = make_dock(qtbot, runner, core)
    # a chat citation: its time is the source's start, its words a little later
    reader = open_reader(qtbot, dock, video_id, 144.0, quote="…the light into sugar, and the")
    assert reader.marked_text() == "the light into sugar, and the"
    assert reader.cited == [QUOTED_LINE]
    marked = reader.text.extraSelections()[-1]
    assert marked.cursor.selectedText() == "the light into sugar, and the"
    qtbot.waitUntil(reader.cited_visible)
    # words that are not in the transcript: the lines at that time are lit, and it says so
    dock.play_at(video_id, 30.0, quote="words nobody said in this talk")
    assert reader.marked_text() == "" and reader.cited == [15]
    assert "not in this transcript" in reader.reason.text()


def test_without_webengine_youtube_opens_the_reader_with_its_page_at_that_second(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    opened: list[QUrl] = []
    dock = make_dock(qtbot, runner, crashcourse, opened, webengine=False)
    reader = open_reader(qtbot, dock, HOMUNCULUS, 83.7)
    assert "QtWebEngine" in reader.reason.text()
    assert opened == []  # nothing opens by itself
    assert reader.open_button.isVisible()
    reader.open_button.click()
    link = "https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=83s"
    assert [u.toString() for u in opened] == [link]
    reader.copy_button.click()
    assert QGuiApplication.clipboard().text() == link


def test_youtube_offline_falls_back_to_the_reader_at_that_second(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    def no_network(kind: Kind) -> PlayerBackend:
        if kind == "youtube":  # the IFrame API is asked for, and cannot be reached
            return YouTubeBackend(allow_remote=False, load_api=True)
        return LocalBackend()

    dock = PlayerDock(
        runner, crashcourse.get_video, backend_factory=no_network, open_url=recorder([])
    )
    qtbot.addWidget(dock)
    dock.show()
    dock.play_at(HOMUNCULUS, 83.7)
    qtbot.waitUntil(lambda: dock.showing_reader(), timeout=20000)
    reader = dock.reader
    assert "are you offline" in reader.reason.text()
    assert reader.where.text() == "Transcript at 1:23"
    assert reader.open_button.isVisible() and reader.retry_button.isVisible()
    # the next clicks (a chapter, another line) read on, without trying the page again
    pages: list[QWidget] = []
    dock.stack.currentChanged.connect(lambda _i: pages.append(dock.stack.currentWidget()))
    dock.play_at(HOMUNCULUS, 200.0)
    qtbot.waitUntil(lambda: reader.where.text() == "Transcript at 3:20" and not runner.active())
    assert dock.showing_reader() and pages == []
    # "Try again" does
    reader.retry_button.click()
    qtbot.waitUntil(lambda: any(isinstance(p, QWebEngineView) for p in pages), timeout=10000)
    qtbot.waitUntil(dock.showing_reader, timeout=20000)
    assert reader.where.text() == "Transcript at 3:20"


def test_chapter_clicks_move_the_reader(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    dock = make_dock(qtbot, runner, crashcourse, webengine=False)
    window = MainWindow(crashcourse, runner, Settings(), player=dock)
    qtbot.addWidget(window)
    window.show()
    window.start()
    pane = window.library
    qtbot.waitUntil(lambda: HOMUNCULUS in pane.table.visible_ids(), timeout=10000)
    pane.table.select_ids([HOMUNCULUS])
    qtbot.waitUntil(lambda: pane.details.video_id == HOMUNCULUS, timeout=10000)
    chapters = pane.details.chapters
    chapters.itemClicked.emit(chapters.item(1))  # "[1:22]  Sensation vs. Perception"
    qtbot.waitUntil(dock.showing_reader, timeout=10000)
    reader = dock.reader
    assert reader.where.text() == "Transcript at 1:22"
    assert reader.record is not None
    chapter = reader.record.chapters[1]
    first = reader.cited[0]
    assert reader.record.transcript.segments[first].end > chapter.start
    chapters.itemClicked.emit(chapters.item(3))
    qtbot.waitUntil(lambda: reader.seconds == reader.record.chapters[3].start, timeout=10000)
    qtbot.waitUntil(reader.cited_visible)
    # the chapter's title is a heading in the reader
    assert reader.record.chapters[3].title in reader.text.toPlainText()


# -- media found later --------------------------------------------------------------------------
def test_media_found_beside_the_subtitles_plays_from_then_on(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    video_id, media = subtitles_alone(qtbot, core, tmp_path / "talk")
    dock = make_dock(qtbot, runner, core)
    open_reader(qtbot, dock, video_id, 30.0)
    write_wav(media, 300)  # the user copies the recording next to its subtitles
    said: list[str] = []
    dock.message_changed.connect(said.append)
    dock.play_at(video_id, 150.0)
    qtbot.waitUntil(lambda: isinstance(dock.backend, LocalBackend), timeout=10000)
    backend = dock.backend
    assert isinstance(backend, LocalBackend)
    qtbot.waitUntil(lambda: backend.player.position() >= 150000, timeout=10000)
    assert backend.player.source() == QUrl.fromLocalFile(str(media.resolve()))
    assert any("found beside the subtitles" in m for m in said)
    assert dock.message() == ""  # said in the status bar: the player's layout does not move
    record = wait_for(qtbot, core.get_video(video_id))  # the library keeps it
    assert record.video.source_path == str(media.resolve())


def test_locate_media_file_plays_it_and_the_library_keeps_it(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    video_id, _media = subtitles_alone(qtbot, core, tmp_path / "talk")
    elsewhere = write_wav(tmp_path / "recordings" / "2024-05-01 lecture.wav", 300)
    dock = make_dock(qtbot, runner, core)
    reader = open_reader(qtbot, dock, video_id, 150.0, quote="the light into sugar")
    reader.locate_button.click()  # opens the dialog and returns: open(), not exec()
    dialog = reader.findChild(QFileDialog, "locateMediaDialog")
    assert dialog is not None and dialog.isVisible()
    assert "*.mp4" in dialog.nameFilters()[0]
    dialog.selectFile(str(elsewhere))
    dialog.accept()
    qtbot.waitUntil(lambda: isinstance(dock.backend, LocalBackend), timeout=10000)
    backend = dock.backend
    assert isinstance(backend, LocalBackend)
    qtbot.waitUntil(lambda: backend.player.position() >= 150000, timeout=10000)
    record = wait_for(qtbot, core.get_video(video_id))
    assert record.video.source_path == str(elsewhere.resolve())
    # it plays from then on, also after a subtitle-only video in between
    other_id, _ = subtitles_alone(qtbot, core, tmp_path / "other", "other")
    open_reader(qtbot, dock, other_id, 10.0)
    dock.play_at(video_id, 40.0)
    qtbot.waitUntil(
        lambda: dock.backend is backend and backend.player.position() >= 40000, timeout=10000
    )


def test_a_file_that_is_not_media_is_refused_with_the_reason(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    video_id, _media = subtitles_alone(qtbot, core, tmp_path / "talk")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a recording", encoding="utf-8")
    dock = make_dock(qtbot, runner, core)
    open_reader(qtbot, dock, video_id, 30.0)
    with qtbot.waitSignal(runner.failed, timeout=10000) as failed:
        dock.use_media(video_id, str(notes))
    assert "not a video or audio file" in failed.args[2]
    assert dock.showing_reader()


# -- links and the pure parts ------------------------------------------------------------------
def record_with(url: str, segments: list[Segment] | None = None) -> VideoRecord:
    video = Video(
        id="file:abc", title="t", platform="file", native_id="abc", url=url, source_path=""
    )
    lines = segments or [Segment(0, 2, "one"), Segment(2, 4, "two")]
    return VideoRecord(video, Transcript("subtitle-file", "en", lines))


@pytest.mark.parametrize(
    ("url", "opens"),
    [
        ("https://example.org/talk", True),
        ("http://example.org/talk", True),
        ("smb://server/share/talk", False),
        ("javascript:alert(1)", False),
        ("file:///etc/passwd", False),
    ],
)
def test_only_web_pages_open_in_the_browser(qtbot: QtBot, url: str, opens: bool) -> None:
    opened: list[QUrl] = []
    reader = TranscriptReader(recorder(opened))
    qtbot.addWidget(reader)
    reader.show()
    reader.show_record(record_with(url), "")
    reader.show_at(2.5)
    assert reader.open_button.isVisible() is opens
    assert reader.open_in_browser() is opens
    assert [u.scheme() for u in opened] == (
        ["https" if "https" in url else "http"] if opens else []
    )


def test_paragraphs_lines_at_and_quotes() -> None:
    lines = [
        Segment(0, 3, "Light arrives."),
        Segment(3, 6, "It is absorbed"),
        Segment(6, 9, "by chlorophyll."),
        Segment(30, 33, "After a pause, sugar is made."),
        Segment(33, 36, "And sugar is made again later."),
    ]
    chapters = [Chapter("Start", 0, 30), Chapter("Sugar", 30, 36)]
    groups = paragraphs(lines, chapters)
    assert [(g.chapter.title if g.chapter else None, g.segments) for g in groups] == [
        ("Start", [0, 1, 2]),
        ("Sugar", [3, 4]),
    ]
    assert lines_at(lines, 4.0) == [1]
    assert lines_at(lines, 12.0) == [2]  # in a pause: the line before
    assert lines_at(lines, 27.0) == [3]  # just before a line: that line
    # a quote across lines, with other spacing, case and punctuation
    match = find_quote(lines, "IT IS  absorbed by chlorophyll", 3.0)
    assert match is not None and list(match.lines) == [1, 2]
    assert match.start == (1, 0) and match.end == (2, len("by chlorophyll"))
    # said twice: the one nearest the cited second
    assert find_quote(lines, "sugar is made", 34.0).start[0] == 4  # type: ignore[union-attr]
    assert find_quote(lines, "sugar is made", 30.0).start[0] == 3  # type: ignore[union-attr]
    # cut with an ellipsis: both parts, in order
    cut = find_quote(lines, "Light arrives … by chlorophyll", 0.0)
    assert cut is not None and list(cut.lines) == [0, 1, 2]
    assert find_quote(lines, "a", 0.0) is None  # too short to mean anything
    assert find_quote(lines, "photosynthesis", 0.0) is None


def test_media_beside_a_subtitle_file(tmp_path: Path) -> None:
    srt = tmp_path / "talk.en-US.srt"
    srt.write_text("", encoding="utf-8")
    assert media_beside(str(srt)) is None
    (tmp_path / "talk.notes.txt").write_text("", encoding="utf-8")
    (tmp_path / "other.mp4").write_bytes(b"")
    assert media_beside(str(srt)) is None
    (tmp_path / "Talk.MKV").write_bytes(b"")
    assert media_beside(str(srt)) == tmp_path / "Talk.MKV"
    assert media_beside(str(tmp_path / "Talk.MKV")) is None  # not a subtitle file
    assert media_beside("") is None
