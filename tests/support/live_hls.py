"""A live HLS stream on 127.0.0.1, for the live-watching tests: no internet, real HTTP.

The audio (espeak-ng speech made in the run, then silence) is cut into one-second MPEG-TS
segments of AAC by FFmpeg's own HLS muxer (through PyAV), so the segments carry continuous
timestamps like a real encoder's. The server publishes them as time passes: segment `i`
appears in the media playlist once it has been "recorded" (its end on the stream's clock,
which starts at the first playlist request), the playlist shows a sliding window of the
newest `window` segments (`#EXT-X-MEDIA-SEQUENCE` advances) and has no `#EXT-X-ENDLIST`
until the stream ends. It ends after the speech (and one segment of silence), or, with
`hold_end`, only once the test calls `release()` and the speech is out (so a test can prove
text arrived while the stream was still live), and in any case when the prepared silence
runs out.

It also serves a master playlist with the audio variant and, when `captions` are given, a
WebVTT subtitles rendition whose segments follow the audio's (cues repeated in each segment
they overlap, `X-TIMESTAMP-MAP` tying them to the MPEG-TS clock, as RFC 8216 says); and the
same segments as a finished (VOD) playlist, which is not live.

Every request is recorded with its time, and the time each segment was first listed, so a
test can measure how long after a sentence was published its words arrived.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

#: The stream's wall clock at its first sample (what `#EXT-X-PROGRAM-DATE-TIME` says).
PROGRAM_START = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
#: MPEG-TS timestamps start here (FFmpeg's muxer default, 1.4 s at 90 kHz).
_TS_START = 126000


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


def encode_segments(
    samples: np.ndarray, rate: int, folder: Path, *, segment_seconds: float = 1.0
) -> list[float]:
    """Encode int16 mono `samples` as AAC in MPEG-TS segments `seg{i}.ts` in `folder` with
    FFmpeg's HLS muxer; the segments' durations."""
    import av

    folder.mkdir(parents=True, exist_ok=True)
    playlist = folder / "encoded.m3u8"
    options = {
        "hls_time": str(segment_seconds),
        "hls_list_size": "0",
        "hls_segment_filename": str(folder / "seg%d.ts"),
    }
    with av.open(str(playlist), "w", format="hls", options=options) as container:
        stream = container.add_stream("aac", rate=rate)
        stream.layout = "mono"
        resampler = av.AudioResampler(
            format=stream.codec_context.format.name, layout="mono", rate=rate
        )
        size = stream.codec_context.frame_size or 1024
        for start in range(0, len(samples), size):
            chunk = samples[start : start + size].reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(chunk, format="s16", layout="mono")
            frame.sample_rate = rate
            frame.pts = start
            frame.time_base = Fraction(1, rate)
            for out in resampler.resample(frame):
                container.mux(stream.encode(out))
        for out in resampler.resample(None):
            container.mux(stream.encode(out))
        container.mux(stream.encode(None))
    text = playlist.read_text(encoding="utf-8")
    return [float(m) for m in re.findall(r"#EXTINF:([\d.]+),", text)]


@dataclass
class LiveState:
    """What the server does and what it saw; the handler reads and writes it under `lock`."""

    folder: Path
    durations: list[float]
    speech_segments: int  # the segments up to the end of the speech (and one of silence)
    window: int = 6
    hold_end: bool = False
    captions: list[Cue] = field(default_factory=list)
    started: float | None = None  # monotonic time of the first playlist request
    released: float | None = None
    end_index: int | None = None  # the last segment, once decided
    ended_at: float | None = None  # when a playlist with ENDLIST was first served
    listed_at: dict[int, float] = field(default_factory=dict)  # segment -> first listed
    requests: list[tuple[float, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def starts(self) -> list[float]:
        return [sum(self.durations[:i]) for i in range(len(self.durations))]

    def _published(self, now: float) -> int:
        """How many segments exist at `now` (each once its end is on the stream's clock)."""
        assert self.started is not None
        elapsed = now - self.started
        ends = np.cumsum(self.durations)
        count = int(np.searchsorted(ends, elapsed, side="right"))
        return max(1, min(count, len(self.durations)))

    def media_playlist(self, kind: str) -> str:
        """The live media playlist (`kind` "audio" or "subs") as it stands now."""
        now = time.monotonic()
        with self.lock:
            if self.started is None:
                self.started = now
            count = self._published(now)
            if self.end_index is None:
                last = len(self.durations) - 1
                if not self.hold_end and count >= self.speech_segments:
                    self.end_index = self.speech_segments - 1
                elif self.hold_end and self.released is not None:
                    self.end_index = max(count - 1, self.speech_segments - 1)
                elif count - 1 >= last:
                    self.end_index = last  # the prepared silence ran out: end anyway
            ended = self.end_index is not None and count - 1 >= self.end_index
            if self.end_index is not None:
                count = min(count, self.end_index + 1)
            first = max(0, count - self.window)
            for index in range(first, count):
                self.listed_at.setdefault(index, now)
            if ended and self.ended_at is None:
                self.ended_at = now
        return _playlist(self, kind, first, count, ended)

    def release(self) -> None:
        """Let a `hold_end` stream end (after the segment being recorded now)."""
        with self.lock:
            self.released = time.monotonic()

    def vtt(self, index: int) -> str:
        """The WebVTT segment `index`: every cue overlapping its time span."""
        starts = self.starts()
        begin, end = starts[index], starts[index] + self.durations[index]
        lines = ["WEBVTT", f"X-TIMESTAMP-MAP=MPEGTS:{_TS_START},LOCAL:00:00:00.000", ""]
        for cue in self.captions:
            if cue.start < end and cue.end > begin:
                lines += [f"{_vtt_time(cue.start)} --> {_vtt_time(cue.end)}", cue.text, ""]
        return "\n".join(lines)


def _vtt_time(seconds: float) -> str:
    whole = int(seconds)
    millis = round((seconds - whole) * 1000)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}.{millis:03d}"


