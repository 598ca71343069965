"""A collection filled from a feed, checked for new videos from its menu and on a schedule.

Real core, real yt-dlp, an RSS feed on 127.0.0.1 (tests/support/feed_site.py) that
publishes a new talk between two checks.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for
from tests.gui.library_helpers import make_pane
from tests.support.feed_site import Site
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.follow_schedule import FollowSchedule, checked_text
from v2c_desktop.ui.panes.library.collections_sidebar import schedule_hours

pytestmark = pytest.mark.gui


def test_check_for_new_videos_imports_the_new_upload_in_an_import_row(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, feed_site: Site
) -> None:
    pane = make_pane(qtbot, core, runner)
    first = pane.imports.rows[
        pane.start_import([f"{feed_site.base}/feed.xml"], collection="Island")
    ]
    qtbot.waitUntil(lambda: first.state != "running", timeout=60000)
    qtbot.waitUntil(lambda: len(pane.sidebar.collections()) == 1)
    pane.sidebar.select("island")
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 2)

    feed_site.publish("market", "The fish market", "The market opens at six.")
    pane.sidebar.refresh_requested.emit("island")  # the menu's "Check for new videos"
    (row,) = [r for r in pane.imports.rows.values() if r is not first]
    qtbot.waitUntil(lambda: row.state != "running", timeout=60000)
    assert row.title.full_text() == "Check “Island” for new videos"
    assert row.status.text() == "1 added, 2 skipped"  # the two it holds were not fetched
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 3)
    assert any(v.title.startswith("The fish market") for v in pane.table.model.videos())

    with qtbot.waitSignal(pane.status_message, timeout=10000) as said:
        pane.sidebar.schedule_requested.emit("island", 6.0)  # "Check automatically…": 6
    assert "every 6 h while the app runs" in said.args[0]


def test_what_a_schedule_may_be_typed_as() -> None:
    assert schedule_hours("6") == 6.0 and schedule_hours("0,5 h") == 0.5
    assert schedule_hours("off") is None and schedule_hours("0") is None
    assert schedule_hours("soon") is False


def test_the_app_checks_a_collection_whose_next_check_has_come(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, feed_site: Site
) -> None:
    wait_for(qtbot, core.add([f"{feed_site.base}/feed.xml"], collection="Island"), timeout=60000)
    store = core._s.library.store  # the last check as if it were a day ago
    past = datetime.now(UTC) - timedelta(days=1)
    wait_for(qtbot, core._s.library.run_store(store.record_follow_check, "island", past, 0, []))
    state = wait_for(qtbot, core.set_follow_schedule("island", 6))
    assert state.next_check < datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # overdue

    schedule = FollowSchedule(core, runner)
    feed_site.publish("market", "The fish market", "The market opens at six.")
    with qtbot.waitSignal(schedule.checked, timeout=60000) as checked:
        assert schedule.check_now() is not None
        assert schedule.check_now() is None  # one check at a time
    assert checked.args == ["New videos in followed collections: island: 1 new", 1]
    state = wait_for(qtbot, core.follow_state("island"))
    assert state.last_new == 1 and state.next_check > state.last_check

    job = schedule.check_now()  # nothing is due now: no check, nothing said
    with qtbot.waitSignal(
        runner.finished, timeout=30000, check_params_cb=lambda j, _r: j == job
    ) as again:
        pass
    assert again.args[1] == [] and checked_text([]) == ""
    schedule.stop()  # as the window closing does: no check starts after it
    assert schedule.check_now() is None
