"""Deep links into a video: a subtitle file alone is no place to send a reader."""

from __future__ import annotations

import pytest

from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.ids import is_web, timestamp_url


def subtitle_only(url: str | None, path: str = "/videos/talk/captions.en.srt") -> Video:
    return Video(
        id="file:abc", title="Talk", platform="file", native_id="abc", url=url, source_path=path
    )


def test_a_subtitle_only_import_with_a_youtube_page_links_to_that_second() -> None:
    video = subtitle_only("https://youtu.be/eMlx5fFNoYc")
    assert timestamp_url(video, 83.7) == "https://www.youtube.com/watch?v=eMlx5fFNoYc&t=83s"


def test_a_subtitle_only_import_with_another_page_uses_a_media_fragment() -> None:
    assert timestamp_url(subtitle_only("https://example.org/talk"), 12) == (
        "https://example.org/talk#t=12"
    )


@pytest.mark.parametrize("url", [None, "", "file:///etc/passwd", "smb://host/share"])
def test_without_a_web_page_it_stays_the_local_file(url: str | None) -> None:
    assert timestamp_url(subtitle_only(url), 5).startswith("file://")


def test_local_media_links_to_the_media_even_with_a_page() -> None:
    video = subtitle_only("https://youtu.be/eMlx5fFNoYc", path="/videos/talk.mp4")
    assert timestamp_url(video, 5) == "file:///videos/talk.mp4#t=5"


def test_is_web() -> None:
    assert is_web("https://a.b/c") and is_web("http://a")
    assert not any(
        is_web(u) for u in (None, "", "file:///x", "smb://h/s", "javascript:x", "https://")
    )
