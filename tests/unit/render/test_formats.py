"""Every format, unpaged, on real transcripts: content checked, files parsed back."""

from __future__ import annotations

import json
import re

import pytest
import srt
import webvtt

from v2c_desktop.core.domain.videos import Segment
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.render import FORMATS, context_header, format_id, render
from v2c_desktop.core.render.common import PARAGRAPH_HARD_CHARS, chapter_index, one_line
from v2c_desktop.core.timecode import clock

from .records import homunculus, ned, woodenfish

LINE = re.compile(r"^\[(\d+:\d\d(?::\d\d)?)\] (.*)$")


def test_registry_lists_the_five_formats_with_types() -> None:
    assert list(FORMATS) == ["text", "markdown", "json", "srt", "vtt"]
    assert {f.id: (f.mime_type, f.extension) for f in FORMATS.values()} == {
        "text": ("text/plain", "txt"),
        "markdown": ("text/markdown", "md"),
        "json": ("application/json", "json"),
        "srt": ("application/x-subrip", "srt"),
        "vtt": ("text/vtt", "vtt"),
    }
    assert all(f.description for f in FORMATS.values())


def test_unknown_format_is_a_bad_request_listing_formats() -> None:
    with pytest.raises(V2CError) as caught:
        render(homunculus(), "docx")
    assert caught.value.code == "bad-request"
    assert "docx" in caught.value.message
    assert caught.value.hint == "use one of: text, markdown, json, srt, vtt"


def test_format_names_are_case_insensitive_with_aliases() -> None:
    assert format_id(" Markdown ") == "markdown"
    assert format_id("MD") == "markdown"
    assert format_id("webvtt") == "vtt"


def test_text_is_header_then_one_timestamped_line_per_segment() -> None:
    record = homunculus()
    out = render(record, "text")
    header = context_header(record)
    assert out.startswith(header + "\n\n")
    lines = out[len(header) + 2 :].rstrip("\n").split("\n")
    segments = record.transcript.segments
    assert len(lines) == len(segments) == 182
    assert lines[0] == "[0:00] Homunculus!"
    for line, seg in zip(lines, segments, strict=True):
        match = LINE.match(line)
        assert match, line
        assert match.group(1) == clock(seg.start)
        assert match.group(2) == one_line(seg.text)
    # the first line of the second chapter sits at 1:22
    assert any(line.startswith("[1:22] ") for line in lines)


def test_text_without_timestamps_flows_in_paragraphs_keeping_every_word() -> None:
    record = homunculus()
    out = render(record, "text", timestamps=False)
    body = out[len(context_header(record)) + 2 :]
    assert not re.search(r"^\[\d+:\d\d\]", body, re.MULTILINE)
    paragraphs = body.strip().split("\n\n")
    segments = record.transcript.segments
    assert 11 <= len(paragraphs) < len(segments) // 3
    assert " ".join(body.split()) == " ".join(" ".join(s.text.split()) for s in segments)
    # every chapter that has speech starts a new paragraph
    for chapter in record.chapters[1:]:
        first = next((s for s in segments if s.start >= chapter.start), None)
        if first is not None and first.start < chapter.end:
            assert any(p.startswith(one_line(first.text)) for p in paragraphs), chapter.title


def test_auto_captions_without_sentences_still_break_into_paragraphs() -> None:
    record = woodenfish()
    body = render(record, "text", timestamps=False)[len(context_header(record)) + 2 :]
    paragraphs = body.strip().split("\n\n")
    longest_cue = max(len(one_line(s.text)) for s in record.transcript.segments)
    assert len(paragraphs) > 40
    assert max(len(p) for p in paragraphs) <= PARAGRAPH_HARD_CHARS + longest_cue + 1
    assert " ".join(body.split()) == " ".join(
        " ".join(s.text.split()) for s in record.transcript.segments
    )


def _markdown_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("[")]


def test_markdown_has_chapter_headings_and_timestamp_links() -> None:
    record = homunculus()
    out = render(record, "markdown")
    assert out.startswith("# Homunculus: Crash Course Psychology #6\n\n- Channel: CrashCourse\n")
    assert "- URL: <https://www.youtube.com/watch?v=fxZWtc0mYpQ>" in out
    headings = [line[3:] for line in out.splitlines() if line.startswith("## ")]
    assert headings == [c.title for c in record.chapters]
    lines = _markdown_lines(out)
    assert len(lines) == 182
    second = next(s for s in record.transcript.segments if s.start == 82.0)
    expected = f"[1:22](https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=82s) {one_line(second.text)}"
    assert expected in lines
    assert out.index("## Sensation vs. Perception") < out.index(expected)
    assert out.index(expected) < out.index("## Sound Waves")
    for line, seg in zip(lines, record.transcript.segments, strict=True):
        whole = int(seg.start)
        assert line.startswith(
            f"[{clock(seg.start)}](https://www.youtube.com/watch?v=fxZWtc0mYpQ&t={whole}s) "
        )


