"""The shared clean-up: ends before starts, empty and punctuation-only cues, reading time."""

from __future__ import annotations

import pytest

from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.finish import clip_overlaps, finish, reading_time
from v2c_desktop.core.captions.text import clean_line, has_words

BACKWARDS = """\
1
00:00:10,000 --> 00:00:09,000
ends a second before it starts

2
00:00:10,500 --> 00:00:12,000
next cue

3
00:00:20,000 --> 00:00:19,000
a long cue of twenty words that ends before it starts and has no cue after it at all ok

4
00:00:15,000 --> 00:00:14,000
same start as the next one

5
00:00:15,000 --> 00:00:16,000
starts at 15 too

6
00:00:17,000 --> 00:00:18,000
.
"""


def test_end_before_start_gets_next_start_or_reading_time() -> None:
    segments = parse_captions(BACKWARDS, source_name="backwards.srt")
    assert [(s.start, s.end, s.text.split()[0]) for s in segments] == [
        # the next cue starts 0.5 s later, sooner than the reading time (1.8 s)
        (10.0, 10.5, "ends"),
        (10.5, 12.0, "next"),
        # the next cue starts at the same moment; the next later one (20 s) is further
        # away than the reading time of 6 words (1.8 s)
        (15.0, 16.8, "same"),
        (15.0, 16.0, "starts"),
        # the last cue: start + reading time, capped at 5 s (the lone "." cue is dropped)
        (20.0, 25.0, "a"),
    ]
    assert all(s.end >= s.start for s in segments)


def test_reading_time_bounds() -> None:
    assert reading_time("one") == 1.0
    assert reading_time("one two three four five six seven eight nine ten") == pytest.approx(3.0)
    assert reading_time("word " * 100) == 5.0


def test_clip_overlaps_only_shortens() -> None:
    cues = [RawCue(0, 5, ["a"]), RawCue(2, 3, ["b"]), RawCue(4, 9, ["c"])]
    clip_overlaps(cues)
    assert [(c.start, c.end) for c in cues] == [(0, 2), (2, 3), (4, 9)]


def test_finish_drops_empty_and_punctuation_only_cues() -> None:
    cues = [
        RawCue(3, 4, ["<i>  </i>"]),
        RawCue(1, 2, [" Hello ", "", "world "]),
        RawCue(5, 6, ["..."]),
        RawCue(7, 8, ["- -"]),
        RawCue(9, 10, ["♪ ♪"]),
    ]
    assert [(s.start, s.text) for s in finish(cues)] == [(1, "Hello world"), (9, "♪ ♪")]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<i>it</i>&#39;s", "it's"),
        ("{\\an8}top", "top"),
        ("a&nbsp;&nbsp;b\tc", "a b c"),
        ("hi<00:00:00.320><c> everyone</c>", "hi everyone"),
        ("x <y and z> w", "x w"),
        ("3 < 4 > 2", "3 < 4 > 2"),
        ("AT&T Q&A", "AT&T Q&A"),
    ],
)
def test_clean_line(raw: str, clean: str) -> None:
    assert clean_line(raw) == clean


def test_has_words() -> None:
    assert has_words("ok")
    assert has_words("♪")
    assert has_words("42")
    assert not has_words(". , -- ...")
    assert not has_words("")
