"""The library pane over a real library: imports, details, timestamp links, collections."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.conftest import corpus_path
from tests.gui.conftest import CRASHCOURSE, wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.links import seek_href
from v2c_desktop.ui.panes.library.pane import LibraryPane
from v2c_desktop.ui.panes.library.videos_model import DURATION

pytestmark = pytest.mark.gui

HOMUNCULUS = "youtube:fxZWtc0mYpQ"


def make_pane(qtbot: QtBot, api: CoreAPI, runner: JobRunner) -> LibraryPane:
    pane = LibraryPane(api, runner)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    return pane


def select_video(qtbot: QtBot, pane: LibraryPane, video_id: str) -> None:
    qtbot.waitUntil(lambda: video_id in pane.table.visible_ids())
    pane.table.select_ids([video_id])
    qtbot.waitUntil(lambda: pane.details.video_id == video_id)


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
    html = pane.details.transcript.toHtml()
    segment = record.transcript.segments[5]
    assert seek_href(HOMUNCULUS, segment.start).replace("&", "&amp;") in html
    # the link's text block is the segment's line
    assert segment.text.split()[0] in pane.details.transcript.line_text(5)

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
    assert selection.cursor.block().blockNumber() == 12
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
