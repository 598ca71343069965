"""Watching one live stream: found live by yt-dlp, read as it plays, saved when it stops.

`watch_live` is what `CoreAPI.watch_live` streams: `LiveStarted`, then `LiveText` with each
new line as soon as it is heard (and an empty one every `QUIET_S` seconds of stream without
words, so a face sees the watch is alive), `LiveNote`s, and `LiveDone` with the saved video.

The watch stops when the stream ends, when `max_minutes` have passed (reading stops then;
audio already received is still transcribed), or when the stream stops answering; the
transcript is then saved through the library's one save path (the change feed tells every
face, the search index takes it at once) as a video of its own per watch
(`live:<site>-<id>-<UTC start>`, platform `live`), marked live in its title, transcript
track and producer.

Cancelling (the caller stops iterating: Ctrl-C, an MCP cancel) stops the network reads and
the transcription at once and saves nothing, as every cancelled job in v2c does: a cancel
means "stop this", a partial transcript saved behind the caller's back would be a write no
one asked for (and an MCP client hears nothing after its cancel, so it would never learn of
it). The lines already sent stay with the caller; `max_minutes` is how to keep a watch.

An agent's watch is held to the same rules as an agent's import: its URLs reach public hosts
only (each playlist, segment and redirect is checked), and reading the audio for
speech-to-text needs the user's lasting consent (`imports.transcribe_without_captions`),
as downloading a captionless video's audio does; live captions need none.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ..domain.live import (
    DEFAULT_MINUTES,
    MAX_MINUTES,
    LiveDone,
    LiveEnd,
    LiveEvent,
    LiveLine,
    LiveNote,
    LiveResult,
    LiveStarted,
    LiveText,
)
from ..domain.videos import Segment, Transcript, Video, VideoRecord
from ..errors import V2CError, bad_request
from ..ids import video_id
from ..importers.web.metadata import producer_of, video_from_info
from ..library import Library
from ..plain_text import strip_controls
from ..settings import AgentSettings
from ..timecode import clock
from .audio import AudioChunk, SegmentPipe, container_format, decode_stream
from .captions import LiveCaptions, segment_cues
from .hls import LiveReader
from .plan import WatchPlan, check_live, plan_watch
from .speech import LiveSpeech, Recogniser, warm_up

#: Seconds of stream without new words after which an empty `LiveText` says it goes on.
QUIET_S = 10.0
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class _State:
    """What one watch has heard so far, shared by its reader and the event stream."""

    put: Callable[[LiveEvent], None]
    source: str
    lines: list[LiveLine] = field(default_factory=list)
    watched: float = 0.0
    last_said: float = 0.0  # `watched` when the last event went out
    program_start: datetime | None = None  # the stream's clock at the first sample heard
    ended: LiveEnd = "stream-ended"
    warnings: list[str] = field(default_factory=list)

    def note(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            self.put(LiveNote(message))

    def heard(self, segments: list[Segment]) -> None:
        new = [self._line(s) for s in segments if s.text.strip()]
        if not new and self.watched - self.last_said < QUIET_S:
            return
        self.lines.extend(new)
        self.last_said = self.watched
        self.put(LiveText(tuple(new), round(self.watched, 3), len(self.lines)))

    def _line(self, segment: Segment) -> LiveLine:
        at = ""
        if self.program_start is not None and self.source == "speech":
            when = self.program_start + timedelta(seconds=segment.start)
            at = when.astimezone(UTC).isoformat(timespec="seconds")
        return LiveLine(round(segment.start, 3), round(segment.end, 3), segment.text, at)


def _minutes(value: float) -> float:
    if not 0 < value <= MAX_MINUTES:
        raise bad_request(
            f"max_minutes must be more than 0 and at most {MAX_MINUTES:g}, not {value:g}",
            "give how many minutes to watch, e.g. 5 (fractions such as 0.5 are fine)",
        )
    return float(value)


def _title(info: dict[str, Any]) -> str:
    """The stream's own title (yt-dlp adds the date and time to a live one's `title`)."""
    return strip_controls(str(info.get("fulltitle") or info.get("title") or info.get("id") or ""))


def _needs_consent(title: str, url: str) -> V2CError:
    return V2CError(
        "no-transcript",
        f"{title or url} has no live captions, and transcribing its audio as it plays needs "
        "the user's consent",
        "Speech-to-text on a live stream downloads its audio as it plays: that needs "
        "{transcribe-web}.",
        {"url": url, "kind": "needs-consent"},
    )


def _recogniser(model: str | None) -> Recogniser:
    """The library's speech model (a `missing-model` error, with how to get it, if absent)."""
    from ..stt.models import resolve_model
    from ..stt.whisper import FasterWhisperTranscriber

    recogniser = FasterWhisperTranscriber(resolve_model(model))
    warm_up(recogniser)
    return recogniser


