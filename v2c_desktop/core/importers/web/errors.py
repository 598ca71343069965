"""Turn yt-dlp's failures into typed errors a user (or an agent) can act on.

yt-dlp reports everything as a `DownloadError` whose text starts with `ERROR: [site] id:` and
often ends with advice about yt-dlp's own command-line flags. The user of v2c never sees yt-dlp,
so we keep the site's reason, drop yt-dlp's advice and say which v2c setting helps instead:
cookies from a browser (bot checks, age gates, sign-in walls, consent pages) or a proxy
(rate limits, region blocks). Network failures are said in plain words
(`could not reach example.invalid: the name does not resolve`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from ...errors import V2CError

# `{cookies}` and `{proxy}` are worded by each face (core/errors.render_hint).
BLOCKED_HINT = (
    "The site is refusing requests from this network. Wait a while, then use {cookies} or {proxy}."
)
SIGN_IN_HINT = "The site wants a signed-in viewer: use {cookies}."
AGE_HINT = "The video is age-restricted: use {cookies} with an account allowed to watch it."
CONSENT_HINT = (
    "The site answered with its cookie-consent page instead of the video. Accept it once in "
    "your browser, then use {cookies}; or use {proxy} outside the EU."
)
GEO_HINT = "The video is blocked in your region: use {proxy} in a region where it plays."
NOT_FOUND_HINT = (
    "Check the address. Private or removed videos cannot be imported; if you can watch it "
    "while signed in, use {cookies}."
)
UNSUPPORTED_HINT = (
    "v2c reads video pages of the sites yt-dlp supports (YouTube, Vimeo and many more). "
    "Check the address, or import a local video or subtitle file instead."
)
NETWORK_HINT = "Check your internet connection, or use {proxy}, then try again."
NAME_HINT = (
    "Check the address for typos and that this computer is online; on a network that only "
    "reaches the web through a proxy, use {proxy}."
)
REFUSED_HINT = "The site may be down: try again later, or use {proxy}."
TLS_HINT = (
    "Something between this computer and the site (a captive portal, a filtering proxy) "
    "answered instead of it. Check the network, or use {proxy}."
)
PROXY_HINT = "Check the proxy address and that the proxy is running, or clear {proxy}."

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# yt-dlp appends advice about its own flags and bug tracker; v2c gives its own hint instead.
_YTDLP_ADVICE = re.compile(
    r"\s*(?:\.\s*)?(?:Use --cookies|Also see\s|See\s+https://github\.com/yt-dlp|"
    r"; please report this issue|Confirm you are on the latest version).*$"
)
_PREFIX = re.compile(r"^(?:ERROR|WARNING):\s*")


def clean_message(message: str) -> str:
    """The first line of yt-dlp's text without colour codes, `ERROR:` or yt-dlp's CLI advice."""
    lines = [line for line in _ANSI.sub("", message).strip().splitlines() if line.strip()]
    first = lines[0].strip() if lines else ""
    first = _PREFIX.sub("", first)
    first = _YTDLP_ADVICE.sub("", first).strip()
    return first or "yt-dlp failed without a message"


def _normal(message: str) -> str:
    return message.replace("’", "'").replace("‘", "'").lower()


def _has(*needles: str) -> Callable[[str], bool]:
    return lambda text: any(needle in text for needle in needles)


# Checked in order: the first match wins, so the specific phrases come before "sign in".
_RULES: tuple[tuple[Callable[[str], bool], Callable[[str], V2CError]], ...] = (
    (
        _has("unsupported url"),
        lambda m: V2CError("unsupported-input", m, UNSUPPORTED_HINT),
    ),
    (
        _has("http error 429", "too many requests"),
        lambda m: V2CError("rate-limited", m, BLOCKED_HINT),
    ),
    (
        _has("not a bot", "unusual traffic", "captcha", "isn't available, try again later"),
        lambda m: V2CError("rate-limited", m, BLOCKED_HINT),
    ),
    (
        _has("consent.youtube.com", "consent.google", "before you continue to youtube"),
        lambda m: V2CError("upstream", m, CONSENT_HINT),
    ),
    (
        _has("private video", "video is private"),
        lambda m: V2CError("not-found", m, NOT_FOUND_HINT),
    ),
    (
        _has(
            "confirm your age",
            "age-restricted",
            "age restricted",
            "inappropriate for some users",
            "age_verification_required",
            "age_check_required",
        ),
        lambda m: V2CError("upstream", m, AGE_HINT),
    ),
    (
        _has(
            "video unavailable",
            "video is unavailable",
            "video is no longer available",
            "has been removed",
            "has been terminated",
            "does not exist",
            "http error 404",
            "http error 410",
        ),
        lambda m: V2CError("not-found", m, NOT_FOUND_HINT),
    ),
    (
        _has(
            "not available from your location",
            "not available in your country",
            "not made this video available in your country",
            "geo restriction",
        ),
        lambda m: V2CError("upstream", m, GEO_HINT),
    ),
    (
        _has(
            "sign in",
            "login_required",
            "login required",
            "members-only",
            "join this channel",
            "only available for registered users",
            "login details are needed",
        ),
        lambda m: V2CError("upstream", m, SIGN_IN_HINT),
    ),
)


#: Network failures in plain words: (needles in the lower-cased text, what happened, hint).
#: yt-dlp and httpx report them with the library's own text (`HTTPSConnection(host=...)`,
#: `caused by TransportError(...)`), which means nothing to a user.
_NETWORK: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("unable to connect to proxy", "proxyerror", "proxy error", "socks"),
        "could not connect to the proxy",
        PROXY_HINT,
    ),
    (
        (
            "failed to resolve",
            "name or service not known",
            "nodename nor servname",
            "getaddrinfo failed",
            "no address associated with hostname",
            "name does not resolve",
        ),
        "the name does not resolve",
        NAME_HINT,
    ),
    (
        ("temporary failure in name resolution",),
        "no name server answered (is this computer online?)",
        NETWORK_HINT,
    ),
    (("connection refused",), "the connection was refused", REFUSED_HINT),
    (("connection reset", "remote end closed"), "the connection was cut", NETWORK_HINT),
    (("network is unreachable", "no route to host"), "the network is unreachable", NETWORK_HINT),
    (("timed out", "timeout"), "it did not answer in time", NETWORK_HINT),
    (("certificate verify failed", "ssl:"), "its certificate could not be checked", TLS_HINT),
)
_HOST_IN_TEXT = re.compile(r"host='([^']+)'|resolve '([^']+)'")


def network_problem(message: str, *, url: str = "") -> V2CError | None:
    """`could not reach HOST: REASON` for a network failure, else None.

    The host comes from the URL the user gave, else from the library's text.
    """
    found = network_reason(message)
    if found is None:
        return None
    reason, hint = found
    host = _host_of(url, message)
    if hint is PROXY_HINT or not host:
        plain = reason[0].upper() + reason[1:]
    else:
        plain = f"Could not reach {host}: {reason}"
    return V2CError("upstream", plain, hint, _details(message, url))


def network_reason(message: str) -> tuple[str, str] | None:
    """(what happened in plain words, hint) for a network failure's text, else None."""
    text = _normal(message)
    for needles, reason, hint in _NETWORK:
        if any(needle in text for needle in needles):
            return reason, hint
    return None


