"""Format detection (content first, extension second) and decoding of caption bytes."""

from __future__ import annotations

import codecs

import pytest

from v2c_desktop.core.captions import detect_format, parse_captions
from v2c_desktop.core.captions.decode import decode_bytes, looks_binary
from v2c_desktop.core.errors import V2CError

from .helpers import FIXTURES

SRT = "1\n00:00:01,000 --> 00:00:02,000\nCafé “quotes” – naïve\n"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nhi\n", "vtt"),
        ("\ufeffWEBVTT\n", "vtt"),
        (SRT, "srt"),
        ("\n\n  1\r\n00:00:01,000 --> 00:00:02,000\r\nhi\r\n", "srt"),
        ("00:00:01,000 --> 00:00:02,000\nno number\n", "srt"),
        ("00:00:01.000 --> 00:00:02.000\nno header\n", "vtt"),
        ('{"wireMagic":"pb3","pens":[{}],"events":[]}', "json3"),
        ('<?xml version="1.0" encoding="utf-8" ?><transcript></transcript>', "timedtext"),
        ('<?xml version="1.0" ?><timedtext format="3"><body/></timedtext>', "timedtext"),
    ],
)
def test_detect_by_content(data: str, expected: str) -> None:
    assert detect_format(data) == expected


def test_content_beats_extension() -> None:
    assert detect_format("WEBVTT\n", "mislabelled.srt") == "vtt"
    assert detect_format(SRT, "mislabelled.vtt") == "srt"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.vtt", "vtt"),
        ("/x/y/talk.en.VTT", "vtt"),
        ("a.srt", "srt"),
        ("a.json3", "json3"),
        ("a.srv1", "timedtext"),
        ("a.srv3", "timedtext"),
        ("a.xml", "timedtext"),
    ],
)
def test_detect_by_extension_when_content_is_silent(name: str, expected: str) -> None:
    assert detect_format("some words without any timing", name) == expected


@pytest.mark.parametrize(
    ("data", "name"), [("plain words", ""), ("plain words", "notes.txt"), ("", "")]
)
def test_detect_gives_up_with_a_hint(data: str, name: str) -> None:
    with pytest.raises(V2CError) as caught:
        detect_format(data, name)
    assert caught.value.code == "unsupported-input"
    assert ".vtt" in caught.value.hint


def test_detect_refuses_binary_even_with_a_caption_extension() -> None:
    with pytest.raises(V2CError) as caught:
        detect_format("\x00\x01\x02\x03PK\x03\x04" * 10, "subs.srt")
    assert caught.value.code == "unsupported-input"


@pytest.mark.parametrize(
    "encoded",
    [
        SRT.encode("utf-8"),
        codecs.BOM_UTF8 + SRT.encode("utf-8"),
        SRT.encode("utf-16"),  # with BOM
        codecs.BOM_UTF16_BE + SRT.encode("utf-16-be"),
        SRT.encode("cp1252"),
        SRT.replace("\n", "\r\n").encode("cp1252"),
        SRT.replace("\n", "\r").encode("utf-8"),
    ],
)
def test_parse_decodes_bytes(encoded: bytes) -> None:
    segments = parse_captions(encoded, source_name="enc.srt")
    assert [s.text for s in segments] == ["Café “quotes” – naïve"]


def test_decode_never_raises() -> None:
    assert decode_bytes(bytes(range(256)))
    assert decode_bytes(b"\xef\xbb\xbfok") == "ok"


def test_looks_binary() -> None:
    assert looks_binary("abc\x00def")
    assert looks_binary("".join(chr(c) for c in range(1, 32)) * 4)
    assert not looks_binary("line one\nline two\ttabbed\r\n")
    assert not looks_binary((FIXTURES / "pycon_10ways_auto.json3").read_text(encoding="utf-8"))


def test_str_input_with_bom_and_crlf() -> None:
    text = "\ufeffWEBVTT\r\n\r\n00:00:01.000 --> 00:00:02.000\r\nHello\r\n"
    assert [s.text for s in parse_captions(text)] == ["Hello"]
