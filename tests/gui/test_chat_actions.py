"""An answer's own actions: copy it as Markdown with timestamp links (numbered as shown), and
ask its question again for a fresh answer in the same chat."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, open_chat, tick
from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskMeta, Citation, SourceInfo
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.turn import TurnView

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]
WATCH = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"


def test_copy_answer_gives_markdown_with_links_numbered_as_shown(qtbot: QtBot) -> None:
    turn = TurnView("What is it?")
    qtbot.addWidget(turn)
    turn.show()
    sources = [
        SourceInfo(n, HOMUNCULUS, f"Part {n}", WATCH, 60.0 * n, 60.0 * n + 50) for n in (1, 2, 3)
    ]
    turn.apply(AskMeta("c", "m", False, sources))
    assert turn.copy_button.isHidden()  # nothing to copy while it streams
    text = "A map of the body [3]. Hands are big [1]."
    turn.apply(AskDelta(text))
    cited = [
        Citation(3, HOMUNCULUS, "Part 3", f"{WATCH}&t=185s", 185.2, 190, "the map", True),
        Citation(1, HOMUNCULUS, "Part 1", f"{WATCH}&t=64s", 64.0, 70, "big hands", True),
    ]
    turn.apply(AskDone("c", text, cited, [], False, "m"))
    assert turn.copy_button.isVisible()
    with qtbot.waitSignal(turn.copied) as copied:
        qtbot.mouseClick(turn.copy_button, Qt.MouseButton.LeftButton)
    markdown = QGuiApplication.clipboard().text()
    assert copied.args == [markdown]
    assert markdown == (
        f"A map of the body [[1]]({WATCH}&t=185s). Hands are big [[2]]({WATCH}&t=64s).\n"
        "\n"
        "Sources:\n"
        "\n"
        f"- [1] [Part 3 @ 3:05]({WATCH}&t=185s): “the map”\n"
        f"- [2] [Part 1 @ 1:04]({WATCH}&t=64s): “big hands”\n"
    )


def test_an_extractive_answer_copies_each_quote_at_its_own_second_and_ask_again_answers_anew(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    pane.models.select("extractive")
    tick(pane, HOMUNCULUS)
    question = "How does the sensory homunculus map the body?"
    pane.question.setText(question)
    with qtbot.waitSignal(pane.answer_finished, timeout=30000):
        pane.ask()
    (first,) = pane.turns
    chat_id = pane.chat_id
    assert chat_id is not None
    qtbot.mouseClick(first.copy_button, Qt.MouseButton.LeftButton)
    markdown = QGuiApplication.clipboard().text()
    assert pane.status.full_text() == "Copied the answer as Markdown, with links."
    bullets = re.findall(
        r"\[\[(\d)\]\]\(https://www\.youtube\.com/watch\?v=fxZWtc0mYpQ&t=(\d+)s\)"
        r" \((\d+):(\d\d)\)",
        markdown,
    )
    assert len(bullets) >= 2, markdown
    assert len({t for _n, t, _m, _s in bullets}) == len(bullets), markdown  # distinct moments
    for _n, t, minutes, seconds in bullets:  # each link opens its own quote's second
        assert int(t) == int(minutes) * 60 + int(seconds)
    assert "Sources:" in markdown and "- [1] [" in markdown

    # Ask again: the same question, a fresh answer below, in the same chat
    pane.question.setText("half-typed")
    assert first.again_button.isVisible() and first.again_button.isEnabled()
    with qtbot.waitSignal(pane.answer_finished, timeout=30000) as finished:
        qtbot.mouseClick(first.again_button, Qt.MouseButton.LeftButton)
        assert not first.again_button.isEnabled()  # not while another answer streams
    assert finished.args == ["done"]
    assert [t.question.text() for t in pane.turns] == [question, question]
    assert pane.turns[1].state == "done" and pane.turns[1].cards
    assert pane.chat_id == chat_id and first.again_button.isEnabled()
    assert pane.question.text() == "half-typed"  # what was being typed is kept
    saved = wait_for(qtbot, crashcourse.get_chat(chat_id))
    assert [m.role for m in saved.messages] == ["user", "assistant", "user", "assistant"]
