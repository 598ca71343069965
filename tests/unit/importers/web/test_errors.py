"""yt-dlp failures → typed errors, using the reasons YouTube really sent (recorded InnerTube)."""

from __future__ import annotations

import asyncio
import sys

import httpx
import pytest
from yt_dlp.utils import DownloadError, ExtractorError, GeoRestrictedError, UnsupportedError

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.errors import clean_message, map_ytdlp_error
from v2c_desktop.core.importers.web.importer import fetch_web_video
from v2c_desktop.core.importers.web.settings import WebSettings

from .scripted import ScriptedInfoSource, playability, ytdlp_error, ytdlp_reason

URL = "https://www.youtube.com/watch?v=Njp5uhTorCo"


def _via_importer(exc: BaseException) -> V2CError:
    """Run the import with a source that raises `exc`, as a yt-dlp based source would."""
    source = ScriptedInfoSource({URL: exc})

    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"no caption download expected, got {request.url}")

    async def run() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
            await fetch_web_video(URL, info_source=source, http=http, settings=WebSettings())

    with pytest.raises(V2CError) as caught:
        asyncio.run(run())
    return caught.value


def _assert_clean(error: V2CError) -> None:
    assert "\n" not in error.message
    assert not error.message.startswith("ERROR")
    assert "Use --cookies" not in error.message  # yt-dlp's CLI advice is replaced by our hint
    assert "Traceback" not in error.message


def _names_settings(error: V2CError, *, proxy: bool) -> None:
    """The CLI's hint names flags and no menu; the app's names its settings and no flag."""
    cli, app = error.hint_for("cli"), error.hint_for("app")
    assert "--cookies-from-browser firefox" in cli and "Settings" not in cli
    assert "Settings → Imports → Cookies from browser" in app and "--" not in app
    if proxy:
        assert "`--proxy URL`" in cli and "Settings → Imports → Proxy" in app


@pytest.mark.corpus
def test_bot_check_recorded_reason_is_rate_limited() -> None:
    reason = ytdlp_reason(playability("youtube_request_blocked"))
    assert reason.startswith("Sign in to confirm you’re not a bot. Use --cookies-from-browser")
    error = _via_importer(ytdlp_error(reason))
    assert error.code == "rate-limited"
    assert error.message == "[youtube] Njp5uhTorCo: Sign in to confirm you’re not a bot"
    _assert_clean(error)
    _names_settings(error, proxy=True)
    assert error.details["url"] == URL
    assert error.details["ytdlp"].startswith("ERROR: [youtube] Njp5uhTorCo: Sign in to confirm")


@pytest.mark.corpus
def test_bot_check_with_ascii_apostrophe_is_rate_limited() -> None:
    reason = ytdlp_reason(playability("youtube_request_blocked")).replace("’", "'")
    error = _via_importer(ytdlp_error(reason))
    assert error.code == "rate-limited"
    _names_settings(error, proxy=True)


@pytest.mark.corpus
def test_age_gate_recorded_reason_is_upstream_with_cookies_hint() -> None:
    status = playability("youtube_age_restricted")
    assert status["status"] == "LOGIN_REQUIRED"
    error = _via_importer(ytdlp_error(ytdlp_reason(status)))
    assert error.code == "upstream"
    assert "inappropriate for some users" in error.message
    assert "age-restricted" in error.hint
    _names_settings(error, proxy=False)


@pytest.mark.corpus
def test_sign_in_to_confirm_your_age_is_upstream_with_cookies_hint() -> None:
    recorded = playability("youtube_age_restricted")["reason"]
    reason = ytdlp_reason({"reason": f"Sign in to confirm your age. {recorded}"})
    error = _via_importer(ytdlp_error(reason))
    assert error.code == "upstream"
    assert error.message.startswith("[youtube] Njp5uhTorCo: Sign in to confirm your age.")
    _assert_clean(error)
    _names_settings(error, proxy=False)


@pytest.mark.corpus
def test_unavailable_video_is_not_found() -> None:
    reason = ytdlp_reason(playability("youtube_video_unavailable"))
    assert reason == "This video is unavailable"
    error = _via_importer(ytdlp_error(reason))
    assert error.code == "not-found"
    assert error.message == "[youtube] Njp5uhTorCo: This video is unavailable"


@pytest.mark.corpus
def test_unknown_reason_is_upstream_with_ytdlp_words() -> None:
    status = playability("youtube_unplayable")
    error = _via_importer(ytdlp_error(status["reason"]))
    assert error.code == "upstream"
    assert error.message == "[youtube] Njp5uhTorCo: Custom Reason"


