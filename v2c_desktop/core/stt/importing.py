"""Speech-to-text where the library imports: a media file without a subtitle file beside it
is transcribed (unless the user said `--no-transcribe`), so is a web video without any caption
track when the user consented to downloading its audio (`WebSpeech`), and
`v2c transcribe VIDEO` replaces a saved video's transcript with a new one, in one transaction.

Nothing is saved until a transcription is complete: cancelling leaves the library as it was.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain.imports import ImportOutcome
from ..domain.videos import Chapter, Transcript, Video, VideoRecord
from ..errors import V2CError, bad_request, not_found
from ..file_kinds import WEB_AUDIO_MAX_BYTES, is_media
from ..ids import file_video_id
from ..importers.local import (
    LocalItem,
    LocalRead,
    _read_info,
    _title_for,
    chosen_subtitle,
    folder_metadata,
    read_local,
)
from ..importers.web.hosts import HostGuard
from ..importers.web.metadata import chapters_from_info, video_from_info
from ..importers.web.settings import WebSettings
from ..plain_text import strip_controls
from ..progress import ProgressCallback, ignore_progress
from .audio import probe
from .errors import no_speech, with_sidecar_hint
from .models import resolve_model
from .types import SpeechResult, Transcriber
from .web_audio import check_audio_hosts, downloaded_audio
from .whisper import FasterWhisperTranscriber
from .worker import transcribe_in_worker


@dataclass(frozen=True, slots=True)
class SpeechOptions:
    """`transcribe`: transcribe media that has no subtitle file (else `no-transcript`);
    `model`: a catalog id (`tiny.en`) or a model folder, None for the default; `web`: the
    user consented for this import that a web video without captions has its audio downloaded
    to transcribe it (with `transcribe` too; `WebSettings.transcribe_without_captions` is the
    lasting consent)."""

    transcribe: bool = True
    model: str | None = None
    web: bool = False


def needs_speech(item: LocalItem, languages: tuple[str, ...]) -> bool:
    """A media file with no subtitle file to read: only speech-to-text can give it words."""
    return item.media is not None and chosen_subtitle(item, languages) is None


def make_transcriber(model: str | None) -> Transcriber:
    """The transcriber for a model id or folder (`missing-model` error when absent)."""
    return FasterWhisperTranscriber(resolve_model(model))


async def transcribe_file(
    path: Path,
    model: str | None = None,
    *,
    progress: ProgressCallback = ignore_progress,
    cancel: threading.Event | None = None,
) -> SpeechResult:
    """Transcribe one media file off the loop; `no-speech` when nothing was heard.

    The file is probed first, so a file that cannot be transcribed says so before any
    question of models."""
    await asyncio.to_thread(probe, path)
    transcriber = await asyncio.to_thread(make_transcriber, model)
    result = await transcribe_in_worker(transcriber, path, progress=progress, cancel=cancel)
    if not result.segments:
        raise no_speech(path.name, result.duration)
    return result


def speech_transcript(result: SpeechResult) -> Transcript:
    """A recogniser's segments as the library's transcript, with origin `stt` and producer."""
    return Transcript(
        origin="stt",
        language=result.language,
        segments=result.segments,
        producer=result.producer.describe(),
        track_name=f"speech-to-text ({result.producer.model})",
    )


@dataclass(frozen=True, slots=True)
class WebSpeech:
    """Speech-to-text for a web video without any caption track, which the user consented to:
    its audio downloaded by yt-dlp into a temporary folder (`web_audio`), transcribed exactly
    like a local media file, and deleted; the transcript has origin `stt` and its producer.

    `settings` give the download the web import's proxy, cookies and timeout."""

    settings: WebSettings
    model: str | None = None
    max_bytes: int = WEB_AUDIO_MAX_BYTES

    async def __call__(
        self, info: dict[str, Any], *, progress: ProgressCallback, guard: HostGuard | None
    ) -> tuple[Transcript, float]:
        if guard is not None:
            await check_audio_hosts(info, guard)
        async with downloaded_audio(
            info, self.settings, max_bytes=self.max_bytes, progress=progress
        ) as audio:
            result = await transcribe_file(audio, self.model, progress=progress)
        return speech_transcript(result), result.duration


