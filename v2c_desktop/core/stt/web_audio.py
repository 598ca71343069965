"""Only the audio of a web video, downloaded by yt-dlp to transcribe it: for a video that has
no caption track, when the user consented (`imports.transcribe_without_captions`, or
`v2c add --transcribe-web` for one run).

Why it is built this way:

- Consent first: downloading a video's audio is more than reading its captions (far more
  data, and the site sees a download), so nothing here runs unless the user allowed it.
- yt-dlp downloads it (format `bestaudio/best`) from the info dict the import already read,
  so the formats downloaded are the ones that import saw (and an agent's host check saw),
  through the same proxy, browser cookies and timeout as the rest of the web import.
- The file goes into a private temporary folder (made by `mkdtemp`: mode 0700) that is deleted
  when the transcription ends, fails or is cancelled. The library keeps the words, never the
  audio: a video's media file is one the user put on their computer.
- The size is capped (`WEB_AUDIO_MAX_BYTES`): the site is untrusted, and `best` may be a whole
  video. yt-dlp refuses a file that declares more; the progress hook stops one that streams
  more without saying.
- Cancelling sets a flag that the progress hook checks at every block yt-dlp writes; the
  folder is removed by whichever ends last, the caller or the worker thread, so a cancel that
  stops waiting for the worker still leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..errors import V2CError, upstream
from ..file_kinds import WEB_AUDIO_MAX_BYTES, size_text
from ..importers.web.errors import map_ytdlp_error
from ..importers.web.hosts import HostGuard
from ..importers.web.info_source import parse_cookies_from_browser
from ..importers.web.settings import WebSettings
from ..progress import Progress, ProgressCallback, ignore_progress
from ..stoppable import await_stoppable

#: What yt-dlp downloads: the best audio-only format, else the best single file with sound.
WEB_AUDIO_FORMAT = "bestaudio/best"
#: The temporary folders' name prefix (in the system's temporary directory).
TEMP_PREFIX = "v2c-web-audio-"
STAGE = "web-audio"
#: How long a cancelled download is waited for before the caller goes on (the worker still
#: removes the folder when it stops).
CANCEL_WAIT = 5.0
#: Download progress is reported at most this often (yt-dlp calls its hook at every block).
_REPORT_EVERY_S = 0.25

YoutubeDLFactory = Callable[[dict[str, Any]], Any]


class _Stopped(Exception):
    """Raised inside yt-dlp's progress hook to stop the download: cancelled, or too big."""

    def __init__(self, too_big: bool) -> None:
        super().__init__("too big" if too_big else "cancelled")
        self.too_big = too_big