async def watch_live(
    library: Library,
    url: str,
    max_minutes: float = DEFAULT_MINUTES,
    *,
    agent: AgentSettings | None = None,
    model: str | None = None,
) -> AsyncGenerator[LiveEvent, None]:
    """Watch the live stream at `url`; see the module docstring."""
    minutes = _minutes(max_minutes)
    web = library.web
    guard = library.agent_guard(agent)
    info = await web.info(url, guard=guard)
    check_live(info, url)
    plan = plan_watch(info, web.settings.languages)
    title = _title(info)
    recogniser: Recogniser | None = None
    how = f"live captions ({plan.name})"
    if plan.source == "speech":
        if agent is not None and not web.settings.transcribe_without_captions:
            raise _needs_consent(title, url)
        recogniser = await asyncio.to_thread(_recogniser, model)
        how = f"speech-to-text with {recogniser.model_name}"
    page = str(info.get("webpage_url") or url)
    started = datetime.now(UTC)
    yield LiveStarted(title, page, plan.source, how, minutes)

    events: asyncio.Queue[LiveEvent | None] = asyncio.Queue()
    state = _State(events.put_nowait, plan.source)
    deadline = asyncio.get_running_loop().time() + minutes * 60
    reader = LiveReader(
        web.http,
        plan.url,
        "the live captions" if plan.source == "captions" else "the stream's audio",
        timeout=web.settings.timeout,
        guard=guard,
        note=state.note,
    )
    speech = LiveSpeech(recogniser) if recogniser is not None else None
    if speech is not None:
        work = _watch_speech(reader, speech, deadline, state)
    else:
        work = _watch_captions(reader, deadline, state)
    runner = asyncio.ensure_future(work)
    runner.add_done_callback(lambda _: events.put_nowait(None))
    try:
        while (event := await events.get()) is not None:
            yield event
        runner.result()  # the reader's error, when it failed before anything was heard
    finally:
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(BaseException):
                await runner
    if reader.lost:
        state.ended = "stream-lost"
        state.note(f"the stream stopped answering: {reader.lost}")
    if not state.lines:
        raise V2CError(
            "no-transcript",
            f"nothing was said in the {clock(state.watched)} of {title or url} that were watched",
            "The stream may be silent or music only: watch it again for longer, or later.",
            {"url": url, "watched": round(state.watched, 1)},
        )
    record = _record(info, plan, state, title, started, speech, recogniser)
    outcome = await library.replace_transcript(url, record)
    yield LiveDone(
        LiveResult(
            video_id=record.video.id,
            title=record.video.title,
            url=page,
            source=plan.source,
            language=record.transcript.language,
            producer=record.transcript.producer,
            watched=round(state.watched, 3),
            ended=state.ended,
            started_at=started.isoformat(timespec="seconds"),
            lines=list(state.lines),
            stream_at=state.program_start.isoformat(timespec="seconds")
            if state.program_start
            else "",
            speed=round(speech.speed, 2) if speech is not None else 0.0,
            status=outcome.status,
            warnings=list(state.warnings),
        )
    )


async def _watch_captions(reader: LiveReader, deadline: float, state: _State) -> None:
    captions = LiveCaptions()
    try:
        async with asyncio.timeout_at(deadline):
            async for fetched in reader.segments():
                state.watched += fetched.segment.duration
                if state.program_start is None:
                    state.program_start = fetched.segment.program_time
                state.heard(captions.add(segment_cues(fetched.data, reader.what)))
    except TimeoutError:
        state.ended = "max-minutes"


