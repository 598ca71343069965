"""The chat pane end to end: real answers stream in, `[n]` links and cards seek the player,
Stop stops the model, and only citations the core vouched for are ever links."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import (
    HOMUNCULUS,
    MODEL_TIMEOUT,
    SMOLLM2,
    click_link,
    click_text_link,
    markers,
    open_chat,
    tick,
    type_question,
)
from tests.gui.youtube_stub import page_calls, start_stub
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.models.llamacpp import LlamaCppChatModel
from v2c_desktop.ui.links import parse_seek_href
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.turn import CUT_NOTES
from v2c_desktop.ui.player.youtube_backend import YouTubeBackend

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]


def seeks_player_to(qtbot: QtBot, window: MainWindow, seconds: float) -> None:
    """The in-app YouTube player (offline stub) was told to seek there and play."""
    qtbot.waitUntil(lambda: isinstance(window.player.backend, YouTubeBackend), timeout=10000)
    backend = window.player.backend
    assert isinstance(backend, YouTubeBackend)
    if not backend.page_ready:
        start_stub(qtbot, backend)
    seek = ["seekTo", pytest.approx(round(seconds, 3))]
    opened_at_start = ["new", "player", HOMUNCULUS.split(":")[1], int(seconds)]

    def sought() -> bool:
        calls = page_calls(qtbot, backend)
        # the page opens a video at a whole second, then seeks only when that is not 0
        return seek in calls or (seconds < 1 and opened_at_start in calls)

    qtbot.waitUntil(sought, timeout=10000)
    assert ["playVideo"] in page_calls(qtbot, backend)


def test_a_real_model_answer_streams_in_and_a_marker_click_seeks_the_player(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    assert pane.models.select(SMOLLM2)
    tick(pane, HOMUNCULUS)
    pane.max_tokens = 64
    type_question(qtbot, pane, "What is the homunculus?")
    assert pane.ask_button.isEnabled() and not pane.stop_button.isEnabled()
    renders: list[tuple[str, str]] = []  # (turn state, text) whenever the answer re-renders
    with qtbot.waitSignal(pane.answer_finished, timeout=MODEL_TIMEOUT) as finished:
        qtbot.mouseClick(pane.ask_button, Qt.MouseButton.LeftButton)
        (turn,) = pane.turns
        turn.answer.textChanged.connect(lambda: renders.append((turn.state, turn.text)))
        assert pane.stop_button.isEnabled() and not pane.ask_button.isEnabled()
    assert finished.args == ["done"]
    streamed = [text for state, text in renders if state == "streaming"]
    assert len(streamed) > 5  # word by word, before the answer was done
    assert all(a and b.startswith(a) for a, b in itertools.pairwise(streamed))
    assert turn.state == "done" and not turn.extractive and turn.label.isHidden()
    # 64 tokens may cut the answer: the note then says so in words
    note = turn.note.text()
    assert note.startswith(f"Answered by {SMOLLM2}"), note
    assert note.removeprefix(f"Answered by {SMOLLM2}") in ("", *CUT_NOTES.values()), note
    assert turn.cards, turn.text  # the citation grammar makes SmolLM2 cite
    card = turn.cards[0].card
    assert card.video_id == HOMUNCULUS
    assert f"[{card.n}]" in turn.text
    assert turn.cards[0].name.full_text() == card.title and card.time in turn.cards[0].time.text()
    assert turn.cards[0].quote.text() == f"“{card.quote}”"
    links = markers(turn.answer)
    assert {text for text, _ in links} == {f"[{c.card.number}]" for c in turn.cards}
    shown = f"[{card.number}]"
    assert parse_seek_href(dict(links)[shown]) == (HOMUNCULUS, pytest.approx(card.start))
    with qtbot.waitSignal(pane.seek_requested) as seek:
        click_link(qtbot, turn.answer, card.number)
    assert seek.args == [HOMUNCULUS, pytest.approx(card.start)]
    seeks_player_to(qtbot, window, card.start)
    assert window.status.chat.full_text() == f"Chat: {pane.models.combo.currentText()}"


def test_an_extractive_answer_is_labelled_and_its_links_and_cards_seek(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    assert pane.models.combo.currentText().startswith("Automatic: extractive")
    assert pane.models.select("extractive")
    tick(pane, HOMUNCULUS)
    type_question(qtbot, pane, "How does the sensory homunculus map the body?")
    with qtbot.waitSignal(pane.answer_finished, timeout=30000) as finished:
        qtbot.keyClick(pane.question, Qt.Key.Key_Return)
    assert finished.args == ["done"]
    (turn,) = pane.turns
    assert turn.extractive and turn.label.isVisible()
    assert "Extractive answer" in turn.label.text()
    assert turn.cards
    found = markers(turn.answer)
    assert {text for text, _ in found} == {f"[{c.card.number}]" for c in turn.cards}
    assert len(found) >= 2  # two excerpts, each with its own link
    # the last excerpt's marker seeks to that excerpt's own second, not its card's
    last_text, last_href = found[-1]
    index = sum(1 for text, _ in found[:-1] if text == last_text)
    target = parse_seek_href(last_href)
    assert target is not None and target[0] == HOMUNCULUS
    with qtbot.waitSignal(pane.seek_requested) as seek:
        click_text_link(qtbot, turn.answer, last_text, index)
    assert seek.args == [HOMUNCULUS, pytest.approx(target[1])]
    seeks_player_to(qtbot, window, target[1])
    first = turn.cards[0]
    with qtbot.waitSignal(pane.seek_requested) as seek:
        qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    assert seek.args == [HOMUNCULUS, pytest.approx(first.card.start)]
    seeks_player_to(qtbot, window, first.card.start)
    assert window.status.chat.full_text() == "Chat: extractive"


def test_stop_cancels_the_model_and_the_next_question_works(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    assert pane.models.select(SMOLLM2)
    tick(pane, HOMUNCULUS)
    pane.max_tokens = 400
    type_question(qtbot, pane, "Describe everything the video says about the homunculus.")
    pane.ask()
    (turn,) = pane.turns
    qtbot.waitUntil(lambda: bool(turn.text), timeout=MODEL_TIMEOUT)  # words are arriving
    with qtbot.waitSignal(pane.answer_finished, timeout=10000) as finished:
        qtbot.mouseClick(pane.stop_button, Qt.MouseButton.LeftButton)
    assert finished.args == ["stopped"]
    assert turn.state == "stopped" and turn.note.text().startswith("stopped")
    assert pane.status.text() == "Stopped."
    model = crashcourse._s.registry._chat[SMOLLM2]  # the owner's loaded model itself
    assert isinstance(model, LlamaCppChatModel)
    qtbot.waitUntil(lambda: model.last_done is not None, timeout=MODEL_TIMEOUT)
    assert model.last_done is not None and model.last_done.finish_reason == "cancelled"
    assert model.last_done.usage.completion_tokens < 400  # it stopped generating
    # the same chat goes on: a new question is answered by the same model
    pane.max_tokens = 24
    type_question(qtbot, pane, "Who is the homunculus?")
    with qtbot.waitSignal(pane.answer_finished, timeout=MODEL_TIMEOUT) as finished:
        pane.ask()
    assert finished.args == ["done"]
    assert pane.turns[-1].state == "done" and pane.turns[-1].text