def _video_for(item: LocalItem, media: Path) -> tuple[Video, list[str], list[Chapter]]:
    """The video a media file is (metadata as `read_local` finds it), without its words."""
    warnings: list[str] = []
    if item.info_json is not None:
        info = _read_info(item.info_json)
        video = video_from_info(info)
        chapters = chapters_from_info(info)
    else:
        meta = folder_metadata(item)
        warnings.extend(meta.warnings)
        video = Video(
            id=file_video_id(media),
            title=meta.title or strip_controls(_title_for(item)),
            platform="file",
            native_id="",
            url=meta.url,
            duration=meta.duration,
        )
        video.native_id = video.id.split(":", 1)[1]
        chapters = []
    video.source_path = str(media.resolve())
    return video, warnings, chapters


SavedLookup = Callable[[str], Awaitable[VideoRecord | None]]


async def read_or_transcribe(
    saved_video: SavedLookup,
    item: LocalItem,
    languages: tuple[str, ...],
    *,
    options: SpeechOptions = SpeechOptions(),
    refresh: bool = False,
    progress: ProgressCallback = ignore_progress,
) -> LocalRead | ImportOutcome:
    """What `Library._import_item` reads for a local item: its subtitle file when it has one,
    else (media only) a transcript of its speech; a `skipped` outcome when the video is
    already saved and no `refresh` was asked (a transcription takes minutes)."""
    if not options.transcribe or not needs_speech(item, languages):
        return await asyncio.to_thread(read_local, item, languages)
    assert item.media is not None
    media = item.media
    video, warnings, chapters = await asyncio.to_thread(_video_for, item, media)
    saved = None if refresh else await saved_video(video.id)
    if saved is not None:
        return ImportOutcome(
            str(media),
            "skipped",
            video.id,
            saved.video.title,
            reason="already in the library; to transcribe it again use "
            f"`v2c transcribe {video.id}`",
        )
    try:
        result = await transcribe_file(media, options.model, progress=progress)
    except V2CError as error:
        raise with_sidecar_hint(error, item.base) from None
    if video.duration is None or video.duration < result.duration - 1:
        video.duration = result.duration
    record = VideoRecord(video, speech_transcript(result), chapters)
    return LocalRead(record, media, [*warnings, *result.warnings])


async def transcribe_again(
    record: VideoRecord,
    model: str | None = None,
    *,
    progress: ProgressCallback = ignore_progress,
) -> tuple[VideoRecord, str, list[str]]:
    """A saved video's media file transcribed again: the record with its new transcript,
    the words saying what it replaces, and the recogniser's warnings (the library saves it,
    in one transaction)."""
    source = record.video.source_path
    if not source or not is_media(source):
        raise bad_request(
            f"{record.video.id} has no local video or audio file to transcribe",
            "only a video whose audio or video file is on this computer can be transcribed: "
            "add that file with `v2c add FILE`",
        )
    media = Path(source)
    if not media.is_file():
        raise not_found(
            f"the media file of {record.video.id} is gone: {media}",
            "put the file back there, or add it from where it is now with `v2c add FILE`",
        )
    result = await transcribe_file(media, model, progress=progress)
    old = record.transcript
    new = speech_transcript(result)
    replaced = VideoRecord(record.video, new, record.chapters)
    if replaced.video.duration is None:
        replaced.video.duration = result.duration
    was = old.producer or old.origin
    reason = (
        f"replaced its transcript ({old.origin}, {was}, {len(old.segments)} lines) with a new "
        f"one by {new.producer} ({len(new.segments)} lines, {result.speed:.1f}x real time)"
    )
    return replaced, reason, list(result.warnings)
