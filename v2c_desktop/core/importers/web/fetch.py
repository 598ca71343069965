"""Download one caption payload and tell a real caption file from the pages sites send instead.

A blocked request to YouTube rarely fails cleanly: it may answer 429, redirect to a cookie
consent page, or serve a captcha page with status 200. Each needs a different remedy, so each
becomes a different error before any parser sees HTML and reports a confusing syntax error.
The HTTP client is injected so the app shares one connection pool and tests replay pages.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlparse

import httpx

from ...errors import V2CError
from ...file_kinds import WEB_CAPTION_DEADLINE_S, WEB_CAPTION_MAX_BYTES, size_text
from .errors import BLOCKED_HINT, CONSENT_HINT, NETWORK_HINT, network_reason
from .hosts import HostGuard
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
MAX_REDIRECTS = 20  # httpx's own limit
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


async def fetch_caption(
    http: httpx.AsyncClient,
    url: str,
    *,
    timeout: float = 30,
    max_bytes: int = WEB_CAPTION_MAX_BYTES,
    deadline: float = WEB_CAPTION_DEADLINE_S,
    guard: HostGuard | None = None,
) -> str:
    """The caption file at `url` as text; refusals, errors and empty files raise `V2CError`.

    `guard` (an agent's import) checks the URL and every redirect hop before it is requested.

    `timeout` bounds each wait on the network; `deadline` the whole download, however slowly
    it trickles in; at most `max_bytes` of it are kept (a bigger one fails, it is no caption
    track). The site is untrusted: the body is read in pieces, never whole first.
    """
    headers: dict[str, str] = {}
    if http.headers.get("user-agent", "").startswith("python-httpx"):
        headers["User-Agent"] = USER_AGENT
    try:
        async with asyncio.timeout(deadline):
            response, body = await _get(http, url, headers, timeout, max_bytes, guard)
    except httpx.TimeoutException as exc:
        raise network_error(f"Timed out downloading captions from {_host(url)}", url, exc) from None
    except TimeoutError:
        raise V2CError(
            "upstream",
            f"Downloading captions from {_host(url)} took longer than {deadline:g} s, "
            "so it was stopped",
            "The site is sending them very slowly, or without end. Try again later.",
            {"url": url, "deadline_s": deadline},
        ) from None
    except httpx.HTTPError as exc:  # connection, proxy, TLS, too many redirects
        raise network_error(f"Could not download captions from {_host(url)}", url, exc) from None
    return classify_response(response, url, body)


async def _get(
    http: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    timeout: float,
    max_bytes: int,
    guard: HostGuard | None,
) -> tuple[httpx.Response, bytes]:
    """The response to GET `url` and its capped body, following redirects.

    With a `guard`, redirects are followed here one hop at a time, each hop checked before
    it is requested; without, httpx follows them.
    """
    history: list[httpx.Response] = []
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        if guard is not None:
            what = "a redirect of the caption track" if history else "the caption track"
            await guard.check(current, what)
        async with http.stream(
            "GET", current, headers=headers, timeout=timeout, follow_redirects=guard is None
        ) as response:
            location = response.headers.get("location")
            if guard is not None and response.is_redirect and location:
                history.append(response)
                current = str(response.url.join(location))
                continue
            body = await _read_capped(response, url, max_bytes)
            if history:
                response.history = history + list(response.history)
            return response, body
    raise httpx.TooManyRedirects("Exceeded maximum allowed redirects.", request=response.request)


async def _read_capped(response: httpx.Response, url: str, max_bytes: int) -> bytes:
    """The (decoded) body, refused as soon as it is known to be larger than `max_bytes`."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _too_big(url, max_bytes, int(declared))
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise _too_big(url, max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_big(url: str, max_bytes: int, size: int | None = None) -> V2CError:
    said = f"{size_text(size)} of captions" if size else "more captions than that"
    return V2CError(
        "upstream",
        f"{_host(url)} sent {said}; a caption track may be at most {size_text(max_bytes)}, "
        "so it was not imported",
        "This is not a real caption track. Pick another language or track, or import a "
        "subtitle file with the video instead.",
        {"url": url, "max_bytes": max_bytes},
    )


def classify_response(response: httpx.Response, url: str, body: bytes | None = None) -> str:
    """The body of a genuine caption response; any other response becomes a typed error.

    `body` is the response's content when it was streamed (the response is then not read).
    """
    if body is None:
        body = response.content
    final_url = str(response.url)
    details: dict[str, Any] = {"url": url, "status": response.status_code}
    if final_url != url:
        details["final_url"] = final_url
    if response.status_code == 429:
        raise _rate_limited(response, details)
    if _is_consent(response, final_url, body):
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
    return body.decode(response.encoding or "utf-8", errors="replace")


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


def _is_consent(response: httpx.Response, final_url: str, body: bytes) -> bool:
    hosts = [urlparse(final_url).hostname or ""]
    hosts += [urlparse(r.headers.get("location", "")).hostname or "" for r in response.history]
    if any(h.startswith("consent.") for h in hosts):
        return True
    return _looks_like_html(body) and any(m in body for m in _CONSENT_MARKERS)


def _looks_like_html(body: bytes) -> bool:
    return bool(_HTML_START.match(body[:512]))


def _host(url: str) -> str:
    host = (urlparse(url).hostname or "").lower()
    if host == "youtube.com" or host.endswith(".youtube.com"):
        return "YouTube"
    return host or "the site"


def network_error(message: str, url: str, exc: Exception) -> V2CError:
    """`message: what happened`, in plain words where the failure is a known kind."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    found = network_reason(f"{type(exc).__name__}: {text}")
    reason, hint = found if found else (text or type(exc).__name__, NETWORK_HINT)
    return V2CError("upstream", f"{message}: {reason}", hint, {"url": url, "error": text})
