"""Finding chapters by number or title, and cutting sections by chapter or time."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.render import (
    context_header,
    find_chapter,
    render_section,
    section_line,
    select_section,
)
from v2c_desktop.core.render.common import joined_text, one_line
from v2c_desktop.core.render.tokens import estimate_tokens
from v2c_desktop.core.timecode import clock

from .records import homunculus, ned, woodenfish


@pytest.mark.parametrize(
    ("query", "index", "title"),
    [
        (3, 3, "Sound Waves"),
        ("3", 3, "Sound Waves"),
        (" 11 ", 11, "Credits"),
        ("sound waves", 3, "Sound Waves"),  # exact, any case
        ("How Human Sm", 7, "How Human Smell Works"),  # prefix
        ("taste", 5, "How Human Taste Works"),  # substring
        ("kin", 9, "Kinesthesis"),
        ("sen", 2, "Sensation vs. Perception"),  # prefix wins over "Vestibular Sense"
    ],
)
def test_find_chapter(query: str | int, index: int, title: str) -> None:
    found_index, chapter = find_chapter(homunculus(), query)
    assert (found_index, chapter.title) == (index, title)


def test_exact_title_wins_over_prefix() -> None:
    record = homunculus()
    record.chapters[1] = replace(record.chapters[1], title="Sound")
    assert find_chapter(record, "SOUND")[0] == 2
    assert find_chapter(record, "sound w")[0] == 3


@pytest.mark.parametrize(
    ("query", "matches"),
    [
        ("how human", ["4. How Human Hearing Works", "5. How Human Taste Works"]),
        ("works", ["4. How Human Hearing Works", "8. How Human Touch Works"]),
    ],
)
def test_ambiguous_chapter_lists_the_matches(query: str, matches: list[str]) -> None:
    with pytest.raises(V2CError) as caught:
        find_chapter(homunculus(), query)
    assert caught.value.code == "not-found"
    assert "ambiguous" in caught.value.message
    for name in matches:
        assert name in caught.value.message
    assert "number" in caught.value.hint


@pytest.mark.parametrize("query", ["quantum", 12, 0])
def test_missing_chapter_hints_the_chapter_list(query: str | int) -> None:
    with pytest.raises(V2CError) as caught:
        find_chapter(homunculus(), query)
    assert caught.value.code == "not-found"
    assert caught.value.hint.startswith("chapters: 1. Introduction: HOMUNCULUS; 2. Sensation")
    assert caught.value.hint.endswith("11. Credits")


def test_a_video_without_chapters_points_to_time_ranges() -> None:
    with pytest.raises(V2CError) as caught:
        find_chapter(ned(), "intro")
    assert caught.value.code == "not-found"
    assert "time range" in caught.value.hint


def test_section_by_chapter() -> None:
    record = homunculus()
    section = select_section(record, chapter="Sound Waves")
    assert (section.title, section.start, section.end, section.chapter) == (
        "Sound Waves",
        108.0,
        140.0,
        3,
    )
    inside = [s for s in record.transcript.segments if s.start < 140.0 and s.end > 108.0]
    assert section.segments == inside
    assert section.segments[0].start <= 108.0 < section.segments[0].end
    assert section.tokens == estimate_tokens(joined_text(inside))
    assert section_line(section) == (
        f'Section "Sound Waves": 1:48 to 2:20, about {section.tokens} tokens'
    )


@pytest.mark.parametrize("start", ["90", "1:30", "0:01:30", 90, 90.0, "1m30s"])
def test_section_by_time_accepts_every_time_form(start: str | float) -> None:
    record = homunculus()
    section = select_section(record, start=start, end="2:00")
    assert (section.title, section.start, section.end, section.chapter) == (
        "1:30-2:00",
        90.0,
        120.0,
        None,
    )
    assert section.segments[0].start <= 90.0 < section.segments[0].end
    assert all(s.start < 120.0 and s.end > 90.0 for s in section.segments)
    assert section.segments[-1].start < 120.0 <= section.segments[-1].end


def test_section_by_hours_form_on_a_long_talk() -> None:
    record = ned()
    section = select_section(record, start="0:20:00", end="0:22:03")
    assert (section.start, section.end) == (1200.0, 1323.0)
    assert section.segments
    assert section.segments[0].start <= 1200.0 < section.segments[-1].end
    with pytest.raises(V2CError) as caught:
        select_section(record, start="1:02:03")
    assert caught.value.code == "bad-request"
    assert caught.value.hint == "the video is 46:55 long"


def test_section_past_the_hour_in_h_mm_ss() -> None:
    record = woodenfish()
    section = select_section(record, start="1:02:03", end="1:05:00")
    assert (section.title, section.start, section.end) == ("1:02:03-1:05:00", 3723.0, 3900.0)
    assert section.segments[0].start <= 3723.0 < section.segments[0].end
    assert section.segments[-1].start < 3900.0
    out = render_section(record, section)
    assert 'Section "1:02:03-1:05:00": 1:02:03 to 1:05:00, about ' in out
    assert f"\n[{clock(section.segments[1].start)}] " in out
    assert clock(section.segments[1].start).startswith("1:0")


def test_open_ended_ranges_run_to_the_ends_and_clamp() -> None:
    record = homunculus()
    tail = select_section(record, start="9:47")
    assert (tail.start, tail.end) == (587.0, 623.0)
    head = select_section(record, end=30)
    assert (head.start, head.end, head.segments[0].text) == (0.0, 30.0, "Homunculus!")
    clamped = select_section(record, start="9:00", end="20:00")
    assert clamped.end == 623.0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"start": "2:00", "end": "1:30"}, "10:23"),
        ({"start": "1:30", "end": "1:30"}, "10:23"),
        ({"start": "11:00"}, "10:23"),
        ({"start": "soon"}, "1:30"),
        ({}, "chapter"),
        ({"chapter": 2, "start": 10}, "chapter"),
    ],
)
def test_bad_ranges_are_bad_requests(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(V2CError) as caught:
        select_section(homunculus(), **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "bad-request"
    assert fragment in caught.value.hint


def test_section_text_has_header_section_line_and_lines() -> None:
    record = homunculus()
    section = select_section(record, chapter=5)
    out = render_section(record, section)
    header = context_header(record)
    intro = f"{header}\n\n{section_line(section)}\n\n"
    assert out.startswith(intro)
    assert section_line(section).startswith('Section "How Human Taste Works": 3:25 to 4:24, about ')
    lines = out[len(intro) :].rstrip("\n").split("\n")
    assert lines == [f"[{clock(s.start)}] {one_line(s.text)}" for s in section.segments]


def test_section_in_other_formats_holds_only_its_segments() -> None:
    record = homunculus()
    section = select_section(record, start=100, end=130)
    doc = json.loads(render_section(record, section, "json"))
    assert [s["start"] for s in doc["segments"]] == [s.start for s in section.segments]
    markdown = render_section(record, section, "markdown")
    assert "## Sensation vs. Perception" in markdown
    assert "## Sound Waves" in markdown
    assert "## Introduction" not in markdown
