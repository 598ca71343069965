"""Turn yt-dlp's failures into typed errors a user (or an agent) can act on.

yt-dlp reports everything as a `DownloadError` whose text starts with `ERROR: [site] id:` and
often ends with advice about yt-dlp's own command-line flags. The user of v2c never sees yt-dlp,
so we keep the site's reason, drop yt-dlp's advice and say which v2c setting helps instead:
cookies from a browser (bot checks, age gates, sign-in walls, consent pages) or a proxy
(rate limits, region blocks).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...errors import V2CError

COOKIES_SETTING = (
    "cookies from a browser where you are signed in (Settings → Web → Cookies from browser, "
    "or `--cookies-from-browser firefox`)"
)
PROXY_SETTING = "a proxy (Settings → Web → Proxy, or `--proxy URL`)"

BLOCKED_HINT = (
    f"The site is refusing requests from this network. Wait a while, then use {COOKIES_SETTING} "
    f"or {PROXY_SETTING}."
)
SIGN_IN_HINT = f"The site wants a signed-in viewer: use {COOKIES_SETTING}."
AGE_HINT = (
    f"The video is age-restricted: use {COOKIES_SETTING} with an account allowed to watch it."
)
CONSENT_HINT = (
    "The site answered with its cookie-consent page instead of the video. Accept it once in "
    f"your browser, then use {COOKIES_SETTING}; or use {PROXY_SETTING} outside the EU."
)
GEO_HINT = f"The video is blocked in your region: use {PROXY_SETTING} in a region where it plays."
NOT_FOUND_HINT = (
    "Check the address. Private or removed videos cannot be imported; if you can watch it "
    f"while signed in, use {COOKIES_SETTING}."
)
UNSUPPORTED_HINT = (
    "v2c reads video pages of the sites yt-dlp supports (YouTube, Vimeo and many more). "
    "Check the address, or import a local video or subtitle file instead."
)
NETWORK_HINT = f"Check your connection or {PROXY_SETTING}, then try again."

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
    (
        _has(
            "timed out",
            "name or service not known",
            "temporary failure in name resolution",
            "nodename nor servname",
            "getaddrinfo failed",
            "connection refused",
            "connection reset",
            "network is unreachable",
            "unable to connect to proxy",
            "certificate verify failed",
        ),
        lambda m: V2CError("upstream", m, NETWORK_HINT),
    ),
)


def known_problem(message: str, *, url: str = "") -> V2CError | None:
    """The typed error for a message we recognise, else None (so callers can fall back)."""
    cleaned = clean_message(message)
    text = _normal(message)
    for matches, build in _RULES:
        if matches(text):
            error = build(cleaned)
            error.details = _details(message, url)
            return error
    return None


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
