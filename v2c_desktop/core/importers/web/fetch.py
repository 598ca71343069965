"""Download one caption payload and tell a real caption file from the pages sites send instead.

A blocked request to YouTube rarely fails cleanly: it may answer 429, redirect to a cookie
consent page, or serve a captcha page with status 200. Each needs a different remedy, so each
becomes a different error before any parser sees HTML and reports a confusing syntax error.
The HTTP client is injected so the app shares one connection pool and tests replay pages.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlparse

import httpx

from ...errors import V2CError
from .errors import BLOCKED_HINT, CONSENT_HINT, NETWORK_HINT, network_reason
from .settings import WebSettings

# A browser-like agent: some sites answer unknown clients with an error page.
USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"
)
EMPTY_HINT = (
    "The site sent an empty caption file; YouTube does this when it wants extra proof that a "
    "browser is asking, or when the track was withdrawn. Try again later, or import a subtitle "
    "file with the video instead."
)
_HTML_START = re.compile(rb"^\s*(?:<!doctype\s+html|<html|<head|<body)", re.IGNORECASE)
_CONSENT_MARKERS = (b"consent.youtube.com", b"consent.google.com")
_CAPTCHA_MARKERS = (b"g-recaptcha", b"captcha", b"unusual traffic", b"/sorry/index")


def make_http_client(settings: WebSettings) -> httpx.AsyncClient:
    """The client the app should inject: the user's proxy, a timeout and a browser agent."""
    return httpx.AsyncClient(
        proxy=settings.proxy or None,
        timeout=httpx.Timeout(settings.timeout),
        follow_redirects=True,
        headers={"User-Agent": USER_AGENT, "Accept-Language": "en-US,en;q=0.9"},
    )


async def fetch_caption(http: httpx.AsyncClient, url: str, *, timeout: float = 30) -> str:
    """The caption file at `url` as text; refusals, errors and empty files raise `V2CError`."""
    headers: dict[str, str] = {}
    if http.headers.get("user-agent", "").startswith("python-httpx"):
        headers["User-Agent"] = USER_AGENT
    try:
        response = await http.get(url, headers=headers, timeout=timeout, follow_redirects=True)
    except httpx.TimeoutException as exc:
        raise _network_error(
            f"Timed out downloading captions from {_host(url)}", url, exc
        ) from None
    except httpx.HTTPError as exc:  # connection, proxy, TLS, too many redirects
        raise _network_error(f"Could not download captions from {_host(url)}", url, exc) from None
    return classify_response(response, url)


def classify_response(response: httpx.Response, url: str) -> str:
    """The body of a genuine caption response; any other response becomes a typed error."""
    body = response.content
    final_url = str(response.url)
    details: dict[str, Any] = {"url": url, "status": response.status_code}
    if final_url != url:
        details["final_url"] = final_url
    if response.status_code == 429:
        raise _rate_limited(response, details)
    if _is_consent(response, final_url):
        raise V2CError(
            "upstream",
            f"{_host(url)} showed its cookie-consent page instead of the captions",
            CONSENT_HINT,
            details,
        )
    if _looks_like_html(body) and any(m in body.lower() for m in _CAPTCHA_MARKERS):
        raise V2CError(
            "rate-limited",
            f"{_host(url)} asked for a captcha (it saw unusual traffic from this network)",
            BLOCKED_HINT,
            details,
        )
    if "/sorry/" in urlparse(final_url).path:
        raise V2CError(
            "rate-limited", f"{_host(url)} is blocking this network", BLOCKED_HINT, details
        )
    if response.status_code >= 400:
        raise V2CError(
            "upstream",
            f"{_host(url)} answered HTTP {response.status_code} {response.reason_phrase} "
            "for the captions",
            "Try again later. If it keeps failing, the track may have been withdrawn.",
            details,
        )
    if not body.strip():
        raise V2CError(
            "no-transcript", f"{_host(url)} sent an empty caption file", EMPTY_HINT, details
        )
    return response.text


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> int | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0, int((when - (now or datetime.now(UTC))).total_seconds()))


def _rate_limited(response: httpx.Response, details: dict[str, Any]) -> V2CError:
    raw = response.headers.get("retry-after")
    seconds = retry_after_seconds(raw)
    message = f"{_host(str(response.request.url))} is rate-limiting requests (HTTP 429)"
    if raw:
        details["retry_after"] = raw
    if seconds is not None:
        details["retry_after_seconds"] = seconds
        message += f"; it asks to retry after {seconds} s"
    return V2CError("rate-limited", message, BLOCKED_HINT, details)


def _is_consent(response: httpx.Response, final_url: str) -> bool:
    hosts = [urlparse(final_url).hostname or ""]
    hosts += [urlparse(r.headers.get("location", "")).hostname or "" for r in response.history]
    if any(h.startswith("consent.") for h in hosts):
        return True
    body = response.content
    return _looks_like_html(body) and any(m in body for m in _CONSENT_MARKERS)


def _looks_like_html(body: bytes) -> bool:
    return bool(_HTML_START.match(body[:512]))


def _host(url: str) -> str:
    host = (urlparse(url).hostname or "").lower()
    if host == "youtube.com" or host.endswith(".youtube.com"):
        return "YouTube"
    return host or "the site"


def _network_error(message: str, url: str, exc: Exception) -> V2CError:
    """`message: what happened`, in plain words where the failure is a known kind."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    found = network_reason(f"{type(exc).__name__}: {text}")
    reason, hint = found if found else (text or type(exc).__name__, NETWORK_HINT)
    return V2CError("upstream", f"{message}: {reason}", hint, {"url": url, "error": text})
