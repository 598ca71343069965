"""Broken, foreign and empty input: always a V2CError with a code, a place and a hint."""

from __future__ import annotations

import random
from typing import cast

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.captions import CaptionFormat, parse_captions, read_captions
from v2c_desktop.core.errors import V2CError

from .helpers import FIXTURES

SMALL_SRT = (
    "1\n00:00:01,000 --> 00:00:02,000\nFirst line.\n\n"
    "2\n00:00:02,500 --> 00:00:04,000\nSecond line.\n\n"
    "3\n00:00:04,500 --> 00:00:06,000\nThird line.\n"
)


def error_of(data: str | bytes, source_name: str = "", fmt: str | None = None) -> V2CError:
    with pytest.raises(V2CError) as caught:
        parse_captions(data, cast("CaptionFormat | None", fmt), source_name=source_name)
    return caught.value


@pytest.mark.parametrize("cut", ["3", "3\n", "3\n00:", "3\n00:00:04", "3\n00:00:04,500 -"])
def test_srt_cut_mid_timing_line_says_where(cut: str) -> None:
    truncated = SMALL_SRT[: SMALL_SRT.index("3\n")] + cut
    error = error_of(truncated, "talk.en.srt")
    assert error.code == "bad-request"
    assert "talk.en.srt" in error.message
    assert "line 9" in error.message
    assert "line 9" in error.hint
    assert error.hint.startswith("Re-download the subtitles")
    assert error.details["line"] == 9


@pytest.mark.corpus
def test_real_srt_cut_mid_timing_line() -> None:
    text = corpus_path("transcripts/3blue1brown/2017_bitcoin/captions.en.srt").read_text(
        encoding="utf-8-sig"
    )
    lines = text.split("\n")
    timing = [number for number, line in enumerate(lines) if "-->" in line][100]
    truncated = "\n".join(lines[:timing]) + "\n" + lines[timing][:19]  # "00:04:36,940 --> 0"
    error = error_of(truncated.encode("utf-8"), "captions.en.srt")
    assert error.code == "bad-request"
    assert f"line {timing}" in error.message  # the cue number line just above it


def test_srt_garbage_in_the_middle_is_left_out_and_reported() -> None:
    # One damaged cue of three: the others are kept (test_captions_damaged_cues has the rest).
    broken = SMALL_SRT.replace("2\n00:00:02,500 --> 00:00:04,000", "2\n00:00:02,500 ==> 00:0")
    captions = read_captions(broken, source_name="x.srt")
    assert [s.text for s in captions.segments] == ["First line.", "Third line."]
    assert [s.line for s in captions.skipped] == [5]


def test_srt_garbage_in_most_cues_is_refused() -> None:
    broken = SMALL_SRT.replace("00:00:02,500 --> 00:00:04,000", "00:00:02,500 ==> 00:0")
    broken = broken.replace("00:00:04,500 --> 00:00:06,000", "00:00:04,500 --> 00:0X:06,000")
    error = error_of(broken, "x.srt")
    assert error.code == "bad-request"
    assert "line 5" in error.message
    assert "2 of 3 cues" in error.message


@pytest.mark.parametrize(
    ("tail", "line"),
    [
        ("00:00:04.500 --> 00:00:0", 9),
        ("00:00:04.5", 9),
        ("3\n00", 9),
    ],
)
def test_broken_vtt_says_where(tail: str, line: int) -> None:
    text = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nFirst.\n\n"
        "00:00:02.500 --> 00:00:04.000\nSecond.\n\n" + tail
    )
    error = error_of(text, "cut.vtt")
    assert error.code == "bad-request"
    assert f"line {line}" in error.message
    assert "cut.vtt" in error.message
    assert "WebVTT" in error.message


def test_vtt_cue_out_of_range_is_left_out_and_reported() -> None:
    text = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nFirst.\n\n"
        "00:00:02.500 --> 00:00:04.000\nSecond.\n\n00:00:04.500 --> 00:75:00.000\nlate"
    )
    captions = read_captions(text, source_name="cut.vtt")
    assert [s.text for s in captions.segments] == ["First.", "Second."]
    assert [s.line for s in captions.skipped] == [9]
    assert "out of range" in captions.skipped[0].problem


def test_vtt_without_header_is_read() -> None:
    text = (
        "00:00:01.000 --> 00:00:02.000\nNo header here.\n\n"
        "00:00:03.000 --> 00:00:04.000\nStill fine.\n"
    )
    segments = parse_captions(text, source_name="noheader.vtt")
    assert [(s.start, s.text) for s in segments] == [(1.0, "No header here."), (3.0, "Still fine.")]


def test_vtt_without_header_line_numbers_are_the_files() -> None:
    text = "00:00:01.000 --> 00:00:02.000\nOne.\n\n00:00:03.000 --> 00:0"
    error = error_of(text, "noheader.vtt")
    assert error.code == "bad-request"
    assert "line 4" in error.message


def test_vtt_named_file_without_any_cue_is_broken() -> None:
    error = error_of("just some notes\nnothing else", "notes.vtt")
    assert error.code == "bad-request"


