"""How one answer is shown: links only for vouched citations, thinking, errors, and the model
picker (run against widgets and the real core, no model needed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, SMOLLM2, anchors, link_point, open_chat, tick
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDone, AskMeta, Citation, ModelSuggestion, SourceInfo
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.render import answer_html, linked_numbers, targets_from_sources
from v2c_desktop.ui.panes.chat.turn import GET_MODEL_HREF, TurnView, extractive_label
from v2c_desktop.ui.settings.dialog import SettingsDialog

pytestmark = pytest.mark.gui

URL = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"


def source(n: int, start: float) -> SourceInfo:
    return SourceInfo(n, HOMUNCULUS, "Homunculus", URL, start, start + 30)


def test_markers_are_escaped_and_only_known_numbers_link() -> None:
    targets = targets_from_sources([source(1, 12.0)])
    html = answer_html("a <b>x</b> [1] and [2] [x] [1, 2]\n\nnext", targets)
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert linked_numbers(html) == [1]
    # [2] is no source: it is left out, so no gap in the numbers is ever shown
    assert "[2]" not in html and " and [x] [1, 2]" in html and html.count("<p>") == 2


def test_unverified_numbers_are_never_links_and_streaming_links_use_the_sources(
    qtbot: QtBot,
) -> None:
    turn = TurnView("What is it?")
    qtbot.addWidget(turn)
    turn.resize(600, 400)
    turn.show()
    turn.set_meta(AskMeta("chat-1", SMOLLM2, False, [source(1, 12.0), source(2, 95.0)]))
    turn.add_delta("It maps the body [1]. It is odd [2]")
    turn.render_text()  # (a streaming answer is rendered at most once per RENDER_MS)
    assert [text for text, _ in anchors(turn.answer)] == ["[1]", "[2]"]  # while streaming
    assert turn.state == "streaming" and turn.cards == []
    citation = Citation(1, HOMUNCULUS, "Homunculus", URL, 14.5, 18.0, "a sensory map", True)
    done = AskDone("chat-1", "It maps the body [1]. It is odd [2]", [citation], [2], False, SMOLLM2)
    turn.finish(done)
    assert [text for text, _ in anchors(turn.answer)] == ["[1]"]  # [2] is unverified
    assert link_point(turn.answer, 2) is None and "[2]" not in turn.answer.toPlainText()
    assert turn.answer.toPlainText() == "It maps the body [1]. It is odd"
    assert [c.card.n for c in turn.cards] == [1]
    assert turn.cards[0].card.start == 14.5  # the narrowed citation, not the source start
    assert turn.cards[0].name.full_text() == "Homunculus"
    assert turn.cards[0].time.text().endswith(">0:14</a>")
    assert turn.cards[0].quote.text() == "“a sensory map”"


def test_thinking_is_collapsed_and_quiet_and_errors_show_message_and_hint(
    qtbot: QtBot,
) -> None:
    turn = TurnView("Why?")
    qtbot.addWidget(turn)
    turn.show()
    assert turn.thinking.isHidden()
    turn.add_reasoning("First, the user asks ")
    turn.add_reasoning("why.")
    assert turn.thinking.isVisible() and turn.thinking.text.isHidden()  # collapsed
    assert not turn.thinking.text.isEnabled()  # drawn in the quieter, disabled palette
    qtbot.mouseClick(turn.thinking.toggle, Qt.MouseButton.LeftButton)
    assert turn.thinking.text.isVisible()
    assert turn.thinking.text.text() == "First, the user asks why."
    assert turn.answer.toPlainText() == ""  # reasoning never becomes answer text
    turn.fail("no model could answer", "start Ollama")
    assert turn.state == "error" and turn.note.text() == "no model could answer — start Ollama"


def test_an_ask_error_event_shows_message_and_hint_in_the_pane(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    pane.models.combo.addItem("A model that is gone", "llamacpp/gone")
    assert pane.models.select("llamacpp/gone")
    tick(pane, HOMUNCULUS)
    pane.question.setText("What is the homunculus?")
    with qtbot.waitSignal(pane.answer_finished, timeout=30000) as finished:
        pane.ask()
    assert finished.args == ["error"]
    (turn,) = pane.turns
    assert turn.note.text().startswith("no model 'llamacpp/gone' is configured — configured")
    assert pane.status.text() == "The answer failed."
    assert pane.ask_button.isEnabled() is False  # the box was emptied
    pane.question.setText("again")
    assert pane.ask_button.isEnabled()


def test_the_model_picker_lists_installed_models_and_extractive(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    ids = pane.models.model_ids()
    assert ids[0] == "" and ids[-1] == "extractive" and SMOLLM2 in ids
    texts = [pane.models.combo.itemText(i) for i in range(pane.models.combo.count())]
    assert "Extractive (quote passages)" in texts
    assert any("test model" in t for t in texts)  # SmolLM2 is said to be a plumbing model
    assert pane.models.request() == (None, False)  # automatic: the core decides
    pane.models.select(SMOLLM2)
    assert pane.models.request() == (SMOLLM2, False)
    assert window.status.chat.full_text().startswith("Chat: SmolLM2")
    pane.models.select("extractive")
    assert pane.models.request() == (None, True)
    assert window.status.chat.full_text() == "Chat: extractive"


def test_an_extractive_answer_says_why_and_links_to_the_model_set_up(qtbot: QtBot) -> None:
    turn = TurnView("What is it?")
    qtbot.addWidget(turn)
    turn.show()
    meta = AskMeta(
        "chat-1",
        None,
        True,
        [source(1, 12.0)],
        why_extractive="the only chat model installed (SmolLM2) is a small test model",
        suggestion=ModelSuggestion("llamacpp/Qwen2.5-3B", "Qwen2.5 3B Instruct", 1_929_903_264),
    )
    turn.set_meta(meta)
    text = turn.label.text()
    assert turn.label.isVisible()
    assert "because the only chat model installed (SmolLM2) is a small test model" in text
    assert "Qwen2.5 3B Instruct, a 1.9 GB download" in text
    assert "Ollama or LM Studio" in text
    assert "v2c models" not in text and "--" not in text  # app wording, not the CLI's
    with qtbot.waitSignal(turn.get_model_requested, timeout=1000):
        turn.label.linkActivated.emit(GET_MODEL_HREF)


def test_an_extractive_answer_the_user_chose_offers_no_model() -> None:
    meta = AskMeta("c", None, True, why_extractive="you asked for an extractive answer")
    text = extractive_label(meta)
    assert text.endswith("because you asked for an extractive answer.")
    assert GET_MODEL_HREF not in text


def test_the_get_model_link_of_a_real_answer_opens_the_model_set_up(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    """No capable model here (only SmolLM2): the answer is extractive, says why, and its
    link opens the model manager (the settings at their Models page)."""
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    tick(pane, HOMUNCULUS)
    pane.question.setText("What is the homunculus?")
    with qtbot.waitSignal(pane.answer_finished, timeout=60000) as finished:
        pane.ask()
    assert finished.args == ["done"]
    (turn,) = pane.turns
    assert turn.extractive and "because the only chat model installed" in turn.label.text()
    turn.label.linkActivated.emit(GET_MODEL_HREF)
    qtbot.waitUntil(lambda: window.findChild(QDialog, "settingsDialog") is not None)
    found = window.findChild(SettingsDialog, "settingsDialog")
    assert found is not None and found.isVisible() and found.current_page() == "models"
    found.reject()