class _Log:
    """yt-dlp's logger: keeps what it says (a refused size arrives only as a message)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _keep(self, msg: str) -> None:
        if len(self.lines) < 200:
            self.lines.append(msg)

    def debug(self, msg: str) -> None:
        self._keep(msg)

    def info(self, msg: str) -> None:
        self._keep(msg)

    def warning(self, msg: str) -> None:
        self._keep(msg)

    def error(self, msg: str) -> None:
        """Errors also arrive as exceptions, which is where they are handled."""


def audio_options(
    settings: WebSettings,
    folder: Path,
    *,
    max_bytes: int,
    hook: Callable[[dict[str, Any]], None],
    logger: object,
) -> dict[str, Any]:
    """The `YoutubeDL` parameters for downloading one video's audio into `folder`, and
    nothing else (no subtitles, thumbnails or post-processing, which would need ffmpeg)."""
    options: dict[str, Any] = {
        "quiet": True,
        "noprogress": True,
        "color": "no_color",
        "logger": logger,
        "format": WEB_AUDIO_FORMAT,
        "paths": {"home": str(folder), "temp": str(folder)},
        "outtmpl": {"default": "%(title).100B.%(ext)s"},
        "max_filesize": max_bytes,
        "progress_hooks": [hook],
        "noplaylist": True,
        "socket_timeout": settings.timeout,
        "postprocessors": [],
        "fixup": "never",
        "writesubtitles": False,
        "writeautomaticsub": False,
        "writethumbnail": False,
        "writeinfojson": False,
        "overwrites": True,
        "continuedl": False,
    }
    if settings.cookies_from_browser:
        options["cookiesfrombrowser"] = parse_cookies_from_browser(settings.cookies_from_browser)
    if settings.proxy:
        options["proxy"] = settings.proxy
    return options


def _default_factory(options: dict[str, Any]) -> Any:
    import yt_dlp

    return yt_dlp.YoutubeDL(options)


def _title(info: dict[str, Any]) -> str:
    return str(info.get("title") or info.get("id") or "the video")


def _too_big(info: dict[str, Any], max_bytes: int) -> V2CError:
    return V2CError(
        "upstream",
        f"The audio of {_title(info)} is larger than {size_text(max_bytes)}, so it was not "
        "downloaded to transcribe",
        "Download the video (or its audio) yourself and add that file to the library: it is "
        "transcribed from there.",
        {"url": str(info.get("webpage_url") or ""), "max_bytes": max_bytes, "kind": "too-big"},
    )


def _downloaded(result: Any, folder: Path) -> Path | None:
    """The file yt-dlp wrote into `folder`: what it reports, else the one complete file."""
    if isinstance(result, dict):
        for download in result.get("requested_downloads") or []:
            path = download.get("filepath") if isinstance(download, dict) else None
            if path and Path(path).is_file() and Path(path).parent == folder:
                return Path(path)
    found = [p for p in folder.iterdir() if p.is_file() and not p.name.endswith((".part", ".ytdl"))]
    return found[0] if len(found) == 1 else None


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def download_blocking(
    info: dict[str, Any],
    settings: WebSettings,
    folder: Path,
    *,
    max_bytes: int = WEB_AUDIO_MAX_BYTES,
    cancel: threading.Event,
    report: Callable[[int, int | None], None] = lambda done, total: None,
    factory: YoutubeDLFactory | None = None,
) -> Path:
    """Download the audio of the video `info` describes into `folder` (blocking: run it in a
    worker thread); the file's path. Raises `V2CError`, or `_Stopped` once `cancel` is set."""
    log = _Log()

    def hook(status: dict[str, Any]) -> None:
        if cancel.is_set():
            raise _Stopped(too_big=False)
        done = int(status.get("downloaded_bytes") or 0)
        if done > max_bytes:
            raise _Stopped(too_big=True)
        total = status.get("total_bytes") or status.get("total_bytes_estimate")
        report(done, int(total) if total else None)

    options = audio_options(settings, folder, max_bytes=max_bytes, hook=hook, logger=log)
    url = str(info.get("webpage_url") or info.get("original_url") or "")
    try:
        with (factory or _default_factory)(options) as ydl:
            result = ydl.process_ie_result(copy.deepcopy(info), download=True)
    except _Stopped as stop:
        if stop.too_big:
            raise _too_big(info, max_bytes) from None
        raise
    except V2CError:
        raise
    except Exception as exc:  # yt-dlp raises many unrelated types; all become V2CError
        raise map_ytdlp_error(exc, url=url) from None
    path = _downloaded(result, folder)
    if path is None:
        if any("max-filesize" in line for line in log.lines):
            raise _too_big(info, max_bytes)
        raise upstream(
            f"yt-dlp downloaded no audio of {_title(info)}",
            "The site may offer no downloadable format for it; try again later, or add a "
            "subtitle file or a media file of the video instead.",
        )
    return path


async def check_audio_hosts(info: dict[str, Any], guard: HostGuard) -> None:
    """An agent's import: every host the video's formats would be downloaded from must be one
    the agent may reach (the page itself was checked before yt-dlp read it).

    The HTTP redirects of the download itself are followed by yt-dlp, unchecked: so agents
    download audio only when the user consented (the same setting as for their own imports).
    """
    seen: set[tuple[str, str, int | None]] = set()
    for fmt in info.get("formats") or []:
        if not isinstance(fmt, dict):
            continue
        for key in ("url", "manifest_url", "fragment_base_url"):
            url = str(fmt.get(key) or "")
            if not url.startswith(("http://", "https://")):
                continue
            parsed = urlparse(url)
            where = (parsed.scheme, (parsed.hostname or "").lower(), parsed.port)
            if where not in seen:
                seen.add(where)
                await guard.check(url, "the video's audio")


@contextlib.asynccontextmanager
async def downloaded_audio(
    info: dict[str, Any],
    settings: WebSettings,
    *,
    max_bytes: int = WEB_AUDIO_MAX_BYTES,
    progress: ProgressCallback = ignore_progress,
    factory: YoutubeDLFactory | None = None,
) -> AsyncIterator[Path]:
    """The video's audio file, downloaded into a private temporary folder for the `async
    with` block, and deleted with its folder when the block ends however it ends."""
    folder = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    cancel = threading.Event()
    loop = asyncio.get_running_loop()
    title = _title(info)
    last = 0.0

    def report(done: int, total: int | None) -> None:  # in the worker thread
        nonlocal last
        now = time.monotonic()
        if cancel.is_set() or now - last < _REPORT_EVERY_S:
            return
        last = now
        said = f"{size_text(done)} of {size_text(total)}" if total else size_text(done)
        event = Progress(STAGE, done, total, f"{title}: downloading its audio ({said})")
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
            loop.call_soon_threadsafe(progress, event)

    def work() -> Path:
        try:
            return download_blocking(
                info,
                settings,
                folder,
                max_bytes=max_bytes,
                cancel=cancel,
                report=report,
                factory=factory,
            )
        finally:
            if cancel.is_set():  # the caller stopped waiting: the last one out cleans up
                _remove(folder)

    progress(Progress(STAGE, 0, None, f"{title}: downloading its audio to transcribe it"))
    job = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        try:
            path = await await_stoppable(job, cancel, CANCEL_WAIT)
        except _Stopped:
            raise asyncio.CancelledError() from None
        yield path
    finally:
        cancel.set()
        _remove(folder)
