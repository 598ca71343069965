"""Import one web video: metadata and the best caption track (or the one a person chose), as
a `VideoRecord`; a video without any caption track is transcribed instead when the caller
passes `speech` (the user consented: its audio is downloaded, see `core.stt.web_audio`).

The steps are injected (where info comes from, which HTTP client downloads) so the CLI, the
GUI and the MCP server share one import path, and tests run it offline against recordings.
"""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from ...captions import parse_captions
from ...domain.captions import CaptionChoice
from ...domain.videos import Transcript, VideoRecord
from ...errors import V2CError
from ...progress import Progress, ProgressCallback, ignore_progress
from .expand import expand_web_input, read_url_list
from .fetch import fetch_caption
from .hosts import HostGuard
from .info_source import InfoSource, extract_info
from .metadata import chapters_from_info, producer_of, video_from_info
from .settings import WebSettings
from .track_list import pick_track, track_count
from .tracks import NO_CAPTIONS_HINT, choose_track

__all__ = [
    "expand_web_input",
    "fetch_web_video",
    "read_url_list",
    "read_video_info",
    "record_from_info",
]

_STAGE = "web-import"
_STEPS = 3


class CaptionlessSpeech(Protocol):
    """Speech-to-text for a video without any caption track: its info dict in, its transcript
    and the seconds of audio heard out. Injected (the library builds it from `core.stt`) so
    this module stays free of the speech engine, and only when the user consented."""

    async def __call__(
        self, info: dict[str, Any], *, progress: ProgressCallback, guard: HostGuard | None
    ) -> tuple[Transcript, float]: ...


async def read_video_info(
    url: str,
    *,
    info_source: InfoSource,
    guard: HostGuard | None = None,
    comments: int | None = None,
) -> dict[str, Any]:
    """yt-dlp's info dict of the one video at `url`; failures raise `V2CError`.

    `guard` (an agent's import) checks `url` before yt-dlp reads it and the page yt-dlp
    ended on; a playlist or channel is a `bad-request` (its videos are imported one by one).
    `comments`: read up to that many of its comments too (see `InfoSource.extract`).
    """
    if guard is not None:
        await guard.check(url)
    info = await extract_info(info_source, url, comments=comments)
    if guard is not None:
        for key in ("webpage_url", "original_url"):
            landed = str(info.get(key) or "")
            if landed.startswith(("http://", "https://")) and landed != url:
                await guard.check(landed, "the page the URL led to")
    if str(info.get("_type") or "video") in ("playlist", "multi_video"):
        raise V2CError(
            "bad-request",
            f"{url} is a playlist or channel, not a single video",
            "Import it as a playlist or channel: its videos are then imported one by one.",
            {"url": url},
        )
    return info


async def fetch_web_video(
    url: str,
    *,
    info_source: InfoSource,
    http: httpx.AsyncClient,
    settings: WebSettings,
    progress: ProgressCallback = ignore_progress,
    guard: HostGuard | None = None,
    speech: CaptionlessSpeech | None = None,
) -> VideoRecord:
    """The video at `url` with its transcript and chapters; failures raise `V2CError`.

    `guard` (an agent's import) checks `url` before yt-dlp reads it, the page yt-dlp ended
    on, and the caption track with each of its redirects before they are downloaded.
    `speech` transcribes a video that has no caption track (else: `no-transcript`).
    """
    progress(Progress(_STAGE, 0, _STEPS, f"Reading {url}"))
    info = await read_video_info(url, info_source=info_source, guard=guard)
    return await record_from_info(
        info, http=http, settings=settings, progress=progress, guard=guard, speech=speech
    )


async def record_from_info(
    info: dict[str, Any],
    *,
    http: httpx.AsyncClient,
    settings: WebSettings,
    choice: CaptionChoice | None = None,
    progress: ProgressCallback = ignore_progress,
    guard: HostGuard | None = None,
    speech: CaptionlessSpeech | None = None,
) -> VideoRecord:
    """The `VideoRecord` of a video's info dict: its metadata, chapters and the transcript
    of one caption track, downloaded through `http` (each hop checked by `guard`).

    The track is `choice` when given (`not-found` when the video has no such track), else
    the best one for `settings.languages` (`tracks.choose_track`); the transcript records
    which it was and how many tracks there were. Without any track, `speech` transcribes
    the video (the user consented), else `no-transcript`.
    """
    video = video_from_info(info)
    try:
        if choice is not None:
            track = pick_track(info, choice)
        else:
            track = choose_track(info, settings.languages)
    except V2CError as error:
        if speech is None or choice is not None or error.code != "no-transcript":
            raise
        progress(Progress(_STAGE, 1, _STEPS, f"{video.title} has no captions: transcribing it"))
        transcript, seconds = await speech(info, progress=progress, guard=guard)
        transcript.track_count = 0  # the site offered no track to choose instead
        if video.duration is None or video.duration < seconds - 1:
            video.duration = seconds
        record = VideoRecord(video=video, transcript=transcript, chapters=chapters_from_info(info))
        progress(Progress(_STAGE, 3, _STEPS, f"Imported {video.title}"))
        return record
    label = track.name or track.language
    progress(Progress(_STAGE, 1, _STEPS, f"Downloading {label} captions of {video.title}"))
    payload = await fetch_caption(http, track.url, timeout=settings.timeout, guard=guard)
    progress(Progress(_STAGE, 2, _STEPS, f"Reading {label} captions"))
    segments = parse_captions(
        payload, track.parser_format, source_name=f"{video.title} ({label} captions)"
    )
    if not segments:
        raise V2CError(
            "no-transcript", f"The {label} captions of {video.title} hold no text", NO_CAPTIONS_HINT
        )
    transcript = Transcript(
        origin=track.origin,
        language=track.language,
        segments=segments,
        producer=producer_of(info),
        track_name=track.name,
        translated_from=track.translated_from,
        track=track.key,
        track_count=track_count(info),
    )
    record = VideoRecord(video=video, transcript=transcript, chapters=chapters_from_info(info))
    progress(Progress(_STAGE, 3, _STEPS, f"Imported {video.title}"))
    return record
