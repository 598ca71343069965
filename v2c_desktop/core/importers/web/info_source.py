"""Where video metadata comes from: yt-dlp's info dict, behind a one-method protocol.

The importer only needs "give me the info dict for this URL", so tests (and any future
source) can script that one call instead of talking to a site. The real implementation runs
yt-dlp in a worker thread because `extract_info` blocks on the network for seconds.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any, Protocol, cast

from ...errors import V2CError, upstream
from .errors import known_problem, map_ytdlp_error
from .settings import WebSettings

__all__ = [
    "InfoSource",
    "WebSettings",
    "YtDlpInfoSource",
    "extract_info",
    "parse_cookies_from_browser",
]

CookieSpec = tuple[str, str | None, str | None, str | None]

_COOKIE_SPEC = re.compile(
    r"""(?x)
    (?P<name>[^+:]+)
    (?:\s*\+\s*(?P<keyring>[^:]+))?
    (?:\s*:\s*(?!:)(?P<profile>.+?))?
    (?:\s*::\s*(?P<container>.+))?
    """
)
_COOKIE_SETTING_HINT = (
    "Check {cookies-setting}: name an installed browser such as firefox or chrome, "
    "optionally with `:PROFILE`, or clear it."
)


class InfoSource(Protocol):
    """Anything that can turn a URL into a yt-dlp info dict."""

    async def extract(
        self, url: str, *, flat: bool = False, comments: int | None = None
    ) -> dict[str, Any]:
        """The info dict for `url`; `flat` lists a playlist's entries without visiting each;
        `comments`: read up to that many of the video's comments too (its `comments` list,
        missing when the site's extractor reads none, None when they are turned off). Only
        passed when comments are wanted, so a source that never reads them may omit it."""
        ...


class _CollectingLogger:
    """yt-dlp's logger interface: keep warnings (they may hide the real reason), print nothing."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def debug(self, msg: str) -> None:
        """yt-dlp sends its progress lines here; a library has no terminal to print them to."""

    def info(self, msg: str) -> None:
        """Ignored for the same reason as `debug`."""

    def warning(self, msg: str) -> None:
        self.warnings.append(msg)

    def error(self, msg: str) -> None:
        """Errors also arrive as exceptions, which is where they are handled."""


def parse_cookies_from_browser(spec: str) -> CookieSpec:
    """yt-dlp's `BROWSER[+KEYRING][:PROFILE][::CONTAINER]`, as the tuple its API expects.

    The CLI does this parsing inside yt-dlp's `main`, which the Python API skips, so a
    setting written the way yt-dlp documents it would otherwise fail obscurely.
    """
    from yt_dlp.cookies import SUPPORTED_BROWSERS, SUPPORTED_KEYRINGS

    match = _COOKIE_SPEC.fullmatch(spec.strip())
    if match is None:
        raise V2CError(
            "bad-request", f"Cannot read the browser setting {spec!r}", _COOKIE_SETTING_HINT
        )
    name, keyring, profile, container = match.group("name", "keyring", "profile", "container")
    name = name.strip().lower()
    if name not in SUPPORTED_BROWSERS:
        raise V2CError(
            "bad-request",
            f"Cookies cannot be read from {name!r}; supported browsers: "
            + ", ".join(sorted(SUPPORTED_BROWSERS)),
            _COOKIE_SETTING_HINT,
        )
    if keyring is not None:
        keyring = keyring.strip().upper()
        if keyring not in SUPPORTED_KEYRINGS:
            raise V2CError(
                "bad-request",
                f"Unknown keyring {keyring!r}; supported: " + ", ".join(sorted(SUPPORTED_KEYRINGS)),
                _COOKIE_SETTING_HINT,
            )
    return (name, profile, keyring, container)


