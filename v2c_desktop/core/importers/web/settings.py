"""The few knobs a user has over web imports, in one frozen value that every layer can pass on.

YouTube blocks anonymous, data-centre or busy addresses; the only remedies a user has are
their own browser's cookies and a different network path (a proxy), so those are the settings.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class WebSettings:
    """How to reach video sites.

    `cookies_from_browser` uses yt-dlp's own syntax, `BROWSER[+KEYRING][:PROFILE][::CONTAINER]`
    (for example `firefox` or `chrome:Profile 1`); `languages` lists caption languages in order
    of preference (empty: the video's own language, then English); `timeout` is in seconds and
    bounds each network request. `transcribe_without_captions`: the user consented that a
    video without any caption track has its audio downloaded and transcribed (`stt.web_audio`).
    """

    cookies_from_browser: str | None = None
    proxy: str | None = None
    languages: tuple[str, ...] = ()
    timeout: float = 30
    transcribe_without_captions: bool = False