def _playlist(state: LiveState, kind: str, first: int, count: int, ended: bool) -> str:
    target = max(1, round(max(state.durations)))
    lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        f"#EXT-X-TARGETDURATION:{target}",
        f"#EXT-X-MEDIA-SEQUENCE:{first}",
    ]
    starts = state.starts()
    for index in range(first, count):
        when = PROGRAM_START + timedelta(seconds=starts[index])
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{when.isoformat(timespec='milliseconds')}")
        lines.append(f"#EXTINF:{state.durations[index]:.6f},")
        lines.append(f"seg{index}.ts" if kind == "audio" else f"sub{index}.vtt")
    if ended:
        lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def vod_playlist(state: LiveState) -> str:
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0"]
    for index, duration in enumerate(state.durations[: state.speech_segments]):
        lines += [f"#EXTINF:{duration:.6f},", f"seg{index}.ts"]
    return "\n".join([*lines, "#EXT-X-ENDLIST"]) + "\n"


def master_playlist(state: LiveState) -> str:
    lines = ["#EXTM3U"]
    subs = ""
    if state.captions:
        lines.append(
            '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",'
            'DEFAULT=YES,AUTOSELECT=YES,URI="subs.m3u8"'
        )
        subs = ',SUBTITLES="subs"'
    lines += [f'#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"{subs}', "audio.m3u8"]
    return "\n".join(lines) + "\n"


class _Handler(BaseHTTPRequestHandler):
    state: LiveState

    def do_GET(self) -> None:
        state = self.state
        path = self.path.split("?", 1)[0]
        with state.lock:
            state.requests.append((time.monotonic(), path))
        body: bytes
        kind = "application/vnd.apple.mpegurl"
        if path == "/audio.m3u8":
            body = state.media_playlist("audio").encode()
        elif path == "/subs.m3u8":
            body = state.media_playlist("subs").encode()
        elif path == "/master.m3u8":
            body = master_playlist(state).encode()
        elif path == "/vod.m3u8":
            body = vod_playlist(state).encode()
        elif match := re.fullmatch(r"/seg(\d+)\.ts", path):
            file = state.folder / f"seg{match.group(1)}.ts"
            if not file.is_file():
                self.send_error(404)
                return
            body, kind = file.read_bytes(), "video/mp2t"
        elif match := re.fullmatch(r"/sub(\d+)\.vtt", path):
            index = int(match.group(1))
            if index >= len(state.durations):
                self.send_error(404)
                return
            body, kind = state.vtt(index).encode(), "text/vtt"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are recorded in the state, not printed."""


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-answer (a cancelled watch) is no test failure."""


@dataclass
class LiveServer:
    state: LiveState
    port: int

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def audio(self) -> str:
        return self.url("/audio.m3u8")

    @property
    def master(self) -> str:
        return self.url("/master.m3u8")

    def release(self) -> None:
        self.state.release()

    def segment_of(self, seconds: float) -> int:
        """The segment holding the stream's second `seconds`."""
        starts = self.state.starts()
        return max(i for i, s in enumerate(starts) if s <= seconds)

    def requested(self, prefix: str) -> list[float]:
        with self.state.lock:
            return [t for t, p in self.state.requests if p.startswith(prefix)]


def prepare(
    folder: Path,
    speech: np.ndarray,
    rate: int,
    *,
    silence_after: float = 40.0,
    segment_seconds: float = 1.0,
) -> tuple[list[float], int]:
    """Encode `speech` then `silence_after` seconds of silence; (durations, the number of
    segments up to the end of the speech plus one of silence)."""
    tail = np.zeros(int(silence_after * rate), dtype=np.int16)
    durations = encode_segments(
        np.concatenate([speech, tail]), rate, folder, segment_seconds=segment_seconds
    )
    speech_seconds = len(speech) / rate
    ends = np.cumsum(durations)
    speech_segments = int(np.searchsorted(ends, speech_seconds, side="left")) + 2
    return durations, min(speech_segments, len(durations))


@contextmanager
def serve_live(state: LiveState) -> Iterator[LiveServer]:
    handler = type("Handler", (_Handler,), {"state": state})
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LiveServer(state, server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
