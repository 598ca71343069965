"""Comments in a video's details: nothing is read until "Load comments", which runs as a
cancellable job; then the count, authors, dates, likes and text show as plain text, replies
indented under their comment. YouTube is replayed (tests/support/youtube_replay.py, with the
hand-written comment lists of tests/fixtures/comments/)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QTextBlock, QTextFragment
from pytestqt.qtbot import QtBot

from tests.conftest import REPO, corpus_path, first_cues
from tests.gui.conftest import wait_for
from tests.gui.library_helpers import make_pane, select_video
from tests.support.youtube_replay import PLAYERS, ReplayInfoSource, replay_web, watch_url
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.panes.library.comments_view import (
    CANCELLED,
    NO_SITE,
    REPLY_MARGIN,
    CommentsView,
)

pytestmark = [pytest.mark.gui, pytest.mark.corpus]

SURFACE_ID = "youtube:GJLlxj_dtq8"
SAMPLE_SRT = REPO / "resources" / "samples" / "testing-spacecraft-with-pytest.en.srt"


class HeldSite(ReplayInfoSource):
    """The replayed YouTube, whose comment reads wait for `gate` while `holding`."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.holding = False
        self.gate = asyncio.Event()

    async def extract(
        self, url: str, *, flat: bool = False, comments: int | None = None
    ) -> dict[str, Any]:
        if comments is not None and self.holding:
            await self.gate.wait()
        return await super().extract(url, flat=flat, comments=comments)


@pytest.fixture
def replayed(
    tmp_path: Path, qloop: asyncio.AbstractEventLoop, qtbot: QtBot
) -> Iterator[tuple[CoreAPI, HeldSite, str]]:
    """A library holding the recorded Surface Go video and a local subtitle file."""
    web, _source, _site = replay_web(corpus_path(PLAYERS))
    site = HeldSite(corpus_path(PLAYERS))
    web.info_source = site
    api = CoreAPI(
        Services.open(tmp_path / "lib.duckdb", settings=Settings(), web=web, index_on_import=False)
    )
    talk = first_cues(SAMPLE_SRT, 4, tmp_path / "talk.en.srt")
    added = wait_for(qtbot, api.add([watch_url("GJLlxj_dtq8"), str(talk)]))
    assert added.count("added") == 2, added.to_dict()
    yield api, site, added.outcomes[1].video_id or ""
    pending = [t for t in asyncio.all_tasks() if not t.done()]
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10000)
    wait_for(qtbot, api.aclose())


def test_load_comments_shows_them_as_plain_text_with_replies_indented(
    qtbot: QtBot, replayed: tuple[CoreAPI, HeldSite, str], runner: JobRunner
) -> None:
    api, site, _local = replayed
    pane = make_pane(qtbot, api, runner)
    pane.refresh()
    select_video(qtbot, pane, SURFACE_ID)
    details, view = pane.details, pane.details.comments
    assert details.tabs.tabText(1) == "Comments"
    details.tabs.setCurrentWidget(view)
    assert view.load.isVisible() and not view.list.isVisible()
    assert site.comment_calls == []  # nothing is read before the user asks

    # its own job: another (a thumbnail the table asked for) may finish first
    with qtbot.waitSignal(
        runner.finished, timeout=20000, check_params_cb=lambda job, _: job == pane._comments_job
    ):
        view.load.click()
    assert details.tabs.tabText(1) == "Comments (10)"
    assert view.status.text().startswith("10 comments (all of them) · read from the site ")
    assert not view.load.isVisible() and view.reload.isVisible()  # all of them are shown
    text = view.text()
    assert "@Dave2D · 2018-08-01 · 4,210 likes · pinned · by the channel" in text
    assert "↳ @notesfirst · 2018-08-03 · 41 likes" in text
    # the hostile comment is its characters: no markup read, no link, no escape
    assert "<script>alert('x')</script>" in text and "\x1b" not in text
    assert '<a href="javascript:alert(1)">free Surface</a>' in text
    assert "<a " not in view.list.document().toHtml()  # the comment's "<a" is "&lt;a"
    fragments = [f for block in _blocks(view) for f in _runs(block)]
    assert len(fragments) > 20 and not any(f.charFormat().isAnchor() for f in fragments)
    # replies (their heading and their text) are indented; top-level comments are not
    margins = {
        block.text(): block.blockFormat().leftMargin() for block in _blocks(view) if block.text()
    }
    assert margins["↳ @notesfirst · 2018-08-03 · 41 likes"] == REPLY_MARGIN
    assert margins["Same here, OneNote with the pen is the killer feature."] == REPLY_MARGIN
    assert margins["@inktablet · 2018-08-02 · 512 likes · hearted by the channel"] == 0
    assert site.comment_calls == [(watch_url("GJLlxj_dtq8"), 100)]


def test_a_read_can_be_cancelled_and_a_local_file_offers_none(
    qtbot: QtBot, replayed: tuple[CoreAPI, HeldSite, str], runner: JobRunner
) -> None:
    api, site, local = replayed
    pane = make_pane(qtbot, api, runner)
    pane.refresh()
    select_video(qtbot, pane, local)
    view = pane.details.comments
    assert view.status.text() == NO_SITE and not view.load.isVisibleTo(view)

    select_video(qtbot, pane, SURFACE_ID)
    site.holding = True
    with qtbot.waitSignal(
        runner.started, timeout=5000, check_params_cb=lambda _, label: label.startswith("Comments")
    ) as started:
        view.load.click()
    assert view.cancel.isVisibleTo(view) and not view.load.isVisibleTo(view)
    assert any(j.id == started.args[0] for j in runner.active())  # shown as a running job
    with qtbot.waitSignal(runner.cancelled, timeout=10000):
        view.cancel.click()
    assert view.status.text() == CANCELLED
    assert view.load.isVisibleTo(view) and not view.cancel.isVisibleTo(view)
    site.holding = False
    after = wait_for(qtbot, api.get_comments(SURFACE_ID, 1))
    assert not after.from_library  # the cancelled read kept nothing


def _runs(block: QTextBlock) -> list[QTextFragment]:
    runs = []
    it = block.begin()
    while not it.atEnd():
        runs.append(it.fragment())
        it += 1
    return runs


def _blocks(view: CommentsView) -> list[QTextBlock]:
    blocks = []
    block = view.list.document().begin()
    while block.isValid():
        blocks.append(block)
        block = block.next()
    return blocks
