"""The context pack: a fair share of the budget each, cuts that say how to read on, nothing lost.

Homunculus (10 minutes, about 3.5k tokens) and Ned Batchelder's keynote (47 minutes, about
12k) are a short and a long video, so a middling budget keeps the first whole and cuts the
second.
"""

from __future__ import annotations

import re

import pytest

from v2c_desktop.core.render import estimate_tokens, paginate
from v2c_desktop.core.render.pack import Omitted, render_pack, share_budget
from v2c_desktop.core.timecode import clock

from .records import homunculus, ned

pytestmark = pytest.mark.corpus


def test_share_budget_fills_short_items_first_and_splits_the_rest() -> None:
    assert share_budget([100, 1000, 5000], 3000) == [100, 1000, 1900]
    assert share_budget([5000, 100, 5000], 3000) == [1450, 100, 1450]
    assert share_budget([10, 20], 1000) == [10, 20]  # everything fits: nothing is padded
    assert share_budget([], 100) == []
    assert share_budget([5], 0) == [0]


def test_a_big_budget_holds_every_video_whole() -> None:
    missing = Omitted("nope", "not-found", "no video 'nope'", "pass an id")
    text = render_pack("Two talks", [homunculus(), ned()], [missing], 100_000)
    assert text.startswith("# Context pack: Two talks\n")
    assert "1. Homunculus: Crash Course Psychology #6 (10:23, whole)" in text
    assert "2. Ned Batchelder keynote, PyCon US 2023 (46:55, whole)" in text
    assert "## 1. Homunculus: Crash Course Psychology #6\n\nTitle: Homunculus" in text
    assert text.count("[End of transcript:") == 2
    assert text.endswith("## Not included\n\n- nope: not-found: no video 'nope' (pass an id)\n")


def test_a_long_video_is_cut_on_a_caption_with_the_cursor_to_read_on() -> None:
    long = ned()
    text = render_pack("Two talks", [homunculus(), long], [], 8_000)
    assert estimate_tokens(text) <= 8_000
    assert "(10:23, whole)" in text
    found = re.search(r'first (\d+:\d\d) of 46:55; read on with get_transcript .*"(seg:\d+)"', text)
    assert found, text[:2000]
    cursor = found.group(2)
    rest = paginate(long, "text", max_tokens=2_000, cursor=cursor)
    first = int(cursor.split(":")[1])
    assert rest.first_segment == first
    assert found.group(1) == clock(long.transcript.segments[first - 1].end)
    assert "Not included" not in text


def test_a_budget_too_small_for_any_body_says_so() -> None:
    text = render_pack("Two talks", [homunculus(), ned()], [], 500)
    assert "0 videos, about 0 tokens of transcript." in text and "## Contents" not in text
    lines = text.split("## Not included\n\n")[1].splitlines()
    assert [line.split(": ")[:2] for line in lines] == [
        ["- youtube:fxZWtc0mYpQ", "budget"],
        ["- file:ned-keynote", "budget"],
    ]
    assert "raise maxTokens" in lines[0]