def test_vtt_with_header_but_no_cues_has_no_transcript() -> None:
    error = error_of("WEBVTT\n\nNOTE nothing was said\n", "silent.vtt")
    assert error.code == "no-transcript"
    assert "silent.vtt" in error.message


@pytest.mark.parametrize("data", [b"", "", "   \n\n\t", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"])
def test_empty_file_has_no_transcript(data: str | bytes) -> None:
    error = error_of(data, "empty.srt")
    assert error.code == "no-transcript"
    assert "empty.srt" in error.message
    assert error.hint


def test_srt_with_only_empty_cues_has_no_transcript() -> None:
    text = "1\n00:00:01,000 --> 00:00:02,000\n\n\n2\n00:00:02,000 --> 00:00:03,000\n<i> </i>\n"
    assert error_of(text, "blank.srt").code == "no-transcript"


@pytest.mark.parametrize("name", ["", "junk.srt", "junk.vtt", "junk.json3"])
def test_random_binary_junk_is_unsupported(name: str) -> None:
    junk = random.Random(1234).randbytes(4096)
    error = error_of(junk, name)
    assert error.code == "unsupported-input"
    assert "binary" in error.message
    if name:
        assert name in error.message


def test_image_bytes_are_unsupported() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256))
    assert error_of(png, "cover.png").code == "unsupported-input"


def test_plain_prose_without_a_name_is_unsupported() -> None:
    error = error_of("Dear aunt,\nthe weather is lovely here.\nLove, Sam\n")
    assert error.code == "unsupported-input"
    assert error.hint


def test_prose_named_srt_is_a_broken_srt() -> None:
    error = error_of("Dear aunt,\nthe weather is lovely here.\n", "letter.srt")
    assert error.code == "bad-request"
    assert "line 1" in error.message


@pytest.mark.parametrize(
    ("data", "name", "words"),
    [
        ('{"videoDetails": {"title": "x"}}', "player.json", "JSON"),
        ("<!DOCTYPE html><html><body>Watch</body></html>", "page.xml", "HTML"),
        ('<tt xmlns="http://www.w3.org/ns/ttml"><body/></tt>', "subs.ttml", "TTML"),
        ("<svg><circle/></svg>", "x.xml", "XML"),
    ],
)
def test_other_documents_are_unsupported(data: str, name: str, words: str) -> None:
    error = error_of(data, name)
    assert error.code == "unsupported-input"
    assert words in error.message
    assert name in error.message


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ('{"events": [{"tStartMs": 0, "segs": [{"utf8": "hi"}]}, ', "line 1"),
        ('{"events": {"tStartMs": 0}}', "top level"),
        ('{"events": [{"tStartMs": 0, "segs": [{"utf8": "a"}]}, 7]}', "event 2"),
        ('{"events": [{"tStartMs": "soon", "segs": [{"utf8": "a"}]}]}', "event 1"),
        ('{"events": [{"tStartMs": 5, "segs": [{"utf8": 5}]}]}', "event 1"),
        ('{"events": [{"tStartMs": -5, "segs": [{"utf8": "a"}]}]}', "event 1"),
    ],
)
def test_broken_json3_says_where(data: str, where: str) -> None:
    error = error_of(data, "bad.json3")
    assert error.code == "bad-request"
    assert where in error.message
    assert "bad.json3" in error.message


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ('<transcript><text start="0" dur="1">a</text><text start="1"', "line 1"),
        (
            '<transcript>\n<text start="0" dur="1">a</text>\n'
            '<text start="x">b</text>\n</transcript>',
            "<text> number 2",
        ),
        ('<timedtext format="3"><body><p t="0" d="nan">a</p></body></timedtext>', "<p> number 1"),
    ],
)
def test_broken_timedtext_says_where(data: str, where: str) -> None:
    error = error_of(data, "bad.srv3")
    assert error.code == "bad-request"
    assert where in error.message


def test_xml_entity_expansion_is_refused() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        '<transcript><text start="0" dur="1">&b;</text></transcript>'
    )
    error = error_of(bomb, "bomb.xml")
    assert error.code == "bad-request"


def test_unknown_format_name_is_refused() -> None:
    assert error_of(SMALL_SRT, "x.srt", fmt="sbv").code == "unsupported-input"


def test_forcing_the_wrong_format_is_a_clean_error() -> None:
    assert error_of(SMALL_SRT, "x.srt", fmt="json3").code == "bad-request"
    assert error_of(SMALL_SRT, "x.srt", fmt="timedtext").code == "bad-request"


FIXTURE_FILES = [
    "pycon_10ways_excerpt.srt",
    "pycon_10ways_creator.json3",
    "pycon_10ways_auto.json3",
    "pycon_10ways_creator.srv3",
    "pycon_10ways_auto.srv3",
    "youtube-transcript-api/transcript.xml",
]


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_any_truncation_gives_segments_or_a_v2c_error(name: str) -> None:
    """Cut anywhere, a file never escapes as a library traceback."""
    data = (FIXTURES / name).read_bytes()
    for cut in range(0, len(data), max(1, len(data) // 150)):
        try:
            segments = parse_captions(data[:cut], source_name=name)
        except V2CError as error:
            assert error.code in {"bad-request", "no-transcript", "unsupported-input"}
            assert error.message and error.hint
        else:
            assert all(s.end >= s.start for s in segments)
