"""How a finished brief reads in the pane's view: briefs shaped as the core makes them
(`core/briefs/assemble.py`), with real titles and quotes of the corpus, shown in a real
`BriefView` offscreen and read back from its rendered document (text, links, tables,
numbered lists, colours, tooltips), not from the HTML string."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtGui import QColor, QTextListFormat
from PySide6.QtWidgets import QToolTip
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import (
    badge_colour,
    cell_links,
    document_lists,
    document_tables,
    hover_link,
    seek_links,
    table_text,
)
from tests.gui.chat_helpers import click_text_link
from v2c_desktop.core.briefs.events import (
    Brief,
    BriefCitation,
    BriefPoint,
    BriefTopic,
    SourceCoverage,
    StageTiming,
    UnverifiedClaim,
)
from v2c_desktop.ui.panes.brief.result import BriefView

pytestmark = pytest.mark.gui

MAKE = ("youtube:bSycdIx-C48", "How We Make Memories: Crash Course Psychology #13")
FORGET = ("youtube:HVWbrNls-Kw", "Remembering and Forgetting: Crash Course Psychology #14")
SLEEP = ("youtube:rMHus-0wFSo", "To Sleep, Perchance to Dream: Crash Course Psychology #9")
BADGES = ("consensus", "disagreement", "single source")


def cite(video: tuple[str, str], start: float, quote: str) -> BriefCitation:
    video_id, title = video
    url = f"https://www.youtube.com/watch?v={video_id.split(':')[1]}&t={int(start)}s"
    return BriefCitation(video_id, title, start, start + 4, url, quote)


WHO = cite(MAKE, 46.0, "Our memory helps make us who we are.")
CHAIN = cite(MAKE, 53.0, "memory is the chain that connects our past to our present.")
DECAY = cite(FORGET, 335.0, "even memories that have been encoded are still vulnerable")
REBUILT = cite(FORGET, 119.0, "Our memories are not like books in the library of your mind.")
DREAMS = cite(SLEEP, 412.0, "sleep may help us consolidate our memories")


def model_brief(**changes: object) -> Brief:
    """A map-reduce brief as the core assembles it: a consensus, a disagreement with its
    other side, a single source, two claims left out, coverage and timings."""
    brief = Brief(
        id="brief-3f2a",
        title="Memory, briefly",
        question="How are memories made and lost?",
        template="brief",
        bottom_line="Memory is encoded, stored and rebuilt, and fades unless it is used.",
        topics=[
            BriefTopic(
                "How memory works",
                [
                    BriefPoint(
                        "Both videos say memory makes us who we are.",
                        "consensus",
                        support=[WHO, DECAY],
                    ),
                    BriefPoint(
                        "Memories are faithful records.",
                        "disagreement",
                        support=[CHAIN],
                        oppose=[REBUILT],
                        counter="Memories are rebuilt each time they are recalled.",
                    ),
                ],
            ),
            BriefTopic(
                "Sleep",
                [BriefPoint("Sleep helps memories settle.", "single-source", support=[DREAMS])],
            ),
        ],
        coverage=[
            SourceCoverage(MAKE[0], MAKE[1], "read", 2),
            SourceCoverage(FORGET[0], FORGET[1], "read", 2),
            SourceCoverage(SLEEP[0], SLEEP[1], "read", 1),
        ],
        unverified=[
            UnverifiedClaim(
                "Memories live in the heart",
                "bananas orbit the moon every single tuesday morning",
                MAKE[0],
                10.0,
                "quote-not-found",
            ),
            UnverifiedClaim(
                "Memory is the chain to the present",
                "memory is the chain that connects our past",
                MAKE[0],
                400.0,
                "quote-at-other-time",
                found_at=53.0,
            ),
        ],
        status="complete",
        model="scripted/brief-writer",
        pass_kind="map-reduce",
        timings=[StageTiming("map", 1200.0, "scripted/brief-writer"), StageTiming("reduce", 80.0)],
        created_at="2026-01-05T10:00:00",
    )
    return replace(brief, **changes)  # type: ignore[arg-type]


def shown(qtbot: QtBot, brief: Brief) -> BriefView:
    view = BriefView()
    qtbot.addWidget(view)
    view.resize(900, 1400)
    view.show()
    view.show_brief(brief)
    qtbot.waitExposed(view)
    return view


def test_a_disagreement_shows_both_sides_with_their_citations_and_each_point_its_badge(
    qtbot: QtBot,
) -> None:
    view = shown(qtbot, model_brief())
    text = view.text.toPlainText()
    assert text.index("Bottom line") < text.index("How memory works") < text.index("Sleep")
    # both sides of the disagreement, each with its own citation, in that order
    point = text.index("Memories are faithful records.")
    other = text.index("The other side: Memories are rebuilt each time they are recalled.")
    assert point < other
    order = seek_links(view.text)
    support = order.index((f"{MAKE[1]} @ 0:53", MAKE[0], 53.0))
    oppose = order.index((f"{FORGET[1]} @ 1:59", FORGET[0], 119.0))
    assert support < oppose
    assert text.index(CHAIN.quote) < other < text.index(REBUILT.quote)
    # every citation is a link to its video and second
    cited = {(c.video_id, c.start) for p in model_brief().points for c in (*p.support, *p.oppose)}
    assert {(v, s) for _t, v, s in order} == cited
    # the badges: words and colours a reader tells apart (green, red, grey)
    colours = {word: badge_colour(view.text, f"[{word}]") for word in BADGES}
    assert colours["consensus"] == QColor("#2e7d32")
    assert colours["disagreement"] == QColor("#c62828")
    assert colours["single source"] == QColor("#6d6d6d")
    assert text.index("[consensus]") < text.index("[disagreement]") < text.index("[single source]")


def test_the_bottom_line_shows_its_citations_under_it_as_a_point_shows_its_own(
    qtbot: QtBot,
) -> None:
    """A model's bottom line carries verified evidence of its own (`bottom_line_citations`):
    links that seek, each with its quote, between the bottom line and the first topic; a
    video only the bottom line cites is a link like any other."""
    rests = cite(SLEEP, 95.0, "sleep deprivation makes it harder to remember")
    view = shown(qtbot, model_brief(bottom_line_citations=[rests, WHO]))
    text = view.text.toPlainText()
    bottom = text.index("Memory is encoded, stored and rebuilt")
    label = f"{SLEEP[1]} @ 1:35"
    assert bottom < text.index(f"{label} “{rests.quote}”") < text.index("How memory works")
    assert bottom < text.index(f"{MAKE[1]} @ 0:46 “{WHO.quote}”") < text.index("How memory works")
    order = seek_links(view.text)
    assert order[:2] == [(label, SLEEP[0], 95.0), (f"{MAKE[1]} @ 0:46", MAKE[0], 46.0)]
    assert hover_link(qtbot, view.text, label) == f"“{rests.quote}”"
    QToolTip.hideText()
    with qtbot.waitSignal(view.seek_requested) as sought:
        click_text_link(qtbot, view.text, label)
    assert sought.args == [SLEEP[0], 95.0]
    # without evidence, nothing stands under the bottom line
    bare = shown(qtbot, model_brief()).text.toPlainText()
    after = bare.split("Memory is encoded, stored and rebuilt, and fades unless it is used.")[1]
    assert after.lstrip().startswith("How memory works")


def test_a_comparison_is_a_table_whose_cells_carry_their_citations(qtbot: QtBot) -> None:
    data = {
        "criteria": ["how memories form", "why we forget"],
        "options": [
            {
                "name": "Crash Course #13",
                "cells": [
                    {"criterion": "how memories form", "value": "encoding, then storage"},
                    {"criterion": "why we forget", "value": "not covered"},
                ],
            },
            {
                "name": "Crash Course #14",
                "cells": [{"criterion": "why we forget", "value": "decay and interference"}],
            },
        ],
        "verdict": {"text": "They complement each other."},
    }
    brief = model_brief(
        template="comparison",
        topics=[],
        data=data,
        data_citations={
            "/options/0/cells/0": [WHO],
            "/options/1/cells/0": [DECAY],
            "/verdict": [CHAIN],
        },
    )
    view = shown(qtbot, brief)
    (table,) = document_tables(view.text)
    assert (table.rows(), table.columns()) == (3, 3)  # a header row, an option per row
    assert table_text(table, 0, 1) == "how memories form"
    assert table_text(table, 0, 2) == "why we forget"
    assert table_text(table, 1, 0) == "Crash Course #13"
    assert table_text(table, 1, 1).startswith("encoding, then storage")
    assert table_text(table, 2, 2).startswith("decay and interference")
    assert table_text(table, 2, 1) == ""  # #14 said nothing on how memories form
    assert cell_links(table, 1, 1) == [(MAKE[0], 46.0)]
    assert cell_links(table, 2, 2) == [(FORGET[0], 335.0)]
    assert cell_links(table, 1, 2) == []  # an uncited value carries no link
    assert "Verdict: They complement each other." in view.text.toPlainText()


def test_tutorial_steps_are_a_numbered_list_in_order_with_their_citations(
    qtbot: QtBot,
) -> None:
    data = {
        "goal": "remember a list of words",
        "steps": [
            {"instruction": "Read the list once"},
            {"instruction": "Group the words", "values": ["3 groups"]},
            {"instruction": "Sleep on it"},
        ],
    }
    brief = model_brief(
        template="tutorial-steps",
        topics=[],
        data=data,
        data_citations={"/steps/0": [WHO], "/steps/2": [DREAMS]},
    )
    view = shown(qtbot, brief)
    numbered = [lst for lst in document_lists(view.text) if lst[0] == QTextListFormat.ListDecimal]
    assert len(numbered) == 1
    _style, items = numbered[0]
    assert [item.split("\n")[0] for item in items] == [
        "Read the list once",
        "Group the words (3 groups)",
        "Sleep on it",
    ]
    assert f"{MAKE[1]} @ 0:46" in items[0] and f"{SLEEP[1]} @ 6:52" in items[2]
    assert "@" not in items[1]


def test_the_claims_left_out_are_collapsed_then_open_on_a_click_with_each_reason_in_words(
    qtbot: QtBot,
) -> None:
    view = shown(qtbot, model_brief())
    text = view.text.toPlainText()
    assert "▸ Claims left out (2)" in text
    assert "Memories live in the heart" not in text  # collapsed by default
    click_text_link(qtbot, view.text, "▸ Claims left out (2)")
    text = view.text.toPlainText()
    assert "▾ Claims left out (2)" in text
    assert (
        "Memories live in the heart “bananas orbit the moon every single tuesday morning”: "
        "the quote is not in the video's transcript"
    ) in text
    assert "the quote is in the video, but not at the time given (it is said at 0:53)" in text
    assert "quote-not-found" not in text  # words, not the code
    click_text_link(qtbot, view.text, "▾ Claims left out (2)")
    assert "Memories live in the heart" not in view.text.toPlainText()


def test_a_partial_brief_says_first_what_is_missing(qtbot: QtBot) -> None:
    brief = model_brief(
        status="partial",
        notes=[f"reading {SLEEP[1]} (part 1) failed: the model server stopped answering"],
        coverage=[
            SourceCoverage(MAKE[0], MAKE[1], "read", 2),
            SourceCoverage(FORGET[0], FORGET[1], "not-read", 0, "it has no transcript"),
            SourceCoverage(SLEEP[0], SLEEP[1], "not-read", 0, "a part could not be read"),
        ],
        uncited=["/facts/1"],
    )
    view = shown(qtbot, brief)
    text = view.text.toPlainText()
    first = text.split("\n")
    partial = next(line for line in first if line.startswith("Partial: "))
    assert f"reading {SLEEP[1]} (part 1) failed: the model server stopped answering" in partial
    assert f"{FORGET[1]} was not read (it has no transcript)" in partial
    assert partial.count(SLEEP[1]) == 1  # said once, by its note
    assert "1 value of the answer has no verified citation" in partial
    assert text.index("Partial: ") < text.index("Bottom line")
    assert badge_colour(view.text, "Partial:") == QColor("#b26a00")
    complete = shown(qtbot, model_brief())
    assert "Partial" not in complete.text.toPlainText()


def test_a_re_run_says_how_much_it_reused_and_the_footer_has_no_stray_separator(
    qtbot: QtBot,
) -> None:
    view = shown(qtbot, model_brief(reused_maps=4))
    text = view.text.toPlainText()
    assert "Re-run: the reading of 4 parts was reused from the last run" in text
    footer = text.rstrip().split("\n")[-1]
    assert footer == (
        "Status: complete · model scripted/brief-writer · map-reduce · "
        "map 1.2 s (scripted/brief-writer), reduce 0.1 s"
    )
    bare = shown(qtbot, model_brief(timings=[]))
    assert "Re-run" not in bare.text.toPlainText()
    footer = bare.text.toPlainText().rstrip().split("\n")[-1]
    assert footer == "Status: complete · model scripted/brief-writer · map-reduce"


def test_every_citation_shows_its_quote_on_hover_even_where_the_point_is_the_quote(
    qtbot: QtBot,
) -> None:
    said = BriefPoint(WHO.quote, "consensus", support=[WHO, DECAY])  # an extractive point
    brief = model_brief(
        extractive=True,
        model=None,
        pass_kind="extractive",
        topics=[BriefTopic("Introduction: Memory", [said])],
    )
    view = shown(qtbot, brief)
    text = view.text.toPlainText()
    label = f"{MAKE[1]} @ 0:46"
    assert f"{label} “" not in text  # the quote is the point: not written twice
    assert hover_link(qtbot, view.text, label) == f"“{WHO.quote}”"
    assert hover_link(qtbot, view.text, f"{FORGET[1]} @ 5:35") == f"“{DECAY.quote}”"
    QToolTip.hideText()