def test_markdown_of_local_file_without_chapters_links_file_urls() -> None:
    record = ned()
    out = render(record, "markdown")
    assert "\n## " not in out
    assert f"- File: `{record.video.source_path}`" in out
    lines = _markdown_lines(out)
    assert len(lines) == 795
    assert lines[2].startswith("[0:08](file://")
    assert "ned-batchelder-keynote.whisper.srt#t=8.48) " in lines[2]


def test_markdown_without_timestamps_links_each_paragraph() -> None:
    record = homunculus()
    out = render(record, "markdown", timestamps=False)
    lines = _markdown_lines(out)
    assert 11 <= len(lines) < 182
    assert lines[0].startswith(
        "[0:00](https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=0s) Homunculus!"
    )


def test_json_carries_metadata_origin_chapters_and_segments() -> None:
    record = homunculus()
    doc = json.loads(render(record, "json"))
    assert doc["video"]["id"] == "youtube:fxZWtc0mYpQ"
    assert doc["video"]["title"] == "Homunculus: Crash Course Psychology #6"
    assert doc["video"]["duration"] == 623.0
    assert doc["video"]["published"] == "2014-03-10"
    assert doc["transcript"] == {
        "origin": "creator-captions",
        "language": "en",
        "producer": "YouTube",
        "translated_from": None,
    }
    assert len(doc["chapters"]) == 11
    assert doc["chapters"][1] == {
        "title": "Sensation vs. Perception",
        "start": 82.0,
        "end": 108.0,
        "url": "https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=82s",
    }
    assert "page" not in doc
    segments = record.transcript.segments
    assert [Segment(s["start"], s["end"], s["text"]) for s in doc["segments"]] == segments
    assert doc["segments"][1] == {
        "start": 1.0,
        "end": 5.0,
        "text": "If you've heard that word, it probably wasn't in the context of psychology.",
    }


def test_srt_parses_back_to_the_same_cues() -> None:
    for record in (homunculus(), ned()):
        out = render(record, "srt")
        cues = list(srt.parse(out))
        segments = record.transcript.segments
        assert [c.index for c in cues] == list(range(1, len(segments) + 1))
        for cue, seg in zip(cues, segments, strict=True):
            assert cue.start.total_seconds() == pytest.approx(seg.start, abs=0.001)
            assert cue.end.total_seconds() == pytest.approx(seg.end, abs=0.001)
            assert cue.content == seg.text


def test_vtt_reads_back_with_webvtt() -> None:
    record = ned()
    out = render(record, "vtt")
    assert out.startswith("WEBVTT\n\nNOTE\nNed Batchelder keynote, PyCon US 2023\n")
    captions = webvtt.from_string(out).captions
    segments = record.transcript.segments
    assert len(captions) == len(segments) == 795
    assert captions[-1].start == "00:46:54.640"
    assert captions[-1].end == "00:46:55.240"
    assert captions[-1].text == "Enjoy PyCon."
    for caption, seg in zip(captions, segments, strict=True):
        assert caption.start_in_seconds == int(seg.start)
        assert caption.text == seg.text


def test_subtitles_stay_valid_with_awkward_text() -> None:
    """Cues ending before they start (3blue1brown has some), blank lines, arrows, markup."""
    record = homunculus()
    record.transcript.segments = [
        Segment(1.0, 0.5, "ends before it starts"),
        Segment(2.0, 3.0, "first line\n\nsecond line after a blank"),
        Segment(3.0, 4.0, "a --> b & <i>c</i>"),
        Segment(4.0, 5.0, "   "),
        Segment(5.0, 6.0, "last"),
    ]
    cues = list(srt.parse(render(record, "srt")))
    assert [c.index for c in cues] == [1, 2, 3, 4]
    assert cues[0].end == cues[0].start
    assert cues[1].content == "first line\nsecond line after a blank"
    assert cues[2].content == "a -> b & <i>c</i>"
    assert cues[3].content == "last"
    captions = webvtt.from_string(render(record, "vtt")).captions
    assert [c.text for c in captions] == [
        "ends before it starts",
        "first line\nsecond line after a blank",
        "a --&gt; b &amp; &lt;i&gt;c&lt;/i&gt;",
        "last",
    ]


def test_render_of_a_subset_shows_only_those_segments() -> None:
    record = homunculus()
    subset = record.transcript.segments[10:15]
    doc = json.loads(render(record, "json", segments=subset))
    assert [s["start"] for s in doc["segments"]] == [s.start for s in subset]
    text = render(record, "text", segments=subset)
    assert text.count("\n[") == 5 + 11  # five lines plus the header's chapter list
    assert chapter_index(record.chapters, subset[0].start) == 0
