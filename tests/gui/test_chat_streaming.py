"""Typing stays instant while a local model answers: a burst of deltas is rendered once, a
growing answer never makes the conversation measure (or move) the turns above it again,
and keys typed while the real model streams are handled at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, MODEL_TIMEOUT, SMOLLM2, open_chat, tick
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskMeta, Citation, SourceInfo
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat import cited
from v2c_desktop.ui.panes.chat.conversation import Conversation
from v2c_desktop.ui.panes.chat.render import CitationCard
from v2c_desktop.ui.panes.chat.turn import TurnView

pytestmark = pytest.mark.gui

URL = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
SOURCES = [SourceInfo(n, HOMUNCULUS, "Homunculus", URL, 10.0 * n, 10.0 * n + 30) for n in (1, 2)]
WORDS = ("The sensory homunculus maps the body [1] and its hands are huge [2]. " * 20).split(" ")


def test_a_burst_of_deltas_is_rendered_once(qtbot: QtBot) -> None:
    turn = TurnView("What is it?")
    qtbot.addWidget(turn)
    turn.resize(600, 400)
    turn.show()
    turn.apply(AskMeta("c", SMOLLM2, False, SOURCES))
    rebuilt: list[int] = []
    turn.answer.textChanged.connect(lambda: rebuilt.append(1))
    for word in WORDS:  # as a fast model sends them: one delta per token
        turn.apply(AskDelta(word + " "))
    assert rebuilt == []  # nothing was rendered per delta
    qtbot.waitUntil(lambda: bool(rebuilt), timeout=1000)  # the next render shows them all
    assert len(rebuilt) == 1 and turn.answer.renders == 1
    assert turn.answer.toPlainText().startswith("The sensory homunculus maps the body [1]")
    assert turn.answer.toPlainText().count("[2]") == 20


class Moves(QObject):
    """Counts the moves and resizes of the widgets it watches."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize):
            self.count += 1
        return False


def test_a_growing_answer_never_measures_or_moves_the_turns_above_it(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = {"quotes": 0}

    class CountedLabel(QLabel):
        def heightForWidth(self, width: int) -> int:
            measured["quotes"] += 1
            return super().heightForWidth(width)

    def counted_label(text: str, object_name: str, text_format: Qt.TextFormat) -> QLabel:
        label = CountedLabel(text)
        label.setObjectName(object_name)
        label.setTextFormat(text_format)
        label.setWordWrap(True)
        return label

    monkeypatch.setattr(cited, "card_label", counted_label)
    conversation = Conversation()
    qtbot.addWidget(conversation)
    conversation.resize(640, 700)
    conversation.show()
    moves = Moves()
    for i in range(12):  # a long chat: 12 answers with 5 source cards each
        turn = conversation.add_turn(f"Earlier question {i}?")
        cards = [
            CitationCard(n, HOMUNCULUS, "Homunculus", 10.0 * n, 14.0 * n, "a quote " * 12, True)
            for n in range(1, 6)
        ]
        turn.show_answer(" ".join(f"Point [{n}]." for n in range(1, 6)) * 4, cards)
        turn.installEventFilter(moves)
    qtbot.waitUntil(lambda: conversation.widget().height() > 3000)
    streaming = conversation.add_turn("And now?")
    streaming.apply(AskMeta("c", SMOLLM2, False, SOURCES))
    QApplication.sendPostedEvents()
    measured["quotes"] = moves.count = 0
    before = conversation.measured
    for i in range(20):  # twenty renders, each a few lines longer
        streaming.add_delta(" ".join(WORDS[i * 8 : i * 8 + 8]) + "\n\n")
        streaming.render_text()
        QApplication.sendPostedEvents()  # the layout requests it caused
    assert streaming.answer.height() > 300  # it grew
    assert measured["quotes"] == 0  # no label above was wrapped again
    assert moves.count == 0  # no turn above moved or was squeezed
    assert conversation.measured - before <= 20  # the streaming turn, once per render
    assert streaming.geometry().bottom() < conversation.widget().height()  # all of it shows


def test_keys_typed_while_the_local_model_answers_are_handled_at_once(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    assert pane.models.select(SMOLLM2)
    tick(pane, HOMUNCULUS)
    pane.max_tokens = 96
    pane.question.setText("Describe the homunculus.")
    pane.ask()
    (turn,) = pane.turns
    deltas: list[str] = []
    add_delta = turn.add_delta

    def counted(text: str) -> None:
        deltas.append(text)
        add_delta(text)

    turn.add_delta = counted  # type: ignore[method-assign]
    qtbot.waitUntil(lambda: len(deltas) >= 3, timeout=MODEL_TIMEOUT)  # words are arriving
    pane.question.setFocus()
    typed_while_streaming: list[bool] = []
    pane.question.textChanged.connect(
        lambda _t: typed_while_streaming.append(turn.state == "streaming")
    )
    for char in "next":  # posted, as a keyboard would: handled when the loop gets to them
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            key = QKeyEvent(kind, Qt.Key(ord(char.upper())), Qt.KeyboardModifier.NoModifier, char)
            QApplication.postEvent(pane.question, key)
    qtbot.waitUntil(lambda: pane.question.text() == "next", timeout=2000)
    assert typed_while_streaming == [True] * 4  # between two deltas, not after the answer
    qtbot.waitUntil(lambda: not pane.busy(), timeout=MODEL_TIMEOUT)
    assert turn.state == "done" and pane.question.text() == "next"
    assert turn.answer.renders <= len(deltas) + 1  # never more than once per delta


def test_the_conversation_follows_an_answer_to_its_cards_until_the_reader_scrolls_up(
    qtbot: QtBot,
) -> None:
    conversation = Conversation()
    qtbot.addWidget(conversation)
    conversation.resize(600, 400)
    conversation.show()
    for i in range(3):
        conversation.add_turn(f"Earlier {i}?").show_answer("Words [1]. " * 60, [])
    bar = conversation.verticalScrollBar()
    conversation.following = True  # a question was asked
    turn = conversation.add_turn("And now?")
    turn.apply(AskMeta("c", SMOLLM2, False, SOURCES))
    for i in range(6):
        turn.add_delta(" ".join(WORDS[i * 10 : i * 10 + 10]) + "\n\n")
        qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    done = AskDone(
        "c", turn.text, [Citation(1, HOMUNCULUS, "H", URL, 10, 14, "q", True)], [], False, SMOLLM2
    )
    turn.apply(done)
    qtbot.waitUntil(lambda: turn.cards[0].isVisible())
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())  # the cards came into view too
    assert turn.cards[0].geometry().bottom() + turn.y() <= bar.value() + bar.pageStep()
    bar.setValue(0)  # the reader scrolls up to read an earlier answer
    assert not conversation.following
    highest = bar.maximum()
    conversation.add_turn("Later?").show_answer("More [1]. " * 40, [])
    qtbot.waitUntil(lambda: bar.maximum() > highest)
    assert bar.value() == 0  # left where the reader is
