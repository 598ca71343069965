"""The library pane over a real library: imports, details, timestamp links, collections."""

from __future__ import annotations

import gc
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem, QMessageBox
from pytestqt.qtbot import QtBot

from tests.conftest import corpus_path
from tests.gui.conftest import CRASHCOURSE, wait_for, write_media
from tests.gui.library_helpers import make_pane, select_video
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.links import parse_seek_href, seek_href
from v2c_desktop.ui.panes.library.import_panel import warning_color
from v2c_desktop.ui.panes.library.thumbnails import SIZE
from v2c_desktop.ui.panes.library.title_delegate import TitleDelegate
from v2c_desktop.ui.panes.library.videos_model import (
    CHANNEL,
    DURATION,
    ORIGIN,
    SECONDARY_ROLE,
    TITLE,
    video_ids_from,
)

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread() -> Iterator[None]:
    """Collect each test's cyclic garbage (the per-test qasync loop's timers among it) here,
    on the GUI thread: left for later, Python may collect it on a worker thread of the next
    test, and Qt warns that timers cannot be stopped from another thread."""
    yield
    gc.collect()


HOMUNCULUS = "youtube:fxZWtc0mYpQ"


def test_importing_the_corpus_through_the_pane_fills_the_table(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner
) -> None:
    folder = corpus_path(CRASHCOURSE)
    pane = make_pane(qtbot, core, runner)
    with qtbot.waitSignal(runner.finished, timeout=60000) as done:
        job = pane.start_import([str(folder)], collection="Psychology")
    assert done.args[0] == job
    assert done.args[1].count("added") == 10
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    titles = {v.title for v in pane.table.model.videos()}
    assert "Homunculus: Crash Course Psychology #6" in titles
    row = pane.imports.rows[job]
    assert row.status.text() == "10 added"
    assert row.failures.isHidden()
    # the collection the import filled shows up with its videos
    qtbot.waitUntil(lambda: len(pane.sidebar.collections()) == 1)
    (collection,) = pane.sidebar.collections()
    assert collection.name == "Psychology" and len(collection.video_ids) == 10


