"""Numbering sources: all of a video together, in order of first appearance, then by time."""

from __future__ import annotations

import pytest

from tests.unit.ask.conftest import BITCOIN, GPT, between
from v2c_desktop.core.ask.sources import Source, SourceRange, number_sources, source_text
from v2c_desktop.core.domain.videos import Segment, Video

pytestmark = pytest.mark.corpus


def test_numbered_by_video_of_first_appearance_then_time(sources: list[Source]) -> None:
    assert [(s.n, s.video_id) for s in sources] == [
        (1, BITCOIN.id),
        (2, BITCOIN.id),
        (3, GPT.id),
    ]
    assert sources[0].start < sources[1].start
    assert sources[0].start == pytest.approx(3.9)
    assert sources[1].start == pytest.approx(1336.098)
    assert sources[1].end == pytest.approx(1401.494)


def test_source_fields_come_from_the_video_and_its_segments(sources: list[Source]) -> None:
    reward = sources[1]
    assert reward.title == BITCOIN.title
    assert reward.channel == "3Blue1Brown"
    assert reward.url == "https://www.youtube.com/watch?v=bBC-nXj3Ng4&t=1336s"
    assert "never be more than 21 million Bitcoin in existence." in reward.text
    assert reward.text == source_text(reward.segments)
    assert reward.segments == sorted(reward.segments, key=lambda s: s.start)
    assert reward.url_at(1384.623) == "https://www.youtube.com/watch?v=bBC-nXj3Ng4&t=1384s"


def test_explicit_range_bounds_win_and_empty_ranges_are_dropped(
    bitcoin_segments: list[Segment],
) -> None:
    numbered = number_sources(
        [
            SourceRange(BITCOIN, []),
            SourceRange(BITCOIN, between(bitcoin_segments, 60, 120), start=55.0, end=125.0),
        ]
    )
    assert len(numbered) == 1
    assert (numbered[0].n, numbered[0].start, numbered[0].end) == (1, 55.0, 125.0)
    assert numbered[0].url.endswith("&t=55s")


def test_url_at_uses_each_platforms_deep_link_and_falls_back_to_the_source_url() -> None:
    segment = Segment(10.0, 12.5, "hello")
    local = Video("file:abc", "Talk", "file", "abc", source_path="/tmp/talk.mp4")
    [source] = number_sources([SourceRange(local, [segment])])
    assert source.url == "file:///tmp/talk.mp4#t=10"
    assert source.url_at(42.5) == "file:///tmp/talk.mp4#t=42.5"
    bare = Source(1, "x:1", "T", "https://example.org/v#t=10", 10, 20, "hello", [segment])
    assert bare.url_at(15) == "https://example.org/v#t=10"