@pytest.mark.corpus
def test_unplayable_screen_with_bot_reason_is_rate_limited() -> None:
    # yt-dlp prefers the error screen's reason over the status reason ("Custom Reason").
    reason = ytdlp_reason(playability("youtube_unplayable"))
    assert reason.startswith("Sign in to confirm you’re not a bot. Sub Reason 1Sub Reason 2")
    assert _via_importer(ytdlp_error(reason)).code == "rate-limited"


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        (
            "Unable to download API page: HTTP Error 429: Too Many Requests "
            "(caused by <HTTPError 429: Too Many Requests>)",
            "rate-limited",
        ),
        ("Private video. Sign in if you've been granted access to this video", "not-found"),
        ("This video has been removed by the uploader", "not-found"),
        ("Video unavailable. This video is no longer available", "not-found"),
        (
            "This content isn't available, try again later. The current session has been "
            "rate-limited by YouTube for up to an hour.",
            "rate-limited",
        ),
        (
            "Unable to download webpage: redirected to https://consent.youtube.com/m?continue=x",
            "upstream",
        ),
        ("Join this channel to get access to members-only content like this video", "upstream"),
    ],
)
def test_reason_texts_map_to_codes(reason: str, code: str) -> None:
    error = _via_importer(ytdlp_error(reason))
    assert error.code == code
    _assert_clean(error)
    if code in ("rate-limited", "upstream"):
        assert "--cookies-from-browser firefox" in error.hint_for("cli")


def test_consent_hint_names_cookies_and_proxy() -> None:
    error = map_ytdlp_error(ytdlp_error("redirected to https://consent.youtube.com/m"))
    assert error.code == "upstream"
    assert "consent" in error.hint
    _names_settings(error, proxy=True)


def test_unsupported_url_is_unsupported_input() -> None:
    try:
        raise UnsupportedError("https://example.org/not-a-video")
    except UnsupportedError as exc:
        wrapped = DownloadError(f"ERROR: {exc}", sys.exc_info())
    error = _via_importer(wrapped)
    assert error.code == "unsupported-input"
    assert error.message == "Unsupported URL: https://example.org/not-a-video"


def test_unexpected_extractor_failure_keeps_first_line_only() -> None:
    try:
        raise ExtractorError(
            "Unable to extract initial player response", video_id="x", ie="youtube"
        )
    except ExtractorError as exc:
        message = f"ERROR: {exc}\nTraceback (most recent call last):\n  File ..."
        wrapped = DownloadError(message, sys.exc_info())
    error = _via_importer(wrapped)
    assert error.code == "upstream"
    assert error.message == "[youtube] x: Unable to extract initial player response"
    _assert_clean(error)


def test_geo_restriction_type_is_upstream_with_proxy_hint() -> None:
    try:
        raise GeoRestrictedError("The uploader has not made this video available in your country")
    except GeoRestrictedError as exc:
        wrapped = DownloadError(f"ERROR: {exc}", sys.exc_info())
    error = map_ytdlp_error(wrapped, url=URL)
    assert error.code == "upstream"
    assert "proxy" in error.hint.lower()


def test_clean_message_strips_colour_and_prefix() -> None:
    assert clean_message("\x1b[0;31mERROR:\x1b[0m [vimeo] 1: boom\nmore") == "[vimeo] 1: boom"
    assert clean_message("") == "yt-dlp failed without a message"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "ERROR: [generic] x: Unable to download webpage: HTTPSConnection(host='example."
            "invalid', port=443): Failed to resolve 'example.invalid' ([Errno -2] Name or "
            "service not known) (caused by TransportError(\"HTTPSConnection(host='example."
            "invalid', port=443): Failed to resolve 'example.invalid' ([Errno -2] Name or "
            'service not known)"))',
            "Could not reach example.invalid: the name does not resolve",
        ),
        (
            "ERROR: [youtube] abc: Unable to download API page: <urlopen error [Errno 111] "
            "Connection refused> (caused by TransportError(...))",
            "Could not reach www.youtube.com: the connection was refused",
        ),
        (
            "ERROR: [vimeo] 1: Unable to download JSON metadata: The read operation timed out",
            "Could not reach www.youtube.com: it did not answer in time",
        ),
    ],
)
def test_network_failures_are_plain_words_not_library_text(text: str, message: str) -> None:
    """yt-dlp's raw text (`HTTPSConnection(...)`, `TransportError`) never reaches a user."""
    error = map_ytdlp_error(ytdlp_error(text), url="https://www.youtube.com/watch?v=abc")
    if "example.invalid" in text:
        error = map_ytdlp_error(ytdlp_error(text))  # no URL: the host comes from the text
    assert error.code == "upstream"
    assert error.message == message
    for face in ("cli", "app", "agent"):
        hint = error.hint_for(face)
        assert "HTTPSConnection" not in hint and "{" not in hint
    assert "`--proxy URL`" in error.hint_for("cli")
    assert "Settings → Imports → Proxy" in error.hint_for("app")
    assert error.details["ytdlp"].startswith("ERROR:")  # the original kept for a bug report
