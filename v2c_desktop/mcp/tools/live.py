"""`watch_live`: a rolling transcript of a live stream, line by line as progress notifications.

The core does the watching (`CoreAPI.watch_live`: the stream's live captions, else speech-to-
text on its audio as it arrives, saved to the library when it stops). This module turns its
events into MCP: every new line goes out at once as a progress notification whose message
is the new `[m:ss] text` lines and whose value is the seconds of stream watched (of
`maxMinutes`), a quiet stretch still sends one now and then so the client's timeout does not
fire, and the result is the saved video with the whole text.

A cancel from the client cancels the call's task: the core stops reading the stream and
transcribing at once and saves nothing (the lines already sent are the agent's to keep).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from v2c_desktop.core.domain.live import (
    DEFAULT_MINUTES,
    MAX_MINUTES,
    LiveDone,
    LiveEvent,
    LiveNote,
    LiveResult,
    LiveStarted,
    LiveText,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..results import structured_result, writes
from ..tooling import add_tool
from ..uris import video_uri

WATCH_LIVE = """\
Watch a live stream and transcribe it as it plays: the site's own live captions when it
offers them, else speech-to-text on its audio on this computer (which needs the user's
consent, as for videos without captions). Each new line arrives at once as a progress
notification ("[m:ss] text", times from the start of watching) when you pass a progress
token. Stops after maxMinutes (default 5), or when the stream ends; then the transcript is
saved to the library as a video of its own (search_transcript and get_transcript read it)
and returned as [m:ss] lines with its id and link. A cancel stops it at once and saves
nothing: to keep a watch, choose maxMinutes. A URL that is not live now is an error saying
to import it as a video instead. About 12k tokens per hour of speech."""

LiveUrl = Annotated[
    str,
    Field(
        description="The live stream: its page on YouTube, Twitch or any site yt-dlp reads, "
        "or its HLS (.m3u8) playlist URL."
    ),
]
MaxMinutes = Annotated[
    float,
    Field(
        gt=0,
        le=MAX_MINUTES,
        description=f"Stop watching after this many minutes (default {DEFAULT_MINUTES:g}, "
        f"at most {MAX_MINUTES:g}; fractions such as 0.5 are fine).",
    ),
]


class LiveOut(BaseModel):
    videoId: str = Field(description="the saved video's library id (get_transcript takes it)")
    title: str
    url: str = Field(description="the stream's page")
    link: str = Field(description="the saved video as an MCP resource URI")
    source: Literal["captions", "speech"] = Field(
        description="captions: the site's live captions; speech: speech-to-text on its audio"
    )
    language: str
    producer: str
    watchedSec: float = Field(description="seconds of the stream watched")
    watched: str = Field(description="the same as m:ss")
    ended: Literal["stream-ended", "max-minutes", "stream-lost"]
    startedAt: str = Field(description="when watching started (ISO 8601, UTC)")
    streamAt: str | None = Field(
        default=None, description="the stream's own clock when watching started, if it says"
    )
    segments: int = Field(description="how many lines were heard")
    speed: float | None = Field(
        default=None, description="seconds of audio transcribed per second (speech only)"
    )
    status: str = Field(description="added (a new video per watch)")
    warnings: list[str]
    text: str = Field(description="the transcript, one [m:ss] line per segment")


def live_view(result: LiveResult) -> dict[str, Any]:
    """`watch_live`'s structured result (`LiveOut`)."""
    return {
        "videoId": result.video_id,
        "title": result.title,
        "url": result.url,
        "link": video_uri(result.video_id),
        "source": result.source,
        "language": result.language,
        "producer": result.producer,
        "watchedSec": round(result.watched, 1),
        "watched": clock(result.watched),
        "ended": result.ended,
        "startedAt": result.started_at,
        "streamAt": result.stream_at or None,
        "segments": len(result.lines),
        "speed": result.speed if result.source == "speech" else None,
        "status": result.status,
        "warnings": list(result.warnings),
        "text": result.text(),
    }


class _Ticker:
    """Progress values for one watch: the seconds watched, strictly increasing, so every
    event is sent even when two arrive at the same second of stream."""

    def __init__(self, ctx: Context[Any, Any], total: float) -> None:
        self._ctx = ctx
        self._total = total
        self._last = 0.0

    async def say(self, watched: float, message: str) -> None:
        value = min(max(watched, self._last + 0.001), self._total)
        if value <= self._last:
            value = self._last + 0.001  # past the end already (the last lines): keep going
        self._last = value
        with contextlib.suppress(Exception):  # a client that left must not stop the watch
            await self._ctx.report_progress(round(value, 3), self._total, message)


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def watch_live(
        ctx: Context[Any, Any], url: LiveUrl, maxMinutes: MaxMinutes = DEFAULT_MINUTES
    ) -> Annotated[CallToolResult, LiveOut]:
        target = await deps.prepare(url)
        api = await deps.core()
        ticker = _Ticker(ctx, maxMinutes * 60)
        result: LiveResult | None = None
        stream = api.watch_live(target, maxMinutes, agent=deps.settings().agents)
        # over the owner socket the call is a proxy: its iterator is what closes (a cancel)
        watch = cast(AsyncGenerator[LiveEvent, None], aiter(stream))
        async with contextlib.aclosing(watch) as events:
            async for event in events:
                if isinstance(event, LiveStarted):
                    await ticker.say(0, f"watching {event.title} live ({event.how})")
                elif isinstance(event, LiveText):
                    said = "\n".join(line.line() for line in event.lines)
                    await ticker.say(event.watched, said or f"{clock(event.watched)} watched")
                elif isinstance(event, LiveNote):
                    await ticker.say(0, event.message)
                elif isinstance(event, LiveDone):
                    result = event.result
        if result is None:
            raise V2CError("internal", "the watch ended without a result")
        return structured_result(live_view(result))

    add_tool(
        server,
        watch_live,
        name="watch_live",
        description=WATCH_LIVE,
        annotations=writes("Watch a live stream", idempotent=False),
    )
