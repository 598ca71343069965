"""The web side of importing, bundled: the yt-dlp info source, one HTTP client, the settings.

The library service holds one `WebAccess` and never builds network clients itself, so tests
(and the MCP server) can hand it a replaying info source and an httpx transport instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import httpx

from ..domain.captions import CaptionChoice
from ..domain.videos import VideoRecord
from ..progress import ProgressCallback, ignore_progress
from .web.expand import expand_web_input
from .web.fetch import make_http_client
from .web.hosts import HostGuard
from .web.importer import CaptionlessSpeech, fetch_web_video, read_video_info, record_from_info
from .web.info_source import InfoSource, YtDlpInfoSource
from .web.settings import WebSettings


@dataclass
class WebAccess:
    info_source: InfoSource
    http: httpx.AsyncClient
    settings: WebSettings

    @classmethod
    def default(cls, settings: WebSettings | None = None) -> WebAccess:
        settings = settings or WebSettings()
        return cls(YtDlpInfoSource(settings), make_http_client(settings), settings)

    async def expand(self, url: str) -> list[str]:
        return await expand_web_input(url, info_source=self.info_source)

    async def fetch(
        self,
        url: str,
        *,
        languages: tuple[str, ...] = (),
        progress: ProgressCallback = ignore_progress,
        guard: HostGuard | None = None,
        speech: CaptionlessSpeech | None = None,
    ) -> VideoRecord:
        """`guard`: an agent's import, whose URLs may reach only the hosts it allows;
        `speech`: transcribes a video without captions (the user consented)."""
        settings = replace(self.settings, languages=languages) if languages else self.settings
        return await fetch_web_video(
            url,
            info_source=self.info_source,
            http=self.http,
            settings=settings,
            progress=progress,
            guard=guard,
            speech=speech,
        )

    async def info(
        self, url: str, *, guard: HostGuard | None = None, comments: int | None = None
    ) -> dict[str, Any]:
        """yt-dlp's info dict of the one video at `url` (its caption tracks, metadata;
        with `comments`, up to that many of its comments)."""
        return await read_video_info(
            url, info_source=self.info_source, guard=guard, comments=comments
        )

    async def record(
        self,
        info: dict[str, Any],
        choice: CaptionChoice,
        *,
        progress: ProgressCallback = ignore_progress,
        guard: HostGuard | None = None,
    ) -> VideoRecord:
        """The video of `info` with the transcript of the caption track `choice` names."""
        return await record_from_info(
            info,
            http=self.http,
            settings=self.settings,
            choice=choice,
            progress=progress,
            guard=guard,
        )

    def agent_guard(self) -> HostGuard:
        """The host check for an agent's imports over this web access (its proxy counts)."""
        return HostGuard(proxy=self.settings.proxy)

    async def aclose(self) -> None:
        await self.http.aclose()
