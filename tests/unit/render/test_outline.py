"""Outlines by chapters (real YouTube chapters) and by time (a long keynote)."""

from __future__ import annotations

import itertools

from v2c_desktop.core.domain.videos import Segment
from v2c_desktop.core.render import outline, render_outline
from v2c_desktop.core.render.outline import MIN_TAIL, TIME_SECTION
from v2c_desktop.core.timecode import clock

from .records import homunculus, ned, woodenfish


def test_outline_by_chapters() -> None:
    record = homunculus()
    result = outline(record)
    assert result.kind == "chapters"
    assert result.title == "Homunculus: Crash Course Psychology #6"
    assert result.location == "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
    assert result.duration == 623.0
    assert [s.index for s in result.sections] == list(range(1, 12))
    assert [(s.title, s.start, s.end) for s in result.sections] == [
        (c.title, c.start, c.end) for c in record.chapters
    ]
    second = result.sections[1]
    assert second.title == "Sensation vs. Perception"
    assert second.url == "https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=82s"
    assert sum(s.segment_count for s in result.sections) == 182
    assert all(s.tokens > 0 for s in result.sections)
    # each section rounds up and drops one joining space: the sum stays within a few tokens
    assert abs(sum(s.tokens for s in result.sections) - result.total_tokens) <= 11
    assert 2_500 < result.total_tokens < 3_500


def test_outline_by_time_has_five_minute_sections_cut_at_segments() -> None:
    record = ned()
    result = outline(record)
    assert result.kind == "time"
    sections = result.sections
    assert len(sections) == 10  # 46:55 is nine full slices and a 1:55 tail
    starts = {s.start for s in record.transcript.segments}
    longest = max(s.end - s.start for s in record.transcript.segments)
    assert sections[0].start == 0.0
    for before, after in itertools.pairwise(sections):
        assert before.end == after.start
        assert after.start in starts
        assert TIME_SECTION <= before.end - before.start <= TIME_SECTION + longest
    assert sections[-1].end == record.duration == 2815.24
    assert sections[0].title == f"0:00-{clock(sections[0].end)}"
    assert sections[0].title.startswith("0:00-5:0")
    assert all(s.title == f"{clock(s.start)}-{clock(s.end)}" for s in sections)
    assert sections[3].url.endswith(f"#t={sections[3].start:g}")
    assert sum(s.segment_count for s in sections) == 795
    assert abs(sum(s.tokens for s in sections) - result.total_tokens) <= len(sections)
    # about 12k tokens an hour: a five-minute slice is roughly a thousand tokens
    assert all(600 < s.tokens < 1_500 for s in sections[:-1])


def test_a_short_tail_joins_the_last_section() -> None:
    record = ned()
    cut = 2 * TIME_SECTION + MIN_TAIL / 2
    record.transcript.segments = [s for s in record.transcript.segments if s.start < cut]
    result = outline(record)
    assert len(result.sections) == 2
    assert result.sections[-1].end == record.transcript.segments[-1].end


def test_outline_of_an_empty_transcript_has_no_sections() -> None:
    record = ned()
    record.transcript.segments = []
    result = outline(record)
    assert (result.kind, result.sections, result.total_tokens) == ("time", [], 0)


def test_outline_text_for_the_cli() -> None:
    result = outline(homunculus())
    text = render_outline(result)
    lines = text.splitlines()
    assert lines[0] == "Homunculus: Crash Course Psychology #6"
    assert lines[1] == "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
    assert lines[2] == f"10:23, 11 chapters, about {result.total_tokens:,} tokens"
    second = result.sections[1]
    assert f" 2. [1:22-1:48] Sensation vs. Perception  (about {second.tokens:,} tokens)" in lines
    assert lines[-1].startswith("11. [9:47-10:23] Credits")
    assert "time sections (no chapters)" in render_outline(outline(ned())).splitlines()[2]


def test_segments_before_the_first_chapter_count_in_it() -> None:
    record = homunculus()
    record.transcript.segments = [Segment(0.0, 1.0, "early"), *record.transcript.segments[1:]]
    record.chapters = record.chapters[1:]  # first chapter now starts at 1:22
    result = outline(record)
    assert sum(s.segment_count for s in result.sections) == 182


def test_time_outline_past_the_hour_uses_hours_in_titles() -> None:
    record = woodenfish()
    result = outline(record)
    assert result.kind == "time"
    assert len(result.sections) == 21  # 1:43:26 is twenty slices and a 3:26 tail
    assert result.sections[12].title.startswith("1:00:")
    assert result.sections[-1].title.endswith("-1:43:26")
    assert result.sections[-1].url.startswith("https://www.youtube.com/watch?v=BRJ48AU5gP4&t=")
    assert sum(s.segment_count for s in result.sections) == 2471
