"""Citations at the right second and numbered as read: a `[n]` beside a quote plays that
quote, its `(m:ss)` is a link too, a source card's time is a link, and markers read
[1], [2], [3]... in order whatever numbers the model used, keeping their real sources."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import (
    HOMUNCULUS,
    click_text_link,
    markers,
    open_chat,
    tick,
    type_question,
)
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskMeta, Citation, SourceInfo
from v2c_desktop.core.domain.chats import ChatMessageRecord
from v2c_desktop.core.timecode import clock, parse_time
from v2c_desktop.ui.links import parse_seek_href, seek_href
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.conversation import Conversation
from v2c_desktop.ui.panes.chat.turn import TurnView

pytestmark = pytest.mark.gui

URL = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
BULLET = re.compile(r"“(.*)” \[(\d+)\] \((\d+:\d\d)\)$")


def test_a_marker_beside_a_later_quote_of_a_source_plays_that_quote_and_so_does_its_time(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    """The extractive answer quotes the homunculus video's source [1] three times: at 0:11
    (its citation), 0:00 and 0:52. A click on the [1] beside 0:52 used to play 0:11."""
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    pane.models.select("extractive")
    tick(pane, HOMUNCULUS)
    type_question(qtbot, pane, "How does the sensory homunculus map the body?")
    with qtbot.waitSignal(pane.answer_finished, timeout=30000):
        qtbot.keyClick(pane.question, Qt.Key.Key_Return)
    (turn,) = pane.turns
    starts = {c.card.n: c.card.start for c in turn.cards}
    bullets = [m.groups() for m in map(BULLET.search, turn.text.splitlines()) if m]
    seen: dict[str, int] = {}
    later = []  # (quote, n, time, which [n] link it is) of quotes not at their citation
    for quote, n, time in bullets:
        index = seen.get(n, 0)
        seen[n] = index + 1
        if clock(starts[int(n)]) != time:
            later.append((quote, int(n), time, index))
    assert later, turn.text  # a source quoted more than once
    quote, n, time, index = later[-1]
    seconds = parse_time(time)
    with (
        qtbot.waitSignal(pane.seek_requested) as seek,
        qtbot.waitSignal(pane.cite_requested) as cite,
    ):
        click_text_link(qtbot, turn.answer, f"[{n}]", index)
    assert seek.args == [HOMUNCULUS, pytest.approx(seconds)]  # not its citation's start
    assert cite.args == [HOMUNCULUS, pytest.approx(seconds), quote.strip("…")]
    with qtbot.waitSignal(pane.seek_requested) as seek:
        click_text_link(qtbot, turn.answer, f"({time})")  # the time itself is a link
    assert seek.args == [HOMUNCULUS, pytest.approx(seconds)]
    # the first quote of a source is its citation: its marker plays the exact start
    first_time = next(t for _q, m, t in bullets if int(m) == n)
    assert clock(starts[n]) == first_time
    with qtbot.waitSignal(pane.seek_requested) as seek:
        click_text_link(qtbot, turn.answer, f"[{n}]", 0)
    assert seek.args == [HOMUNCULUS, pytest.approx(starts[n])]
    # a source card's time is a link to the card's second
    card = next(c for c in turn.cards if c.card.n == n)
    assert card.time.text().endswith(f">{clock(starts[n])}</a>")
    end = QPoint(card.time.width() - 3, card.time.height() // 2)
    with qtbot.waitSignal(pane.cite_requested) as cite:
        qtbot.mouseClick(card.time, Qt.MouseButton.LeftButton, pos=end)
    assert cite.args == [HOMUNCULUS, pytest.approx(starts[n]), card.card.raw_quote]


def sources(*starts: float) -> list[SourceInfo]:
    return [
        SourceInfo(n, HOMUNCULUS, f"Part {n}", URL, start, start + 60)
        for n, start in enumerate(starts, start=1)
    ]


def citation(n: int, start: float) -> Citation:
    return Citation(
        n,
        HOMUNCULUS,
        f"Part {n}",
        f"{URL}&t={int(start)}s",
        start,
        start + 4,
        f"quote of part {n}",
        True,
    )


def test_markers_are_numbered_as_read_and_cards_follow_that_order_each_once(
    qtbot: QtBot,
) -> None:
    turn = TurnView("What is it?")
    qtbot.addWidget(turn)
    turn.resize(600, 500)
    turn.show()
    turn.set_meta(AskMeta("c", "m", False, sources(0, 100, 200, 300, 400, 500)))
    text = "Maps the body [3]. Hands are big [1][3]. Lips too [6]. So [3]."
    for piece in re.findall(r".{1,7}", text):
        turn.apply(AskDelta(piece))
    turn.render_text()
    assert (
        turn.answer.toPlainText()
        == "Maps the body [1]. Hands are big [2][1]. Lips too [3]. So [1]."
    )
    streamed = {t: parse_seek_href(h) for t, h in markers(turn.answer)}
    assert streamed == {
        "[1]": (HOMUNCULUS, 200.0),  # source 3 (while streaming, the source's start)
        "[2]": (HOMUNCULUS, 0.0),
        "[3]": (HOMUNCULUS, 500.0),
    }
    cited = [citation(3, 212.5), citation(1, 7.0), citation(6, 530.0)]
    turn.finish(AskDone("c", text, cited, [], False, "m"))
    assert (
        turn.answer.toPlainText()
        == "Maps the body [1]. Hands are big [2][1]. Lips too [3]. So [1]."
    )
    links = {t: parse_seek_href(h) for t, h in markers(turn.answer)}
    assert links == {  # the narrowed citations, not where the sources start
        "[1]": (HOMUNCULUS, 212.5),
        "[2]": (HOMUNCULUS, 7.0),
        "[3]": (HOMUNCULUS, 530.0),
    }
    assert [(c.card.number, c.card.n) for c in turn.cards] == [(1, 3), (2, 1), (3, 6)]
    assert [c.number.text() for c in turn.cards] == ["<b>[1]</b>", "<b>[2]</b>", "<b>[3]</b>"]
    with qtbot.waitSignal(turn.cite_requested) as cite:
        click_text_link(qtbot, turn.answer, "[1]", 1)
    assert cite.args == [HOMUNCULUS, 212.5, "quote of part 3"]


def test_a_gap_in_the_numbers_is_never_shown_also_in_a_reopened_chat(qtbot: QtBot) -> None:
    conversation = Conversation()
    qtbot.addWidget(conversation)
    conversation.resize(600, 500)
    conversation.show()
    saved = ChatMessageRecord(
        2,
        "assistant",
        "One [1]. Three [3]. Seven [7].",
        [
            {
                "n": 1,
                "video_id": HOMUNCULUS,
                "title": "A",
                "url": URL,
                "start": 5.0,
                "quote": "one",
                "verified": True,
            },
            {
                "n": 3,
                "video_id": HOMUNCULUS,
                "title": "C",
                "url": URL,
                "start": 35.0,
                "quote": "three",
                "verified": True,
            },
        ],
        [7],  # [7] could not be verified: it is not shown (so neither is a gap)
        "m",
    )
    conversation.show_messages([ChatMessageRecord(1, "user", "Count?"), saved])
    (turn,) = conversation.turns
    assert turn.answer.toPlainText() == "One [1]. Three [2]. Seven."
    assert [(c.card.number, c.card.title) for c in turn.cards] == [(1, "A"), (2, "C")]
    assert dict(markers(turn.answer))["[2]"] == seek_href(HOMUNCULUS, 35.0)