def _host_of(url: str, message: str) -> str:
    host = urlparse(url).hostname if url else None
    if host:
        return host
    found = _HOST_IN_TEXT.search(message)
    return next((group for group in found.groups() if group), "") if found else ""


def known_problem(message: str, *, url: str = "") -> V2CError | None:
    """The typed error for a message we recognise, else None (so callers can fall back)."""
    cleaned = clean_message(message)
    text = _normal(message)
    for matches, build in _RULES:
        if matches(text):
            error = build(cleaned)
            error.details = _details(message, url)
            return error
    return network_problem(message, url=url)


def classify_message(message: str, *, url: str = "") -> V2CError:
    """The typed error for any yt-dlp message; unknown ones are `upstream` with yt-dlp's words."""
    error = known_problem(message, url=url)
    if error is not None:
        return error
    return V2CError(
        "upstream",
        clean_message(message),
        "The site or yt-dlp failed. Try again later; updating yt-dlp often helps.",
        _details(message, url),
    )


def map_ytdlp_error(exc: BaseException, *, url: str = "") -> V2CError:
    """The typed error for an exception raised by `YoutubeDL.extract_info`.

    The exception type is trusted first (yt-dlp wraps the extractor's error in a
    `DownloadError` and keeps the original in `exc_info`), then the message text.
    """
    if isinstance(exc, V2CError):
        return exc
    from yt_dlp.utils import GeoRestrictedError, UnsupportedError

    original: Any = exc
    exc_info = getattr(exc, "exc_info", None)
    if isinstance(exc_info, tuple) and len(exc_info) > 1 and exc_info[1] is not None:
        original = exc_info[1]
    message = str(exc) or str(original)
    if isinstance(original, UnsupportedError) or isinstance(exc, UnsupportedError):
        error = V2CError("unsupported-input", clean_message(message), UNSUPPORTED_HINT)
        error.details = _details(message, url)
        return error
    if isinstance(original, GeoRestrictedError) or isinstance(exc, GeoRestrictedError):
        error = V2CError("upstream", clean_message(message), GEO_HINT)
        error.details = _details(message, url)
        return error
    return classify_message(message, url=url)


def _details(message: str, url: str) -> dict[str, Any]:
    lines = _ANSI.sub("", message).strip().splitlines()
    details: dict[str, Any] = {"ytdlp": lines[0].strip() if lines else ""}
    if url:
        details["url"] = url
    return details