def test_details_show_chapters_and_transcript_links_that_seek(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    select_video(qtbot, pane, HOMUNCULUS)
    record = pane.details.record
    assert record is not None
    chapters = [pane.details.chapters.item(i).text() for i in range(pane.details.chapters.count())]
    assert chapters[:2] == ["[0:00]  Introduction: HOMUNCULUS", "[1:22]  Sensation vs. Perception"]
    view = pane.details.transcript
    segments = record.transcript.segments
    segment = segments[5]
    assert segment.text.split()[0] in view.line_text(5)  # every caption line is in the text
    # paragraphs of sentences, not a line per caption fragment
    assert view.document().blockCount() < len(segments) / 3
    links = view.links()
    stamps = [(text, href) for text, href, stamp in links if stamp]
    sentences = [(text, href) for text, href, stamp in links if not stamp]
    assert len(stamps) == view.document().blockCount()  # one [m:ss] per paragraph
    assert len(stamps) < len(sentences) < len(segments)
    starts = {round(s.start, 3): s for s in segments}
    for text, href in sentences:  # each seeks to the start of the line it begins in
        target = parse_seek_href(href)
        assert target is not None and target[0] == HOMUNCULUS
        line = starts[round(target[1], 3)]
        assert " ".join(line.text.split()).find(text.split()[0]) >= 0, (text, line)
    first_text, first_href = sentences[0]
    assert first_text.startswith("Homunculus!") and parse_seek_href(first_href) == (
        HOMUNCULUS,
        0.0,
    )
    ended = [text for text, _ in sentences if text.rstrip()[-1] in '.?!…"”’)']
    assert len(ended) >= 0.9 * len(sentences)  # sentences, not caption fragments

    with qtbot.waitSignal(pane.seek_requested) as seek:
        pane.details.transcript.anchorClicked.emit(QUrl(seek_href(HOMUNCULUS, segment.start)))
    assert seek.args == [HOMUNCULUS, pytest.approx(segment.start, abs=1e-3)]

    with qtbot.waitSignal(pane.seek_requested) as seek:
        pane.details.chapters.itemClicked.emit(pane.details.chapters.item(1))
    assert seek.args == [HOMUNCULUS, pytest.approx(record.chapters[1].start)]


def test_the_line_being_played_is_highlighted(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    select_video(qtbot, pane, HOMUNCULUS)
    assert pane.details.record is not None
    segments = pane.details.record.transcript.segments
    view = pane.details.transcript
    pane.set_playhead(HOMUNCULUS, segments[12].start + 0.1)
    assert view.current_line() == 12
    (selection,) = view.extraSelections()
    assert selection.cursor.selectedText() == " ".join(segments[12].text.split())
    pane.set_playhead("youtube:someoneelse", 1.0)  # another video playing: no change
    assert view.current_line() == 12
    pane.set_playhead(HOMUNCULUS, segments[40].start)
    assert view.current_line() == 40
    # the highlight uses the palette's roles, so a dark palette lights it in its own colours
    dark = QPalette(view.palette())
    dark.setColor(QPalette.ColorRole.Highlight, QColor(20, 60, 120))
    view.setPalette(dark)
    (selection,) = view.extraSelections()
    assert selection.format.background().color() == QColor(20, 60, 120)


def test_cancelling_an_import_keeps_what_was_saved_and_no_half_video(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner
) -> None:
    folder = corpus_path(CRASHCOURSE)
    pane = make_pane(qtbot, core, runner)
    job = ""

    def cancel_after_three(job_id: str, stage: str, done: int, _total: int, _msg: str) -> None:
        if job_id == job and stage == "import" and done == 3:
            runner.cancel(job_id)

    runner.progress.connect(cancel_after_three)
    with qtbot.waitSignal(runner.cancelled, timeout=60000) as cancelled:
        job = pane.start_import([str(folder)])
    assert cancelled.args == [job]
    assert "Cancelled" in pane.imports.rows[job].status.text()
    videos = wait_for(qtbot, core.list_videos())
    assert len(videos) == 3
    for summary in videos:  # every saved video is whole
        record = wait_for(qtbot, core.get_video(summary.id))
        assert len(record.transcript.segments) == summary.segment_count > 20
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 3)


def test_an_import_failure_is_listed_with_its_hint(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    pane = make_pane(qtbot, core, runner)
    missing = str(tmp_path / "nowhere" / "talk.srt")
    with qtbot.waitSignal(runner.finished, timeout=30000):
        job = pane.start_import([missing, str(sample_dir())])
    row = pane.imports.rows[job]
    assert row.status.text() == "1 added, 1 failed"
    text = row.failures.text()
    assert "is neither a web address nor a file that exists" in text
    assert "give a video, playlist or channel URL" in text  # the hint
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 1)


def test_collections_create_rename_add_and_delete(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    with qtbot.waitSignal(pane.library_changed):
        pane.create_collection("Memory")
    (memory,) = pane.sidebar.collections()
    with qtbot.waitSignal(pane.library_changed):
        pane.add_to_collection(memory.id, [HOMUNCULUS])
    pane.sidebar.select(memory.id)
    assert pane.table.visible_ids() == [HOMUNCULUS]
    with qtbot.waitSignal(pane.library_changed):
        pane.rename_collection(memory.id, "Senses")
    assert [c.name for c in pane.sidebar.collections()] == ["Senses"]
    assert pane.sidebar.list.currentItem().text() == "Senses (1)"
    with qtbot.waitSignal(pane.library_changed):
        pane.remove_from_collection([HOMUNCULUS])
    assert pane.table.visible_ids() == []
    with qtbot.waitSignal(pane.library_changed):
        pane.delete_collection(memory.id)
    assert pane.sidebar.collections() == []
    assert len(pane.table.visible_ids()) == 10  # back to All videos
    assert len(wait_for(qtbot, crashcourse.list_collections())) == 0


def test_removing_videos_asks_first_and_updates_the_table(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    select_video(qtbot, pane, HOMUNCULUS)
    pane.ask_remove_videos([HOMUNCULUS])
    box = pane.findChild(QMessageBox, "confirmBox")
    assert box is not None and "Remove this video" in box.text()
    with qtbot.waitSignal(pane.library_changed):
        box.button(QMessageBox.StandardButton.Yes).click()
    assert HOMUNCULUS not in pane.table.visible_ids()
    assert pane.table.model.rowCount() == 9
    assert pane.details.record is None
    assert len(wait_for(qtbot, crashcourse.list_videos())) == 9


def test_cancel_in_the_confirmation_removes_nothing(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    pane.ask_remove_videos([HOMUNCULUS])
    box = pane.findChild(QMessageBox, "confirmBox")
    assert box is not None
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert len(wait_for(qtbot, crashcourse.list_videos())) == 10


def test_the_table_sorts_by_duration_and_filters_by_text(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    pane.table.view.sortByColumn(DURATION, Qt.SortOrder.AscendingOrder)
    durations = [
        pane.table.model.video(pane.table.model.row_of(i)).duration
        for i in pane.table.visible_ids()
    ]
    assert durations == sorted(durations)
    qtbot.keyClicks(pane.table.filter, "homunculus")
    assert pane.table.visible_ids() == [HOMUNCULUS]


def test_the_add_dialog_imports_pasted_paths_into_a_collection(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner
) -> None:
    srts = [
        corpus_path(f"transcripts/3blue1brown/{name}/captions.en.srt")
        for name in ("2016_eigenvalues", "2019_bayes-theorem")
    ]
    pane = make_pane(qtbot, core, runner)
    dialog = pane.open_add_dialog()
    dialog.text.setPlainText("\n".join(str(p) for p in srts) + "\n\n")
    dialog.collection.setCurrentText("Math")
    with qtbot.waitSignal(runner.finished, timeout=30000) as done:
        dialog.accept()
    assert done.args[1].count("added") == 2
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 2)
    qtbot.waitUntil(lambda: [c.name for c in pane.sidebar.collections()] == ["Math"])
    origins = {v.origin for v in pane.table.model.videos()}
    assert origins == {"subtitle-file"}


def test_an_unreachable_address_is_plain_words_with_the_apps_own_hint(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner
) -> None:
    """The app names its settings page, never a command-line flag (`.invalid` never resolves)."""
    pane = make_pane(qtbot, core, runner)
    with qtbot.waitSignal(runner.finished, timeout=60000):
        job = pane.start_import(["https://example.invalid/x"])
    text = pane.imports.rows[job].failures.text()
    assert "Could not reach example.invalid: the name does not resolve" in text
    assert "Settings → Imports → Proxy" in text
    assert "--proxy" not in text and "HTTPSConnection" not in text


def test_a_video_is_renamed_from_its_menu_and_the_table_shows_it(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner
) -> None:
    from PySide6.QtWidgets import QInputDialog

    pane = make_pane(qtbot, core, runner)
    with qtbot.waitSignal(runner.finished, timeout=30000):
        pane.start_import([str(sample_dir())])
    sample = "youtube:spCOYV4KyPA"
    select_video(qtbot, pane, sample)
    pane.table.rename_requested.emit(sample)  # what the row's "Rename…" menu item sends
    prompt = pane.findChild(QInputDialog, "textPrompt")
    assert prompt is not None and prompt.textValue() == "Testing Spacecraft with Pytest"
    prompt.setTextValue("Flight software, tested")
    prompt.accept()
    qtbot.waitUntil(
        lambda: [v.title for v in pane.table.model.videos()] == ["Flight software, tested"]
    )
    record = wait_for(qtbot, core.get_video(sample))
    assert record.video.title == "Flight software, tested"


# -- a table that reads as titles, and layout that never jumps -------------------------------
def test_the_title_column_gets_the_space_and_long_titles_are_elided(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    title = wait_for(qtbot, crashcourse.rename_video(HOMUNCULUS, "Senses " * 60)).video.title
    pane = make_pane(qtbot, crashcourse, runner)
    width = pane.width()
    pane.refresh()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    view = pane.table.view
    header = view.horizontalHeader()
    qtbot.waitUntil(lambda: header.sectionSize(TITLE) > 0)
    assert header.isSectionHidden(ORIGIN) and header.isSectionHidden(CHANNEL)
    assert header.sectionSize(TITLE) >= 0.6 * view.viewport().width()
    row = pane.table.proxy.mapFromSource(
        pane.table.model.index(pane.table.model.row_of(HOMUNCULUS), 0)
    )
    assert row.data(Qt.ItemDataRole.ToolTipRole).startswith(title)  # the whole title on hover
    assert row.data(SECONDARY_ROLE).startswith("CrashCourse · subtitle-file · published 2014")
    assert isinstance(view.itemDelegateForColumn(TITLE), TitleDelegate)
    select_video(qtbot, pane, HOMUNCULUS)  # the details show the long title: nothing moves
    details = pane.details
    assert details.title.toolTip() == title and details.title.text().endswith("…")
    assert pane.width() == width and pane.minimumSizeHint().width() < width


def test_ctrl_f_finds_in_the_transcript(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    select_video(qtbot, pane, HOMUNCULUS)
    view, find = pane.details.transcript, pane.details.find_bar
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert find.isVisible() and find.edit.hasFocus()
    qtbot.keyClicks(find.edit, "brain")
    total = view.toPlainText().casefold().count("brain")
    assert total > 3 and view.match_count() == total
    assert find.count.text() == f"1 of {total}"
    lit = [s for s in view.extraSelections() if s.cursor.selectedText().casefold() == "brain"]
    assert len(lit) == total
    qtbot.keyClick(find.edit, Qt.Key.Key_Return)
    assert find.count.text() == f"2 of {total}"
    qtbot.keyClick(find.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(find.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert find.count.text() == f"{total} of {total}"  # wraps around
    bar = view.verticalScrollBar()
    assert bar.value() > 0  # the last match is far down: the view went there
    qtbot.keyClick(find.edit, Qt.Key.Key_Escape)
    assert not find.isVisible() and view.match_count() == 0 and view.hasFocus()
    # from the table too: Ctrl+F finds in the open transcript, the words still there
    pane.table.view.setFocus()
    qtbot.keyClick(pane.table.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert find.isVisible() and find.edit.selectedText() == "brain"
    qtbot.keyClicks(find.edit, "no such words anywhere")
    assert find.count.text() == "No match"


def test_the_transcript_follows_playback_after_a_click_and_waits_while_the_user_scrolls(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    select_video(qtbot, pane, HOMUNCULUS)
    view = pane.details.transcript
    segments = pane.details.record.transcript.segments  # type: ignore[union-attr]
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    _text, href, _stamp = view.links()[40]  # a sentence far down: the user clicks it
    view.anchorClicked.emit(QUrl(href))
    target = parse_seek_href(href)
    assert target is not None
    pane.set_playhead(HOMUNCULUS, target[1] + 0.1)
    assert view.current_line() >= 0 and bar.value() > 0  # followed to the clicked line
    at_click = bar.value()
    later = next(s for s in segments if s.start > target[1] + 200)
    pane.set_playhead(HOMUNCULUS, later.start)
    assert bar.value() > at_click  # still following as it plays on
    bar.triggerAction(bar.SliderAction.SliderToMinimum)  # the user scrolls up to read
    pane.set_playhead(HOMUNCULUS, later.end + 0.5)
    assert bar.value() == 0  # left where the user is reading
    assert view.line_text(view.current_line())  # the playing line is still lit


def test_rows_dragged_onto_a_collection_are_added_to_it(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    with qtbot.waitSignal(pane.library_changed):
        pane.create_collection("Senses")
    (senses,) = pane.sidebar.collections()
    assert pane.table.view.dragEnabled()
    ids = pane.table.visible_ids()[:2]
    pane.table.select_ids(ids)
    rows = pane.table.view.selectionModel().selectedIndexes()
    data = pane.table.proxy.mimeData(rows)
    assert set(video_ids_from(data)) == set(ids)
    assert not data.hasUrls() and not data.hasText()  # the window's drop-to-import ignores it
    listing = pane.sidebar.list
    everything, target = listing.item(0), listing.item(1)
    assert target.data(Qt.ItemDataRole.UserRole + 1) == senses.id
    assert not drop(listing, everything, data)  # "All videos" takes no drop
    with qtbot.waitSignal(pane.library_changed):
        assert drop(listing, target, data)
    (senses,) = pane.sidebar.collections()
    assert set(senses.video_ids) == set(ids)
    assert set(wait_for(qtbot, crashcourse.get_collection(senses.id)).video_ids) == set(ids)


def drop(listing: QListWidget, item: QListWidgetItem, data: QMimeData) -> bool:
    """Drag `data` over `item` and drop it there, as a user's mouse would; accepted?"""
    point = QPointF(listing.visualItemRect(item).center())
    viewport = listing.viewport()
    copy = Qt.DropAction.CopyAction
    buttons, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(viewport, QDragEnterEvent(point, copy, data, buttons, none))
    move = QDragMoveEvent(point, copy, data, buttons, none)
    QApplication.sendEvent(viewport, move)
    if not move.isAccepted():
        return False
    dropped = QDropEvent(point, copy, data, buttons, none)
    QApplication.sendEvent(viewport, dropped)
    return dropped.isAccepted()


def test_new_collection_takes_the_selected_rows(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    from PySide6.QtWidgets import QInputDialog

    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 10)
    ids = pane.table.visible_ids()[3:6]
    pane.table.select_ids(ids)
    assert pane.table.selected_ids() and set(pane.table.selected_ids()) == set(ids)
    pane.sidebar.new_button.click()
    prompt = pane.findChild(QInputDialog, "textPrompt")
    assert prompt is not None and "3 selected videos" in prompt.labelText()
    prompt.setTextValue("Picked")
    with qtbot.waitSignal(pane.library_changed):
        prompt.accept()
    (picked,) = pane.sidebar.collections()
    assert picked.name == "Picked" and set(picked.video_ids) == set(ids)


def test_the_add_dialog_defaults_to_the_collection_open_in_the_sidebar(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh()
    for name in ("Memory", "Sleep"):
        with qtbot.waitSignal(pane.library_changed):
            pane.create_collection(name)
    sleep = next(c for c in pane.sidebar.collections() if c.name == "Sleep")
    first = pane.open_add_dialog()
    assert first.collection_name() == ""  # All videos open: no collection
    first.reject()
    pane.sidebar.select(sleep.id)
    dialog = pane.open_add_dialog()
    assert dialog.collection_name() == "Sleep"
    dialog.reject()


def test_a_failed_import_looks_failed_and_retry_imports_it_again(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    pane = make_pane(qtbot, core, runner)
    missing = tmp_path / "later" / "talk.en.srt"
    with qtbot.waitSignal(runner.finished, timeout=30000):
        job = pane.start_import([str(missing)])
    row = pane.imports.rows[job]
    assert row.state == "failed" and row.property("state") == "failed"
    assert row.bar.isHidden()  # not a full progress bar that reads as success
    assert not row.icon.isHidden()
    assert row.status.palette().color(row.status.foregroundRole()) == warning_color(row.palette())
    assert "is neither a web address nor a file that exists" in row.failures.text()
    assert "give a video, playlist or channel URL" in row.failures.text()  # its hint
    assert not row.retry.isHidden() and row.added.isHidden()
    missing.parent.mkdir()
    missing.write_text("1\n00:00:01,000 --> 00:00:04,000\nHello there.\n", encoding="utf-8")
    with qtbot.waitSignal(runner.finished, timeout=30000) as again:
        row.retry.click()
    retried = pane.imports.rows[again.args[0]]
    assert again.args[0] != job and retried.status.text() == "1 added"
    assert retried.state == "done" and retried.bar.isHidden() and retried.retry.isHidden()
    assert job in pane.imports.rows  # the failed attempt can still be read
    # the added video is a link to it in the table
    (video_id,) = again.args[1].changed_ids
    assert f"v2c-video:{video_id}" in retried.added.text()
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 1)
    pane.table.filter.setText("nothing matches this")
    retried.added.linkActivated.emit(f"v2c-video:{video_id}")
    assert pane.table.selected_ids() == [video_id]
    qtbot.waitUntil(lambda: pane.details.video_id == video_id)


def test_thumbnails_come_from_the_thumbnail_url_once_and_a_placeholder_otherwise(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    from tests.unit.test_thumbnails import ImageServer

    server = ImageServer()
    try:
        folder = tmp_path / "archive"
        shutil.copytree(sample_dir(), folder)
        info = folder / "testing-spacecraft-with-pytest.info.json"
        meta = json.loads(info.read_text())
        meta["thumbnail"] = server.url("/thumb.png")
        info.write_text(json.dumps(meta))
        media, _srt = write_media(tmp_path / "media")
        wait_for(qtbot, core.add([str(folder), str(media)]))
        pane = make_pane(qtbot, core, runner)
        source = pane.thumbnails
        with qtbot.waitSignals([source.ready, source.ready], timeout=30000):
            pane.refresh()
        sample, talk = "youtube:spCOYV4KyPA", pane.table.model.videos()
        other = next(v.id for v in talk if v.id != sample)
        assert source.has_picture(sample) and not source.has_picture(other)
        model = pane.table.model
        picture = model.data(
            model.index(model.row_of(sample), TITLE), Qt.ItemDataRole.DecorationRole
        )
        assert isinstance(picture, QPixmap) and picture.size() == SIZE
        assert picture.toImage() != source.placeholder().toImage()
        assert (
            model.data(model.index(model.row_of(other), TITLE), Qt.ItemDataRole.DecorationRole)
            is source.placeholder()
        )
        assert server.requests == ["/thumb.png"]
        # the next start reads the cached file: no second download
        again = make_pane(qtbot, core, runner)
        with qtbot.waitSignals([again.thumbnails.ready, again.thumbnails.ready], timeout=30000):
            again.refresh()
        assert again.thumbnails.has_picture(sample) and server.requests == ["/thumb.png"]
    finally:
        server.close()


def test_a_dropped_folder_says_how_far_its_walk_has_come(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    folder = tmp_path / "Lectures"
    for week in range(3):
        (folder / f"week{week}").mkdir(parents=True)
        (folder / f"week{week}" / f"talk{week}.en.srt").write_text(
            f"1\n00:00:01,000 --> 00:00:03,000\nWeek {week} begins.\n", encoding="utf-8"
        )
    pane = make_pane(qtbot, core, runner)
    shown: list[str] = []
    job = ""

    def on_progress(job_id: str, stage: str, *_: object) -> None:
        if job_id == job and stage == "scan":  # the row has already drawn this event
            shown.append(pane.imports.rows[job].status.text())

    runner.progress.connect(on_progress)
    job = pane.start_import([str(folder)])
    row = pane.imports.rows[job]
    qtbot.waitUntil(lambda: row.state != "running", timeout=60000)  # this job, not another
    assert shown and shown[-1] == "Scanning Lectures: 3 files"
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 3)


def test_an_archive_replaces_a_web_import_only_after_the_user_confirms(
    qtbot: QtBot, qloop: object, runner: JobRunner, tmp_path: Path
) -> None:
    """An archive whose .info.json claims a video read from the web is kept out and the row
    says so; Replace… asks, Cancel changes nothing, Yes imports it with the archive's words."""
    import threading

    import httpx

    from tests.gui.conftest import make_core
    from tests.unit.security import test_agent_inputs as agent

    def web_import(folder: Path) -> None:
        """The video read from YouTube (replayed: no network), without a thumbnail URL."""
        info = agent.info_with_track("https://www.youtube.com/api/timedtext?v=x", agent.WATCH)
        info.pop("thumbnail", None)
        info.pop("thumbnails", None)
        track = httpx.Response(200, text=agent.VTT, headers={"content-type": "text/vtt"})
        replay = httpx.MockTransport(lambda _request: track)
        result = agent.add(folder, [agent.WATCH], {agent.WATCH: info}, transport=replay)
        assert result.count("added") == 1, result.to_dict()

    web = tmp_path / "web"
    web.mkdir()
    worker = threading.Thread(target=web_import, args=(web,))  # its own event loop
    worker.start()
    worker.join(120)
    api = make_core(web / "lib.duckdb")
    try:
        before = wait_for(qtbot, api.get_video(HOMUNCULUS)).transcript
        folder = agent._archive_claiming_the_id(tmp_path)
        claim = json.loads((folder / "talk.info.json").read_text(encoding="utf-8"))
        claim.pop("thumbnail", None)  # no picture to fetch: this test stays offline
        claim.pop("thumbnails", None)
        (folder / "talk.info.json").write_text(json.dumps(claim), encoding="utf-8")
        pane = make_pane(qtbot, api, runner)
        with qtbot.waitSignal(runner.finished, timeout=60000):
            job = pane.start_import([str(folder)])
        row = pane.imports.rows[job]
        assert row.replace.isVisible() and not row.retry.isVisible()
        assert "imported from the web before" in row.failures.text()
        row.replace.click()
        box = pane.findChild(QMessageBox, "confirmBox")
        assert box is not None and "imported from the web" in box.text()
        box.button(QMessageBox.StandardButton.Cancel).click()
        assert wait_for(qtbot, api.get_video(HOMUNCULUS)).transcript == before
        assert list(pane.imports.rows) == [job]  # nothing was started

        row.replace.click()
        box = pane.findChild(QMessageBox, "confirmBox")
        assert box is not None
        with qtbot.waitSignal(runner.finished, timeout=60000) as replaced:
            box.button(QMessageBox.StandardButton.Yes).click()
        assert replaced.args[1].count("updated") == 1, replaced.args[1].to_dict()
        after = wait_for(qtbot, api.get_video(HOMUNCULUS)).transcript
        assert after.producer.startswith("yt-dlp archive") and after != before
        assert not pane.imports.rows[replaced.args[0]].replace.isVisible()
    finally:
        wait_for(qtbot, runner.shutdown())
        wait_for(qtbot, api.aclose())