def ytdlp_options(
    settings: WebSettings, *, flat: bool, logger: object, comments: int | None = None
) -> dict[str, Any]:
    """The `YoutubeDL` parameters for metadata-only extraction.

    `ignore_no_formats_error` matters: without a JavaScript runtime yt-dlp may find no
    downloadable formats, yet the metadata and captions we need are all there. The price is
    that YouTube's refusals (bot check, age gate) arrive as warnings, which the caller checks.
    `comments`: read up to that many comments too (`getcomments`); YouTube stops at that
    many (its `max_comments`, replies included) and sorts them by its "top comments", the
    ones a reader sees first; other sites' extractors read theirs and are cut afterwards.
    """
    options: dict[str, Any] = {
        "quiet": True,
        "noprogress": True,
        "color": "no_color",
        "logger": logger,
        "skip_download": True,
        "simulate": True,
        "ignore_no_formats_error": True,
        "check_formats": False,
        # Lists machine translations of creator captions too, so a preferred language can
        # fall back to one (yt-dlp builds them only when automatic subtitles are wanted).
        "writeautomaticsub": True,
        "socket_timeout": settings.timeout,
        "noplaylist": not flat,
        "extract_flat": "in_playlist" if flat else False,
    }
    if comments is not None:
        options["getcomments"] = True
        options["extractor_args"] = {
            "youtube": {"max_comments": [str(comments)], "comment_sort": ["top"]}
        }
    if settings.cookies_from_browser:
        options["cookiesfrombrowser"] = parse_cookies_from_browser(settings.cookies_from_browser)
    if settings.proxy:
        options["proxy"] = settings.proxy
    return options


YoutubeDLFactory = Callable[[dict[str, Any]], Any]


def _default_factory(options: dict[str, Any]) -> Any:
    import yt_dlp

    return yt_dlp.YoutubeDL(options)


class YtDlpInfoSource:
    """The real `InfoSource`: yt-dlp in a worker thread, its failures mapped to `V2CError`.

    `factory` builds the `YoutubeDL` object; it exists so tests can check the options and
    the error handling without a network.
    """

    def __init__(
        self, settings: WebSettings | None = None, *, factory: YoutubeDLFactory | None = None
    ) -> None:
        self.settings = settings or WebSettings()
        self._factory = factory or _default_factory

    async def extract(
        self, url: str, *, flat: bool = False, comments: int | None = None
    ) -> dict[str, Any]:
        return await asyncio.to_thread(self._extract_blocking, url, flat, comments)

    def _extract_blocking(
        self, url: str, flat: bool, comments: int | None = None
    ) -> dict[str, Any]:
        logger = _CollectingLogger()
        options = ytdlp_options(self.settings, flat=flat, logger=logger, comments=comments)
        try:
            with self._factory(options) as ydl:
                info = ydl.extract_info(url, download=False)
                clean = ydl.sanitize_info(info)
        except V2CError:
            raise
        except Exception as exc:  # yt-dlp raises many unrelated types; all become V2CError
            raise _map_exception(exc, url) from None
        if not isinstance(clean, dict):
            raise upstream(f"yt-dlp found nothing at {url}", "Check the address.")
        info_dict = cast(dict[str, Any], clean)
        _raise_hidden_refusal(info_dict, logger.warnings, url)
        return info_dict


def _map_exception(exc: BaseException, url: str) -> V2CError:
    """`map_ytdlp_error`, plus unreadable browser cookies, which are a settings problem."""
    from yt_dlp.cookies import CookieLoadError

    exc_info = getattr(exc, "exc_info", None)
    cause = exc_info[1] if isinstance(exc_info, tuple) and len(exc_info) > 1 else None
    if isinstance(exc, CookieLoadError) or isinstance(cause, CookieLoadError):
        error = map_ytdlp_error(exc, url=url)
        return V2CError(
            "bad-request",
            f"Could not read the browser's cookies: {error.message}",
            _COOKIE_SETTING_HINT,
            error.details,
        )
    return map_ytdlp_error(exc, url=url)


def _raise_hidden_refusal(info: dict[str, Any], warnings: list[str], url: str) -> None:
    """Raise the site's refusal that `ignore_no_formats_error` turned into a warning.

    A video with neither formats nor captions was most likely refused (bot check, age gate,
    removed); a video that has captions is fine whatever yt-dlp warned about.
    """
    if info.get("_type", "video") != "video":
        return
    if info.get("formats") or info.get("subtitles") or info.get("automatic_captions"):
        return
    for warning in warnings:
        error = known_problem(warning, url=url)
        if error is not None:
            raise error


async def extract_info(
    source: InfoSource, url: str, *, flat: bool = False, comments: int | None = None
) -> dict[str, Any]:
    """`source.extract`, with any yt-dlp exception that escaped it mapped to `V2CError`.

    The real source maps its own errors; this keeps the promise for any other source that
    wraps yt-dlp (or replays its exceptions), so callers only ever see typed errors.
    """
    from yt_dlp.utils import YoutubeDLError

    try:
        if comments is not None:
            return await source.extract(url, flat=flat, comments=comments)
        return await source.extract(url, flat=flat)
    except YoutubeDLError as exc:
        raise _map_exception(exc, url) from None