async def _watch_speech(
    reader: LiveReader, speech: LiveSpeech, deadline: float, state: _State
) -> None:
    """Segments into the decoder, decoded chunks into the windows, lines out; the decoder
    runs in a worker thread fed through a pipe, which finishing stops."""
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[AudioChunk | None] = asyncio.Queue()
    pipe = SegmentPipe()
    decoder: asyncio.Future[None] | None = None

    def deliver(chunk: AudioChunk) -> None:  # in the decoder's thread
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
            loop.call_soon_threadsafe(chunks.put_nowait, chunk)

    def decode(first: bytes, cancel: threading.Event) -> asyncio.Future[None]:
        job = asyncio.ensure_future(
            asyncio.to_thread(
                decode_stream,
                pipe,
                container_format(first),
                what=reader.what,
                cancel=cancel,
                deliver=deliver,
            )
        )
        job.add_done_callback(lambda _: chunks.put_nowait(None))
        return job

    async def feed() -> None:
        nonlocal decoder
        try:
            async with asyncio.timeout_at(deadline):
                async for fetched in reader.segments():
                    data = (fetched.init or b"") + fetched.data
                    if decoder is None:
                        state.program_start = fetched.segment.program_time
                        decoder = decode(data, speech.cancel)
                    pipe.put(data)
        except TimeoutError:
            state.ended = "max-minutes"
        finally:
            pipe.finish()
            if decoder is None:
                chunks.put_nowait(None)

    feeder = asyncio.ensure_future(feed())
    try:
        while (chunk := await chunks.get()) is not None:
            lines = await speech.add(chunk)
            state.watched = speech.received
            state.heard(lines)
        await feeder  # the reader's error, when it failed before any audio came
        problem = decoder.exception() if decoder is not None and decoder.done() else None
        if isinstance(problem, V2CError) and speech.received == 0:
            raise problem
        if problem is not None:
            state.note(f"the stream's audio stopped decoding: {problem}")
        state.heard(await speech.finish())
    finally:
        speech.cancel.set()
        pipe.finish()
        if not feeder.done():
            feeder.cancel()
            with contextlib.suppress(BaseException):
                await feeder


def _record(
    info: dict[str, Any],
    plan: WatchPlan,
    state: _State,
    title: str,
    started: datetime,
    speech: LiveSpeech | None,
    recogniser: Recogniser | None,
) -> VideoRecord:
    """The watch as a library video of its own: one per watch, marked live."""
    base = video_from_info(info)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    native = _UNSAFE.sub("_", f"{base.platform}-{base.native_id}-{stamp}")
    local = started.astimezone()
    said = f"Watched live on {local:%Y-%m-%d} at {local:%H:%M} for {clock(state.watched)}"
    if state.program_start is not None:
        said += f" (the stream's clock: {state.program_start.isoformat(timespec='seconds')})"
    video = Video(
        id=video_id("live", native),
        title=f"{title or base.title} (live, {local:%Y-%m-%d %H:%M})",
        platform="live",
        native_id=native,
        channel=base.channel,
        url=base.url,
        duration=round(state.watched, 3),
        published=local.date().isoformat(),
        description=f"{said}.\n\n{base.description}".strip(),
        thumbnail_url=base.thumbnail_url,
        channel_id=base.channel_id,
    )
    segments = sorted((Segment(li.start, li.end, li.text) for li in state.lines), key=_start)
    if speech is not None and recogniser is not None:
        producer = f"{recogniser.producer().describe()}, watched live"
        transcript = Transcript(
            origin="stt",
            language=speech.heard_language or "en",
            segments=segments,
            producer=producer,
            track_name=f"live speech-to-text ({recogniser.model_name})",
        )
    else:
        transcript = Transcript(
            origin=plan.origin,
            language=plan.language,
            segments=segments,
            producer=f"{producer_of(info)} live captions",
            track_name=f"live captions ({plan.name})",
        )
    return VideoRecord(video, transcript)


def _start(segment: Segment) -> float:
    return segment.start
