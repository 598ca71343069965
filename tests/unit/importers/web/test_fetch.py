"""Caption downloads: recorded YouTube refusal pages replayed through httpx.MockTransport."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.fetch import (
    USER_AGENT,
    fetch_caption,
    make_http_client,
    retry_after_seconds,
)
from v2c_desktop.core.importers.web.settings import WebSettings

from .scripted import FIXTURES

URL = "https://www.youtube.com/api/timedtext?v=fxZWtc0mYpQ&caps=asr&lang=en&fmt=json3"
TOO_MANY = (FIXTURES / "youtube_too_many_requests.html").read_bytes()
CONSENT = (FIXTURES / "youtube_consent_page.html").read_bytes()
HTML = {"content-type": "text/html; charset=utf-8"}

Handler = Callable[[httpx.Request], httpx.Response]


def fetch(handler: Handler, url: str = URL, client: httpx.AsyncClient | None = None) -> str:
    async def run() -> str:
        async with client or httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
            return await fetch_caption(http, url, timeout=5)

    return asyncio.run(run())


def failure(handler: Handler) -> V2CError:
    with pytest.raises(V2CError) as caught:
        fetch(handler)
    return caught.value


def test_caption_payload_is_returned_and_a_browser_agent_is_sent() -> None:
    seen: list[httpx.Request] = []

    def serve(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"events": [{"tStartMs": 0, "segs": [{"utf8": "Hi"}]}]})

    assert '"utf8":"Hi"' in fetch(serve).replace(" ", "")
    assert str(seen[0].url) == URL
    assert seen[0].headers["user-agent"] == USER_AGENT


def test_a_client_with_its_own_agent_keeps_it() -> None:
    seen: list[str] = []

    def serve(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["user-agent"])
        return httpx.Response(200, text="WEBVTT\n")

    client = httpx.AsyncClient(
        transport=httpx.MockTransport(serve), headers={"User-Agent": "v2c-test/1"}
    )
    fetch(serve, client=client)
    assert seen == ["v2c-test/1"]


def test_recorded_429_page_is_rate_limited_with_retry_after() -> None:
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, content=TOO_MANY, headers={**HTML, "Retry-After": "120"})

    error = failure(serve)
    assert error.code == "rate-limited"
    assert "retry after 120 s" in error.message
    assert error.details["retry_after_seconds"] == 120
    assert error.details["retry_after"] == "120"
    assert "--cookies-from-browser firefox" in error.hint_for("cli")
    assert "proxy" in error.hint.lower()


def test_429_without_retry_after() -> None:
    error = failure(lambda request: httpx.Response(429, content=TOO_MANY, headers=HTML))
    assert error.code == "rate-limited"
    assert "retry_after_seconds" not in error.details


def test_recorded_captcha_page_with_status_200_is_rate_limited() -> None:
    error = failure(lambda request: httpx.Response(200, content=TOO_MANY, headers=HTML))
    assert error.code == "rate-limited"
    assert "captcha" in error.message


def test_redirect_to_recorded_consent_page_is_upstream_with_cookies_hint() -> None:
    consent_url = "https://consent.youtube.com/m?continue=https%3A%2F%2Fwww.youtube.com"

    def serve(request: httpx.Request) -> httpx.Response:
        if request.url.host == "consent.youtube.com":
            return httpx.Response(200, content=CONSENT, headers=HTML)
        return httpx.Response(302, headers={"Location": consent_url})

    error = failure(serve)
    assert error.code == "upstream"
    assert "consent" in error.message
    assert "--cookies-from-browser firefox" in error.hint_for("cli")
    assert error.details["final_url"] == consent_url


def test_recorded_consent_page_served_in_place_is_upstream() -> None:
    error = failure(lambda request: httpx.Response(200, content=CONSENT, headers=HTML))
    assert error.code == "upstream"
    assert "cookie-consent" in error.message


def test_google_sorry_redirect_is_rate_limited() -> None:
    def serve(request: httpx.Request) -> httpx.Response:
        if request.url.host == "www.google.com":
            return httpx.Response(
                200, text="We're sorry...", headers={"content-type": "text/plain"}
            )
        return httpx.Response(302, headers={"Location": "https://www.google.com/sorry/index?q=1"})

    assert failure(serve).code == "rate-limited"


@pytest.mark.parametrize("status", [403, 404, 500, 503])
def test_other_http_errors_are_upstream(status: int) -> None:
    error = failure(lambda request: httpx.Response(status, text="nope"))
    assert error.code == "upstream"
    assert f"HTTP {status}" in error.message
    assert error.details["status"] == status


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (
            httpx.ConnectError("[Errno -3] Temporary failure in name resolution"),
            "no name server answered (is this computer online?)",
        ),
        (httpx.ConnectError("[Errno -2] Name or service not known"), "the name does not resolve"),
        (httpx.ConnectError("[Errno 111] Connection refused"), "the connection was refused"),
        (httpx.ProxyError("502 Bad Gateway"), "could not connect to the proxy"),
        (httpx.ReadTimeout("timed out"), "it did not answer in time"),
    ],
)
def test_network_errors_say_what_happened_in_plain_words(exc: httpx.HTTPError, reason: str) -> None:
    def serve(request: httpx.Request) -> httpx.Response:
        raise exc

    error = failure(serve)
    assert error.code == "upstream"
    assert error.message.endswith(f": {reason}"), error.message
    assert "proxy" in error.hint_for("cli") and "`--proxy URL`" in error.hint_for("cli")
    assert "Settings → Imports → Proxy" in error.hint_for("app")


@pytest.mark.parametrize("body", [b"", b"  \n"])
def test_empty_payload_is_no_transcript(body: bytes) -> None:
    error = failure(lambda request: httpx.Response(200, content=body))
    assert error.code == "no-transcript"


def test_retry_after_http_date() -> None:
    now = datetime(2026, 1, 21, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("Wed, 21 Jan 2026 12:01:30 GMT", now=now) == 90
    assert retry_after_seconds("garbage", now=now) is None
    assert retry_after_seconds(None) is None


def test_make_http_client_applies_settings() -> None:
    async def run() -> None:
        client = make_http_client(WebSettings(proxy="http://127.0.0.1:3128", timeout=7))
        async with client:
            assert client.follow_redirects is True
            assert client.timeout.read == 7
            assert client.headers["user-agent"] == USER_AGENT

    asyncio.run(run())
