"""YtDlpInfoSource: the options it gives yt-dlp and how it reports yt-dlp's failures."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from yt_dlp.cookies import CookieLoadError
from yt_dlp.utils import DownloadError

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.info_source import (
    YtDlpInfoSource,
    parse_cookies_from_browser,
)
from v2c_desktop.core.importers.web.settings import WebSettings

from .local_site import serving
from .scripted import YTDLP_LOGIN_HINT, ytdlp_error

URL = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"


class FakeYoutubeDL:
    """Stands in for `yt_dlp.YoutubeDL`: records options, then runs a scripted behaviour."""

    def __init__(
        self, options: dict[str, Any], behaviour: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> None:
        self.options = options
        self.behaviour = behaviour

    def __enter__(self) -> FakeYoutubeDL:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def extract_info(self, url: str, download: bool = True) -> dict[str, Any]:
        assert download is False
        return self.behaviour(self.options)

    def sanitize_info(self, info: dict[str, Any]) -> dict[str, Any]:
        return dict(info)


def source_with(
    behaviour: Callable[[dict[str, Any]], dict[str, Any]], settings: WebSettings | None = None
) -> tuple[YtDlpInfoSource, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []

    def factory(options: dict[str, Any]) -> FakeYoutubeDL:
        seen.append(options)
        return FakeYoutubeDL(options, behaviour)

    return YtDlpInfoSource(settings, factory=factory), seen


def test_options_for_a_video_carry_the_settings() -> None:
    settings = WebSettings(
        cookies_from_browser="firefox", proxy="socks5://127.0.0.1:1080", timeout=12
    )
    source, seen = source_with(lambda _: {"id": "x", "subtitles": {"en": []}}, settings)
    asyncio.run(source.extract(URL))
    options = seen[0]
    assert options["cookiesfrombrowser"] == ("firefox", None, None, None)
    assert options["proxy"] == "socks5://127.0.0.1:1080"
    assert options["socket_timeout"] == 12
    assert options["skip_download"] is True
    assert options["quiet"] is True
    assert options["noplaylist"] is True
    assert options["extract_flat"] is False
    assert options["ignore_no_formats_error"] is True


def test_options_for_a_playlist_are_flat_and_without_cookies_by_default() -> None:
    source, seen = source_with(lambda _: {"_type": "playlist", "entries": []})
    asyncio.run(source.extract("https://www.youtube.com/@crashcourse", flat=True))
    assert seen[0]["extract_flat"] == "in_playlist"
    assert seen[0]["noplaylist"] is False
    assert "cookiesfrombrowser" not in seen[0]
    assert "proxy" not in seen[0]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("firefox", ("firefox", None, None, None)),
        ("Chrome:Profile 1", ("chrome", "Profile 1", None, None)),
        ("chromium+gnomekeyring:Default", ("chromium", "Default", "GNOMEKEYRING", None)),
        ("firefox::none", ("firefox", None, None, "none")),
    ],
)
def test_cookie_setting_uses_ytdlp_syntax(
    spec: str, expected: tuple[str, str | None, str | None, str | None]
) -> None:
    assert parse_cookies_from_browser(spec) == expected


@pytest.mark.parametrize("spec", ["netscape", "chrome+nokeyring"])
def test_bad_cookie_setting_is_bad_request(spec: str) -> None:
    source, _ = source_with(lambda _: {}, WebSettings(cookies_from_browser=spec))
    with pytest.raises(V2CError) as caught:
        asyncio.run(source.extract(URL))
    assert caught.value.code == "bad-request"
    assert "Settings → Imports → Cookies from browser" in caught.value.hint_for("app")
    assert "`--cookies-from-browser`" in caught.value.hint_for("cli")


def test_download_error_is_mapped() -> None:
    reason = f"Sign in to confirm you’re not a bot. {YTDLP_LOGIN_HINT}"

    def fail(_: dict[str, Any]) -> dict[str, Any]:
        raise ytdlp_error(reason, video_id="fxZWtc0mYpQ")

    source, _ = source_with(fail)
    with pytest.raises(V2CError) as caught:
        asyncio.run(source.extract(URL))
    assert caught.value.code == "rate-limited"
    assert caught.value.details["url"] == URL


def test_unreadable_browser_cookies_are_a_settings_problem() -> None:
    def fail(_: dict[str, Any]) -> dict[str, Any]:
        try:
            raise CookieLoadError("could not find firefox cookies database")
        except CookieLoadError:
            import sys

            raise DownloadError(
                "ERROR: could not find firefox cookies database", sys.exc_info()
            ) from None

    source, _ = source_with(fail, WebSettings(cookies_from_browser="firefox"))
    with pytest.raises(V2CError) as caught:
        asyncio.run(source.extract(URL))
    assert caught.value.code == "bad-request"
    assert "firefox cookies database" in caught.value.message


def test_refusal_hidden_in_a_warning_is_raised_when_nothing_came_back() -> None:
    # With ignore_no_formats_error yt-dlp only warns about YouTube's refusal.
    def warn(options: dict[str, Any]) -> dict[str, Any]:
        options["logger"].warning(
            f"[youtube] fxZWtc0mYpQ: Sign in to confirm you’re not a bot. {YTDLP_LOGIN_HINT}"
        )
        return {"id": "fxZWtc0mYpQ", "formats": [], "subtitles": {}, "automatic_captions": {}}

    source, _ = source_with(warn)
    with pytest.raises(V2CError) as caught:
        asyncio.run(source.extract(URL))
    assert caught.value.code == "rate-limited"


def test_warnings_do_not_matter_when_captions_came_back() -> None:
    def warn(options: dict[str, Any]) -> dict[str, Any]:
        options["logger"].warning("[youtube] fxZWtc0mYpQ: Video unavailable in some formats")
        return {"id": "fxZWtc0mYpQ", "formats": [], "subtitles": {"en": [{"url": "u"}]}}

    source, _ = source_with(warn)
    assert asyncio.run(source.extract(URL))["id"] == "fxZWtc0mYpQ"


# --- the real yt-dlp, against a web server on this machine -------------------------------


@pytest.fixture
def local_site() -> Iterator[str]:
    with serving() as base:
        yield base


@pytest.mark.parametrize(
    ("path", "code"),
    [("/page", "unsupported-input"), ("/busy", "rate-limited"), ("/gone", "not-found")],
)
def test_real_ytdlp_failures_are_typed(local_site: str, path: str, code: str) -> None:
    source = YtDlpInfoSource(WebSettings(timeout=10))
    with pytest.raises(V2CError) as caught:
        asyncio.run(source.extract(local_site + path))
    assert caught.value.code == code
    assert "\n" not in caught.value.message
