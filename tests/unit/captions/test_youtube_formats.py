"""YouTube's own formats: srv1 (real upstream fixture), json3 and srv3 (built fixtures)."""

from __future__ import annotations

import itertools
import json

import pytest

from v2c_desktop.core.captions import parse_captions

from .helpers import FIXTURES, assert_clean, words

EXCERPT = FIXTURES / "pycon_10ways_excerpt.srt"


def excerpt_words() -> list[str]:
    return words(parse_captions(EXCERPT.read_bytes()))


def test_srv1_transcript_xml_unescapes_markup_and_drops_the_empty_cue() -> None:
    path = FIXTURES / "youtube-transcript-api" / "transcript.xml"
    segments = parse_captions(path.read_bytes(), source_name=path.name)
    assert_clean(segments)
    assert [(s.start, s.end, s.text) for s in segments] == [
        (0.0, 1.54, "Hey, this is just a test"),
        (1.54, 5.7, "this is not the original transcript"),
        (5.7, 8.939, "just something shorter, I made up for testing"),
    ]


def test_srv1_double_escaped_entities() -> None:
    xml = (
        '<?xml version="1.0" encoding="utf-8" ?><transcript>'
        '<text start="0.5" dur="2">I&amp;#39;m &amp;quot;here&amp;quot; &amp;amp; there</text>'
        '<text start="2.5" dur="1.25">  spaced\n  out  </text></transcript>'
    )
    segments = parse_captions(xml.encode("utf-8"), source_name="t.srv1")
    assert [(s.start, s.end, s.text) for s in segments] == [
        (0.5, 2.5, 'I\'m "here" & there'),
        (2.5, 3.75, "spaced out"),
    ]


def test_srv2_millisecond_text_elements() -> None:
    xml = '<timedtext><window id="1"/><text t="1500" d="2000" w="1">hello there</text></timedtext>'
    segments = parse_captions(xml)
    assert [(s.start, s.end, s.text) for s in segments] == [(1.5, 3.5, "hello there")]


def test_creator_json3() -> None:
    path = FIXTURES / "pycon_10ways_creator.json3"
    segments = parse_captions(path.read_bytes(), source_name=path.name)
    assert_clean(segments)
    # 14 cues; the window event and the "\n"-only event carry no text.
    assert len(segments) == 14
    assert words(segments) == excerpt_words()
    assert segments[0].text == "Okay, you know where? Okay, I'm ready."
    assert (segments[0].start, segments[0].end) == (0.0, 3.0)
    # Cue 3 is split over two segs (a pen change) and two lines.
    assert segments[2].text == "Today I'm going to talk about testing."
    assert segments[-1].text.startswith("We saw some stuff also going through an adjustment")
    assert segments[-1].end == 61.0


def test_auto_caption_json3_with_append_events() -> None:
    path = FIXTURES / "pycon_10ways_auto.json3"
    document = json.loads(path.read_text(encoding="utf-8"))
    lines = [e for e in document["events"] if e.get("segs") and not e.get("aAppend")]
    segments = parse_captions(path.read_bytes(), source_name=path.name)
    assert_clean(segments)
    assert len(segments) == len(lines)
    assert words(segments) == excerpt_words()
    assert segments[0].text == "Okay, you know where? Okay, I'm ready."
    assert segments[1].text == "Hi everybody, thanks for coming."
    # Lines stay on screen two lines long; as segments each ends when the next starts.
    for before, after in itertools.pairwise(segments):
        assert before.end == after.start
    assert segments[-1].end == 61.0


def test_auto_caption_srv3_matches_json3() -> None:
    srv3 = parse_captions((FIXTURES / "pycon_10ways_auto.srv3").read_bytes())
    json3 = parse_captions((FIXTURES / "pycon_10ways_auto.json3").read_bytes())
    assert_clean(srv3)
    assert srv3 == json3


def test_creator_srv3() -> None:
    segments = parse_captions((FIXTURES / "pycon_10ways_creator.srv3").read_bytes())
    assert_clean(segments)
    assert len(segments) == 14
    assert words(segments) == excerpt_words()
    assert segments[3].text == (
        "And testing is great, but if you do it wrong, sometimes it's not so great."
    )


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ({"events": [{"tStartMs": 1000, "segs": [{"utf8": "no duration"}]}]}, (1.0, 1.0)),
        (
            {"events": [{"tStartMs": 1000, "dDurationMs": 500, "segs": [{"utf8": "x"}, {}]}]},
            (1.0, 1.5),
        ),
    ],
)
def test_json3_tolerates_missing_optional_fields(
    document: dict[str, object], expected: tuple[float, float]
) -> None:
    segment = parse_captions(json.dumps(document), "json3")[0]
    assert (segment.start, segment.end) == expected
