"""The search pane: cards from the real engine, clicks that seek the player, no stale results."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for, write_media
from tests.gui.youtube_stub import page_calls, start_stub
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.search.pane import SearchPane
from v2c_desktop.ui.player.local_backend import LocalBackend
from v2c_desktop.ui.player.youtube_backend import YouTubeBackend
from v2c_desktop.ui.rich_text import snippet_html

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread() -> Iterator[None]:
    """Collect each test's cyclic garbage (the per-test qasync loop's timers among it) here,
    on the GUI thread: left for later, Python may collect it on a worker thread of the next
    test, and Qt warns that timers cannot be stopped from another thread."""
    yield
    gc.collect()


def make_pane(qtbot: QtBot, api: CoreAPI, runner: JobRunner) -> SearchPane:
    pane = SearchPane(api, runner)
    qtbot.addWidget(pane)
    pane.filters.mode.setCurrentText("keyword")
    pane.timer.stop()
    pane.show()
    return pane


def search(qtbot: QtBot, pane: SearchPane, text: str) -> None:
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        pane.query.setText(text)
        pane.search_now()


def test_snippets_are_escaped_then_bold() -> None:
    assert snippet_html("a <b>tag</b> & **memory** of **x&y**") == (
        "a &lt;b&gt;tag&lt;/b&gt; &amp; <b>memory</b> of <b>x&amp;y</b>"
    )


def test_keyword_search_shows_cards(qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    search(qtbot, pane, "homunculus")
    assert pane.cards, pane.status.text()
    card = pane.cards[0]
    assert card.hit.video_id == "youtube:fxZWtc0mYpQ"
    assert "<b>" in card.snippet.text().lower()
    (group,) = pane.groups
    assert "Homunculus" in group.title.full_text()
    assert "–" in card.time.text()  # the m:ss–m:ss range
    assert pane.status.text().startswith(f"{len(pane.cards)} passage")


def test_typing_waits_for_a_pause_and_only_the_last_query_is_shown(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    started: list[str] = []
    runner.started.connect(lambda _job, label: started.append(label))
    shown: list[tuple[str, int]] = []
    pane.results_shown.connect(lambda query, count: shown.append((query, count)))
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        qtbot.keyClicks(pane.query, "memory and forgetting")
        assert pane.query.text() == "memory and forgetting"  # typing was never held up
        assert started == []  # nothing searched while typing
        assert pane.timer.isActive()
    assert started == ["search"]
    assert shown[-1][0] == "memory and forgetting"

    # searches that overlap: each newer one cancels the older, stale results never show
    shown.clear()
    cancelled: list[str] = []
    runner.cancelled.connect(cancelled.append)
    for text in ("psychology", "sleep", "brain"):
        pane.query.setText(text)
        pane.search_now()
    pane.timer.stop()
    qtbot.waitUntil(lambda: bool(shown), timeout=30000)
    qtbot.waitUntil(lambda: not runner.active() and len(cancelled) == 2, timeout=30000)
    assert [q for q, _ in shown] == ["brain"]
    assert all(card.hit for card in pane.cards)
    assert pane.shown_query == "brain"


def test_an_empty_query_clears_the_cards(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    search(qtbot, pane, "brain")
    assert pane.cards
    search(qtbot, pane, "   ")
    assert pane.cards == []


def test_a_bad_query_shows_the_message_and_hint(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    with qtbot.waitSignal(runner.failed, timeout=30000) as failed:
        pane.query.setText("-only -exclusions")
        pane.search_now()
    assert failed.args[2] in pane.status.text()
    assert failed.args[3] and failed.args[3] in pane.status.text()


def test_filters_narrow_the_search(qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.refresh_filters()
    qtbot.waitUntil(lambda: pane.filters.channel.count() == 2)  # Any + CrashCourse
    pane.filters.after.setText("2014-04-01")
    search(qtbot, pane, "brain")
    assert pane.cards
    published = {
        wait_for(qtbot, crashcourse.get_video(c.hit.video_id)).video.published for c in pane.cards
    }
    assert all(p and p >= "2014-04-01" for p in published)


def test_clicking_a_card_seeks_the_youtube_player(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    window = make_window(crashcourse)
    pane = window.search
    pane.filters.mode.setCurrentText("keyword")
    search(qtbot, pane, "homunculus")
    first = max(pane.cards, key=lambda c: c.hit.start)  # a moment past the start
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(window.player.backend, YouTubeBackend), timeout=10000)
    backend = window.player.backend
    assert isinstance(backend, YouTubeBackend)
    start_stub(qtbot, backend)
    calls = page_calls(qtbot, backend)
    assert ["seekTo", pytest.approx(round(first.hit.start, 3))] in calls
    assert ["playVideo"] in calls
    # a second card of the same video seeks the loaded player in place
    other = next(c for c in pane.cards if c is not first and c.hit.video_id == first.hit.video_id)
    other.activate()
    qtbot.waitUntil(
        lambda: ["seekTo", pytest.approx(round(other.hit.start, 3))] in page_calls(qtbot, backend),
        timeout=5000,
    )
    assert backend.calls[-2:] == [f"v2c.seekTo({round(other.hit.start, 3)})", "v2c.playVideo()"]


def test_clicking_a_card_seeks_the_local_player(
    qtbot: QtBot, core: CoreAPI, make_window: Callable[[CoreAPI], MainWindow], tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    wait_for(qtbot, core.add([str(media)]))
    window = make_window(core)
    pane = window.search
    pane.filters.mode.setCurrentText("keyword")
    search(qtbot, pane, "photosynthesis")
    (card,) = pane.cards
    assert card.hit.start == pytest.approx(62.5)
    reported: list[float] = []
    window.player.position_changed.connect(lambda _vid, s: reported.append(s))
    card.activate()
    qtbot.waitUntil(lambda: isinstance(window.player.backend, LocalBackend), timeout=10000)
    backend = window.player.backend
    assert isinstance(backend, LocalBackend)
    qtbot.waitUntil(lambda: any(s > 62.5 for s in reported), timeout=10000)  # playing...
    # ...from the card's moment: the first playhead reported is 62.5 s itself, not a
    # window that a slow machine could play past
    assert next(s for s in reported if s) == pytest.approx(62.5, abs=0.001)


def test_hybrid_search_says_when_meaning_search_is_not_ready(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    wait_for(qtbot, core.add([str(media)]))
    pane = make_pane(qtbot, core, runner)
    pane.filters.mode.setCurrentText("hybrid")
    search(qtbot, pane, "light")
    assert len(pane.cards) == 1
    assert "meaning search: no video has vectors yet" in pane.status.text()
    assert wait_for(qtbot, core.index_pending(), timeout=120000) == 1  # the real embedder
    search(qtbot, pane, "plants turning sunlight into food")
    assert pane.cards and pane.status.text().startswith(f"{len(pane.cards)} passage")
    assert "meaning search" not in pane.status.text()


# -- results a person can read ------------------------------------------------------------
HOMUNCULUS = "youtube:fxZWtc0mYpQ"
GRADIENT = "transcripts/3blue1brown/2017_gradient-descent/captions.en.srt"


def test_passages_are_grouped_per_video_and_each_video_is_named_once(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    search(qtbot, pane, "memory")
    videos = [g.video_id for g in pane.groups]
    assert len(videos) == len(set(videos)) > 1  # one group per video
    assert sorted(videos) == sorted({c.hit.video_id for c in pane.cards})
    for group in pane.groups:
        titles = {c.hit.title for c in group.cards}
        assert titles == {group.title.full_text()}  # named once, above its passages
        starts = [c.hit.start for c in group.cards]
        assert starts == sorted(starts)  # in the order they come in the video
        assert all(group.title.full_text() not in c.snippet.text() for c in group.cards)
    # the group of the best passage comes first
    assert pane.groups[0].video_id == pane.cards[0].hit.video_id


def test_a_rare_word_is_not_padded_with_unrelated_passages(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    assert wait_for(qtbot, crashcourse.index_pending(), timeout=300000) == 10  # real vectors
    pane = make_pane(qtbot, crashcourse, runner)
    pane.filters.mode.setCurrentText("hybrid")
    search(qtbot, pane, "homunculus")
    assert pane.cards and {c.hit.video_id for c in pane.cards} == {HOMUNCULUS}
    assert len(pane.groups) == 1
    assert pane.status.text().endswith("no more good matches"), pane.status.text()


def test_snippets_wrap_and_the_whole_passage_is_one_click_away(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    pane.resize(420, 700)
    search(qtbot, pane, "memory")
    viewport = pane.results.viewport()
    cards = pane.cards[:5]
    qtbot.waitUntil(lambda: all(0 < c.width() <= viewport.width() for c in cards))  # no clipping
    for card in cards:
        label = card.snippet
        assert label.wordWrap()
        qtbot.waitUntil(lambda label=label: label.height() >= label.heightForWidth(label.width()))
    card = next(c for c in pane.cards if not c.expand.isHidden())
    assert card.snippet.text().startswith("…") or card.snippet.text().endswith("…")
    card.expand.click()
    shown = card.snippet.text()
    assert "…" not in shown and "<b>" in shown.lower()
    last_words = card.hit.text.split()[-3:]
    assert " ".join(last_words).replace("&", "&amp;") in shown.replace("<b>", "").replace(
        "</b>", ""
    )
    card.expand.click()
    assert card.snippet.text() == snippet_html(card.hit.snippet)


def test_results_are_cleared_as_soon_as_the_query_cannot_be_searched(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    pane = make_pane(qtbot, crashcourse, runner)
    search(qtbot, pane, "brain")
    assert pane.cards
    qtbot.keyClicks(pane.query, ' "sensory')  # a phrase being typed: the quote is open
    assert pane.cards == [] and pane.groups == []  # at once, not after the pause
    assert "Close the quote" in pane.status.text()
    assert not pane.timer.isActive() and not runner.active()
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        qtbot.keyClick(pane.query, Qt.Key.Key_Return)  # Enter: the phrase runs to the end
    assert pane.cards
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        pane.query.setText("-only -exclusions")  # the core refuses it
        pane.search_now()
    assert pane.cards == [] and "only excludes" in pane.status.text()
    search(qtbot, pane, "brain")
    assert pane.cards
    pane.query.clear()  # empty: cleared at once
    assert pane.cards == [] and pane.status.text() == ""


def test_a_date_filter_says_how_many_undated_videos_it_left_out(
    qtbot: QtBot, crashcourse: CoreAPI, runner: JobRunner
) -> None:
    from tests.conftest import corpus_path

    (talk,) = wait_for(qtbot, crashcourse.add([str(corpus_path(GRADIENT))])).changed_ids
    pane = make_pane(qtbot, crashcourse, runner)
    pane.filters.after.setText("2014-01-01")
    search(qtbot, pane, "gradient descent")
    assert talk not in {c.hit.video_id for c in pane.cards}
    assert pane.undated.isVisible()
    assert "left out 1 video with no publish date" in pane.undated.text()
    with qtbot.waitSignal(pane.results_shown, timeout=30000):
        pane.undated.linkActivated.emit("include")  # "Include them"
        pane.search_now()
    assert pane.filters.include_undated.isChecked()
    assert talk in {c.hit.video_id for c in pane.cards}
    assert not pane.undated.isVisible()
    pane.filters.after.clear()
    assert not pane.filters.include_undated.isEnabled()  # no date: nothing to include


def test_a_long_title_never_widens_the_results(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, tmp_path: Path
) -> None:
    media, _srt = write_media(tmp_path / "media")
    (video_id,) = wait_for(qtbot, core.add([str(media)])).changed_ids
    long_title = wait_for(qtbot, core.rename_video(video_id, "A very long title " * 30)).video.title
    assert len(long_title) > 200
    pane = make_pane(qtbot, core, runner)
    pane.resize(500, 600)
    search(qtbot, pane, "photosynthesis")
    (group,) = pane.groups
    assert group.title.toolTip() == long_title.strip()
    assert group.title.text().endswith("…")
    assert pane.minimumSizeHint().width() < 500
    assert pane.width() == 500
