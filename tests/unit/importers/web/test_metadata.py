"""Info dict → Video and chapters."""

from __future__ import annotations

from itertools import pairwise

import pytest

from v2c_desktop.core.domain.videos import Chapter
from v2c_desktop.core.importers.web.metadata import (
    chapters_from_info,
    iso_date,
    producer_of,
    video_from_info,
)

from .scripted import crashcourse_info


@pytest.mark.corpus
def test_real_info_becomes_a_video() -> None:
    video = video_from_info(crashcourse_info())
    assert video.id == "youtube:fxZWtc0mYpQ"
    assert video.platform == "youtube"
    assert video.native_id == "fxZWtc0mYpQ"
    assert video.title == "Homunculus: Crash Course Psychology #6"
    assert video.channel == "CrashCourse"
    assert video.channel_id == "UCX6b17PVsYBQ0ip5gyeme-Q"
    assert video.url == "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
    assert video.duration == 623
    assert video.published == "2014-03-10"
    assert video.description.startswith("HOMUNCULUS!")
    assert video.thumbnail_url == "https://i.ytimg.com/vi/fxZWtc0mYpQ/maxresdefault.jpg"


@pytest.mark.corpus
def test_real_info_chapters() -> None:
    chapters = chapters_from_info(crashcourse_info())
    assert len(chapters) == 11
    assert chapters[0] == Chapter("Introduction: HOMUNCULUS", 0.0, 82.0)
    assert chapters[-1] == Chapter("Credits", 587.0, 623.0)
    assert all(a.end == b.start for a, b in pairwise(chapters))


def test_other_sites_use_the_extractor_key() -> None:
    vimeo = video_from_info(
        {"id": "76979871", "title": "t", "extractor": "vimeo", "extractor_key": "Vimeo"}
    )
    assert (vimeo.id, vimeo.platform) == ("vimeo:76979871", "vimeo")
    twitch = video_from_info({"id": "v1", "extractor": "twitch:vod", "extractor_key": "TwitchVod"})
    assert twitch.id == "twitchvod:v1"
    assert producer_of({"extractor": "twitch:vod", "extractor_key": "TwitchVod"}) == "twitch:vod"
    assert producer_of({"extractor": "youtube", "extractor_key": "Youtube"}) == "youtube"


def test_sparse_info_gets_defaults() -> None:
    video = video_from_info({"id": "abc", "extractor_key": "Generic", "uploader": "Someone"})
    assert video.id == "generic:abc"
    assert video.title == "abc"
    assert video.channel == "Someone"
    assert video.duration is None
    assert video.published is None


def test_missing_chapter_ends() -> None:
    info = {
        "duration": 300.5,
        "chapters": [
            {"start_time": 120, "title": "Two"},
            {"start_time": 0, "title": "One"},
            {"start_time": 200, "title": "Three", "end_time": None},
        ],
    }
    assert chapters_from_info(info) == [
        Chapter("One", 0, 120),
        Chapter("Two", 120, 200),
        Chapter("Three", 200, 300.5),
    ]
    assert chapters_from_info({"chapters": [{"start_time": 5, "title": "x"}]}) == [
        Chapter("x", 5, 5)
    ]
    assert chapters_from_info({"chapters": None}) == []


@pytest.mark.parametrize(
    ("raw", "iso"), [("20140310", "2014-03-10"), ("2014-03-10", None), (None, None), ("", None)]
)
def test_iso_date(raw: object, iso: str | None) -> None:
    assert iso_date(raw) == iso
