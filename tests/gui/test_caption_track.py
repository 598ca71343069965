""" "Caption track…" in a video's details: a web video whose site offers several caption tracks
lists them (the current one marked), and the one chosen is imported as a job under Imports,
with YouTube replayed (tests/support/youtube_replay.py). A download that fails leaves the
transcript as it was."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.conftest import corpus_path
from tests.gui.conftest import wait_for
from tests.gui.library_helpers import make_pane, select_video
from tests.support.youtube_replay import PLAYERS, CaptionSite, caption_lines, replay_web, watch_url
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.panes.library.caption_track_dialog import CURRENT_MARK, CaptionTrackDialog
from v2c_desktop.ui.panes.library.pane import LibraryPane

pytestmark = [pytest.mark.gui, pytest.mark.corpus]

SURFACE_ID = "youtube:GJLlxj_dtq8"


@pytest.fixture
def replayed(
    tmp_path: Path, qloop: asyncio.AbstractEventLoop, qtbot: QtBot
) -> Iterator[tuple[CoreAPI, CaptionSite]]:
    """A library holding the recorded Surface Go video, imported with its default track."""
    web, _source, site = replay_web(corpus_path(PLAYERS))
    api = CoreAPI(
        Services.open(tmp_path / "lib.duckdb", settings=Settings(), web=web, index_on_import=False)
    )
    added = wait_for(qtbot, api.add([watch_url("GJLlxj_dtq8")]))
    assert added.count("added") == 1, added.to_dict()
    yield api, site
    pending = [t for t in asyncio.all_tasks() if not t.done()]
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10000)
    wait_for(qtbot, api.aclose())


def the_dialog(qtbot: QtBot, pane: LibraryPane) -> CaptionTrackDialog:
    qtbot.waitUntil(lambda: pane.findChild(CaptionTrackDialog) is not None, timeout=10000)
    dialog = pane.findChild(CaptionTrackDialog)
    assert isinstance(dialog, CaptionTrackDialog)
    return dialog


def test_choosing_another_caption_track_reimports_it_and_a_failure_keeps_the_transcript(
    qtbot: QtBot, replayed: tuple[CoreAPI, CaptionSite], runner: JobRunner
) -> None:
    api, site = replayed
    pane = make_pane(qtbot, api, runner)
    pane.refresh()
    select_video(qtbot, pane, SURFACE_ID)
    details = pane.details
    assert caption_lines("creator en")[0] in details.transcript.toPlainText()
    assert details.caption_track.isVisible()
    assert "Caption track “English”: creator captions (en), one of 9 tracks" in (
        details.facts.toolTip()
    )

    details.caption_track.click()
    dialog = the_dialog(qtbot, pane)
    lines = [dialog.tracks.itemText(i) for i in range(dialog.tracks.count())]
    assert len(lines) == 9
    assert [line for line in lines if line.endswith(CURRENT_MARK)] == [
        "English · creator captions (en) · now"
    ]
    assert dialog.tracks.currentText() == "English · creator captions (en) · now"
    assert not dialog.use_button.isEnabled()  # that is the track it has
    assert dialog.now.text() == "creator captions (en)"
    assert dialog.translation.isEnabled() and dialog.translation.count() == 19
    dialog.tracks.setCurrentIndex(lines.index("German · creator captions (de)"))
    assert dialog.use_button.isEnabled()
    with qtbot.waitSignal(  # the import's job: a thumbnail's may finish first
        runner.finished, timeout=20000, check_params_cb=lambda job, _: job in pane.imports.rows
    ) as done:
        dialog.use_button.click()
    outcome = done.args[1]
    assert (outcome.status, outcome.video_id) == ("updated", SURFACE_ID)
    row = pane.imports.rows[done.args[0]]
    assert row.state == "done" and row.title.full_text().endswith("creator captions (de)")
    assert row.status.text().startswith("Done: Replaced its transcript (creator captions (en))")
    qtbot.waitUntil(lambda: caption_lines("creator de")[0] in details.transcript.toPlainText())
    assert "creator-captions (de)" in details.facts.full_text()

    # the site refuses the next download: the job fails, the transcript stays
    site.refusing = True
    details.caption_track.click()
    dialog = the_dialog(qtbot, pane)
    assert dialog.tracks.currentText() == "German · creator captions (de) · now"
    auto = [dialog.tracks.itemText(i) for i in range(dialog.tracks.count())].index(
        "English (Original) · auto captions (en)"
    )
    dialog.tracks.setCurrentIndex(auto)
    dialog.translation.setCurrentIndex(dialog.translation.findText("French (fr)"))
    assert dialog.chosen() is not None and dialog.chosen().key == "auto:en>fr"  # type: ignore[union-attr]
    with qtbot.waitSignal(runner.failed, timeout=20000) as failed:
        dialog.use_button.click()
    assert failed.args[1] == "rate-limited"
    row = pane.imports.rows[failed.args[0]]
    assert row.state == "failed" and row.status.text().startswith("Failed:")
    record = wait_for(qtbot, api.get_video(SURFACE_ID))
    assert record.transcript.track == "creator:de"
    assert [s.text for s in record.transcript.segments] == caption_lines("creator de")
    assert caption_lines("creator de")[0] in details.transcript.toPlainText()
