"""Damaged cues in an otherwise good file: left out with their line, never stored as speech.

The rule (see `v2c_desktop.core.captions`): a cue whose timing cannot be read is skipped whole
and reported with the line it starts on; the readable cues are kept. A file with more damaged
cues than readable ones is refused, and so is a file cut off inside its last cue.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.captions import Captions, read_captions
from v2c_desktop.core.errors import V2CError

from .helpers import FIXTURES, assert_clean

FIVE_SRT = "".join(
    f"{n}\n00:00:0{n},000 --> 00:00:0{n},900\nCaption text #{n}\n\n" for n in range(1, 6)
)
FIVE_VTT = "WEBVTT\n\n" + "".join(
    f"00:00:0{n}.000 --> 00:00:0{n}.900\nCaption text #{n}\n\n" for n in range(1, 6)
)
# Lines 5-7 of FIVE_SRT hold cue 2: its number, its timing line, its text.
CUE_2 = "2\n00:00:02,000 --> 00:00:02,900\nCaption text #2\n"
_CLOCK = re.compile(r"\d+:\d{2}:\d{2}|-->")


def texts(captions: Captions) -> list[str]:
    return [segment.text for segment in captions.segments]


def assert_no_structure_in_speech(captions: Captions) -> None:
    """No timing line and no bare cue number ended up in the text."""
    for segment in captions.segments:
        assert not _CLOCK.search(segment.text), segment
        assert not any(token.isdigit() for token in segment.text.split()), segment


@pytest.mark.parametrize(
    "damaged",
    [
        "2\n00:00:01,000 --> 00:00:0X,000\nCaption text #2\n",  # the example
        "2\n00:00:0X,000 --> 00:00:02,900\nCaption text #2\n",
        "2\n00:00:02,000 --> 00:00:02,90O\nCaption text #2\n",
        "2\n00:00:02,000 -> 00:00:02,900\nCaption text #2\n",
        "2\n00:00:02,000 ==> 00:0\nCaption text #2\n",
        "2\n00:00:02,000 -->\nCaption text #2\n",
        "2\nCaption text #2\n",  # no timing line at all (webvtt-py's missing_timeframe.srt)
        "2\nsome garbage\nCaption text #2\n",
    ],
)
def test_srt_damaged_cue_is_left_out_with_its_line(damaged: str) -> None:
    captions = read_captions(FIVE_SRT.replace(CUE_2, damaged), source_name="talk.srt")
    assert texts(captions) == [f"Caption text #{n}" for n in (1, 3, 4, 5)]
    assert [cue.line for cue in captions.skipped] == [5]
    assert "cue 2" in captions.skipped[0].problem
    assert captions.skipped[0].describe().startswith("line 5: cue 2 ")
    assert_no_structure_in_speech(captions)


def test_srt_cue_without_timing_names_the_text_it_left_out() -> None:
    captions = read_captions(FIVE_SRT.replace(CUE_2, "2\nCaption text #2\n"), source_name="a.srt")
    (cue,) = captions.skipped
    assert cue.problem == "cue 2 has no timing line (its text: 'Caption text #2')"


def test_srt_unreadable_timing_is_quoted() -> None:
    damaged = FIVE_SRT.replace("00:00:02,000 --> 00:00:02,900", "00:00:01,000 --> 00:00:0X,000")
    (cue,) = read_captions(damaged, source_name="a.srt").skipped
    assert "'00:00:01,000 --> 00:00:0X,000'" in cue.problem


def test_srt_line_numbers_count_crlf_and_bom_files_the_same() -> None:
    damaged = FIVE_SRT.replace(CUE_2, "2\nCaption text #2\n")
    data = b"\xef\xbb\xbf" + damaged.replace("\n", "\r\n").encode("utf-8")
    captions = read_captions(data, source_name="dos.srt")
    assert [cue.line for cue in captions.skipped] == [5]
    assert len(captions.segments) == 4


def test_srt_first_and_last_cue_damaged() -> None:
    text = FIVE_SRT.replace("00:00:01,000 -->", "00:00:0l,000 -->").replace(
        "00:00:05,000 --> 00:00:05,900", "00:00:05,000 --> 00:00:05;900"
    )
    captions = read_captions(text, source_name="a.srt")
    assert texts(captions) == ["Caption text #2", "Caption text #3", "Caption text #4"]
    assert [cue.line for cue in captions.skipped] == [1, 17]


def test_srt_text_before_the_first_cue_is_left_out() -> None:
    captions = read_captions("My home video\n\n" + FIVE_SRT, source_name="a.srt")
    assert len(captions.segments) == 5
    (cue,) = captions.skipped
    assert (cue.line, cue.problem) == (1, "'My home video' is not part of any cue")


def test_srt_with_most_cues_damaged_is_refused() -> None:
    text = FIVE_SRT
    for n in (1, 2, 4):
        text = text.replace(f"00:00:0{n},000 -->", f"00:00:0{n};000 -->")
    with pytest.raises(V2CError) as caught:
        read_captions(text, source_name="wreck.srt")
    error = caught.value
    assert error.code == "bad-request"
    assert "3 of 5 cues cannot be read" in error.message
    assert error.details["line"] == 1


def test_srt_cut_off_in_its_last_cue_is_still_refused() -> None:
    with pytest.raises(V2CError) as caught:
        read_captions(FIVE_SRT + "6\n00:00:06,0", source_name="cut.srt")
    assert caught.value.details["line"] == 21
    assert "cut off" in caught.value.message


@pytest.mark.parametrize(
    "text",
    [
        # SRT times with "." and with ":" before the milliseconds
        "1\n00:00:01.000 --> 00:00:01.900\nCaption text #1\n\n"
        "2\n00:00:02:000 --> 00:00:02:900\nCaption text #2\n",
        # no blank line between cues, a blank line inside a cue, no cue numbers
        "1\n00:00:01,000 --> 00:00:01,900\nCaption text #1\n"
        "2\n00:00:02,000 --> 00:00:02,900\nCaption\n\ntext #2\n",
        "00:00:01,000 --> 00:00:01,900\nCaption text #1\n\n"
        "00:00:02,000 --> 00:00:02,900 X1:10 X2:20 Y1:30 Y2:40\nCaption text #2\n",
        # spaces around the timing line and the cue number, a blank line after the number
        " 1 \n  00:00:01,000  -->  00:00:01,900  \nCaption text #1\n\n"
        "2\n\n00:00:02,000 --> 00:00:02,900\nCaption text #2\n",
    ],
)
def test_srt_lenient_readings_stay(text: str) -> None:
    captions = read_captions(text, source_name="ok.srt")
    assert [(s.start, s.text) for s in captions.segments] == [
        (1.0, "Caption text #1"),
        (2.0, "Caption text #2"),
    ]
    assert captions.skipped == []


@pytest.mark.parametrize(
    ("damaged", "line"),
    [
        ("00:00:02.000 --> 00:00:0X.900\nCaption text #2\n", 6),
        ("00:00:02.000 --> 00:75:00.000\nCaption text #2\n", 6),
        ("Caption text #2\n", 6),  # webvtt-py's missing_timeframe.vtt
        ("00:00:02.0\nCaption text #2\n", 6),
        ("two\n00:00:02.000 --> 00:00:0X.900\nCaption text #2\n", 7),
    ],
)
def test_vtt_damaged_cue_is_left_out_with_its_line(damaged: str, line: int) -> None:
    text = FIVE_VTT.replace("00:00:02.000 --> 00:00:02.900\nCaption text #2\n", damaged)
    captions = read_captions(text, source_name="talk.vtt")
    assert texts(captions) == [f"Caption text #{n}" for n in (1, 3, 4, 5)]
    assert [cue.line for cue in captions.skipped] == [line]
    assert_no_structure_in_speech(captions)


def test_vtt_identifiers_notes_and_styles_are_not_damage() -> None:
    text = (
        "WEBVTT\nKind: captions\n\nSTYLE\n::cue { color: red }\n\nNOTE a comment\n\n"
        "intro\n00:00:01.000 --> 00:00:01.900\nCaption text #1\n\n"
        "   \n2\n00:00:02.000 --> 00:00:02.900\nCaption text #2\n"
    )
    captions = read_captions(text, source_name="ok.vtt")
    assert texts(captions) == ["Caption text #1", "Caption text #2"]
    assert captions.skipped == []


def test_vtt_with_most_cues_damaged_is_refused() -> None:
    text = FIVE_VTT
    for n in (2, 3, 5):
        text = text.replace(f"00:00:0{n}.000 -->", f"00:00:0{n}.000 ->")
    with pytest.raises(V2CError) as caught:
        read_captions(text, source_name="wreck.vtt")
    assert "3 of 5 cues cannot be read" in caught.value.message
    assert caught.value.details["line"] == 6


def test_every_damaged_timing_of_a_real_srt_is_found_alone() -> None:
    """Break each timing line of the excerpt fixture in turn: exactly that cue goes."""
    original = (FIXTURES / "pycon_10ways_excerpt.srt").read_text(encoding="utf-8-sig")
    good = read_captions(original, source_name="x.srt").segments
    lines = original.split("\n")
    timing_lines = [number for number, line in enumerate(lines) if "-->" in line]
    for cue, number in enumerate(timing_lines):
        damaged = lines.copy()
        damaged[number] = damaged[number].replace(",", "X", 1)
        captions = read_captions("\n".join(damaged), source_name="x.srt")
        assert [s.line for s in captions.skipped] == [number], cue  # the cue number above it
        assert captions.segments == good[:cue] + good[cue + 1 :]
        assert_clean(captions.segments)


@pytest.mark.corpus
def test_real_srt_damaged_in_the_middle_keeps_the_rest() -> None:
    path = corpus_path("transcripts/3blue1brown/2017_bitcoin/captions.en.srt")
    original = path.read_text(encoding="utf-8-sig")
    good = read_captions(original, source_name=path.name).segments
    lines = original.split("\n")
    number = [n for n, line in enumerate(lines) if "-->" in line][200]
    removed = lines[number + 1].strip()
    lines[number] = lines[number][:17] + "0X" + lines[number][19:]  # "... --> 0X:13:05,321"
    captions = read_captions("\n".join(lines).encode("utf-8"), source_name=path.name)
    assert [cue.line for cue in captions.skipped] == [number]  # its cue number's line
    (gone,) = [k for k, segment in enumerate(good) if segment.text.startswith(removed)]
    assert captions.segments == good[:gone] + good[gone + 1 :]
