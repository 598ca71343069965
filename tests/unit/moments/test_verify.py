"""Checking a model's key moments: snapped to real segment starts or dropped (and counted),
plain-text titles, time order, at least 30 s apart, no more than asked for."""

from __future__ import annotations

import itertools

from v2c_desktop.core.domain.videos import Segment
from v2c_desktop.core.moments.prompt import moments_schema, sampled_lines, shown_times
from v2c_desktop.core.moments.verify import (
    MIN_GAP_S,
    SegmentStarts,
    TitleOf,
    first_sentence,
    verify_moments,
)

#: A segment every 4.5 s for 10 minutes (starts 0, 4.5, 9.0, ...), one empty line at 45 s.
SEGMENTS = [
    Segment(i * 4.5, i * 4.5 + 4.0, "" if i == 10 else f"Line {i} says something. And more")
    for i in range(134)
]


def check(moments: list[dict[str, object]], count: int = 8):  # type: ignore[no-untyped-def]
    return verify_moments({"moments": moments}, SEGMENTS, count, TitleOf(SEGMENTS))


def test_times_snap_to_the_nearest_segment_start_within_the_tolerance() -> None:
    result = check(
        [
            {"start": "1:30", "title": "Exact", "why": "a segment starts at 90 s"},
            {
                "start": "3:01",
                "title": "Nearest",
                "why": "180 s is 1 s before, 184.5 s 3.5 s after",
            },
            {"start": 301.0, "title": "A number", "why": "seconds are read too"},
            {"start": "0:46", "title": "Empty line", "why": "45 s has no words"},
        ]
    )
    assert [m.start for m in result.moments] == [90.0, 180.0, 301.5]
    assert all(m.start in {s.start for s in SEGMENTS} for m in result.moments)
    assert [m.segment for m in result.moments] == [20, 40, 67]
    # 0:46 is 1 s after the empty line at 45 s and 3.5 s before 49.5: nothing starts near it
    assert result.dropped == {"no-segment": 1}


def test_times_no_segment_starts_near_are_dropped_and_counted() -> None:
    result = check(
        [
            {"start": "2:00", "title": "Real", "why": "120 is a start"},  # 26 * 4.5 = 117
            {"start": "59:00", "title": "After the end", "why": "the video is 10 minutes"},
            {"start": "soon", "title": "No time", "why": "unreadable"},
            {"start": None, "title": "Null", "why": "unreadable"},
            {"start": "-0:05", "title": "Negative", "why": "unreadable"},
            "not an object",
        ]
    )
    assert [m.start for m in result.moments] == [117.0 + 4.5]  # 121.5 is 1.5 s off: snapped
    assert result.dropped["no-segment"] == 1
    assert result.dropped["unreadable"] == 4
    assert result.offered == 6 and result.dropped_total == 5
    assert "5 of the model's 6 moments were left out" in result.note()


def test_titles_and_reasons_become_plain_text_on_one_line() -> None:
    result = check(
        [
            {
                "start": "1:30",
                "title": "**Big** [idea](https://evil.example/x) <script>alert(1)</script>\nnow",
                "why": "See https://evil.example <b>this</b> `code` — ![img](x.png) &lt;i&gt;ok",
            },
            {"start": "3:00", "title": "  <br>  ", "why": ""},
        ]
    )
    first, second = result.moments
    assert first.title == "Big idea alert(1) now"
    assert first.why == "See this code — img ok"
    for text in (first.title, first.why):
        assert not any(c in text for c in "<>[]()*`\n") or text.count("(") == text.count(")")
        assert "http" not in text and "evil" not in text
    # a title empty once plain is the transcript's own first sentence there (3:00 -> 180 s)
    assert second.title == "Line 40 says something."


def test_moments_are_sorted_spaced_and_capped() -> None:
    result = check(
        [
            {"start": "5:00", "title": "Late", "why": "."},
            {"start": "0:00", "title": "Start", "why": "."},
            {"start": "0:18", "title": "Too close to the start", "why": "."},
            {"start": "1:00", "title": "A minute", "why": "."},
            {"start": "1:20", "title": "22 s after a minute", "why": "."},
            {"start": "7:00", "title": "Seven", "why": "."},
            {"start": "9:00", "title": "Nine", "why": "."},
        ],
        count=4,
    )
    starts = [m.start for m in result.moments]
    assert starts == sorted(starts) and len(starts) == 4
    assert all(b - a >= MIN_GAP_S for a, b in itertools.pairwise(starts))
    assert [m.title for m in result.moments] == ["Start", "A minute", "Late", "Seven"]
    assert result.dropped == {"too-close": 2, "extra": 1}


def test_snapping_prefers_the_nearer_start_and_ignores_empty_lines() -> None:
    starts = SegmentStarts(SEGMENTS)
    assert starts.snap(4.4) == 1 and starts.snap(2.25, tolerance=3) == 0  # a tie: the earlier
    assert starts.snap(45.0) is None  # 45 s itself has no words; 40.5 and 49.5 are 4.5 s off
    assert starts.snap(45.0, tolerance=5) == 9
    assert starts.at_or_after(44.0) == 11


def test_first_sentence_titles_and_captions_without_stops() -> None:
    assert first_sentence(SEGMENTS, 3, 80) == "Line 3 says something."
    lowercase = [Segment(i * 3.0, i * 3.0 + 3, "so we go on and on and on") for i in range(6)]
    title = first_sentence(lowercase, 0, 80)
    assert title.startswith("So we go on") and title.endswith("…") and len(title) <= 80


def test_a_long_transcript_is_sampled_across_the_whole_video() -> None:
    long = [Segment(i * 5.0, i * 5.0 + 5, f"sentence {i} " * 6) for i in range(1440)]  # 2 h
    lines, sampled = sampled_lines(long, 3000)
    assert sampled
    shown = [line for line in lines if line is not None]
    assert shown[0].start == 0.0 and shown[-1].start > 0.9 * 7200  # the end is seen too
    assert sum(1 for line in lines if line is None) >= 10  # the gaps are marked
    assert sum(len(line.render()) // 4 + 1 for line in shown) <= 3000 + 200
    times = shown_times(lines)
    schema = moments_schema(8, times)
    assert schema["properties"]["moments"]["items"]["properties"]["start"]["enum"] == times
    assert schema["properties"]["moments"]["maxItems"] == 8
    short, cut = sampled_lines(SEGMENTS, 3000)
    assert not cut and None not in short
