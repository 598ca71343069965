"""Video thumbnails for the faces: an image file on disk per video, or nothing.

Where a thumbnail comes from, in order:

1. an image beside the video's local file (yt-dlp's `--write-thumbnail` leaves
   `<name>.jpg`, `.png` or `.webp` next to `<name>.mp4` and `<name>.en.vtt`);
2. a still frame of the local video file itself (`video_frame.py`, PyAV);
3. the video's own thumbnail URL (what its importer recorded), downloaded once with httpx
   into `<cache>/thumbnails/` under a name made from the URL's hash, so it is read from
   disk ever after, online or not;
4. nothing (""): the face draws its placeholder.

A download that fails (offline, refused, not an image) is not tried again for
`retry_after` seconds, so a list asking for every row's thumbnail while offline makes one
attempt per video, not one per repaint. At most `MAX_DOWNLOADS` run at once, each bounded
in time (the client's timeout) and size (`MAX_BYTES`), and written through a temporary
file and an atomic rename, so a half-written image is never served.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from .domain.videos import Video
from .file_kinds import is_media
from .ids import is_web
from .video_frame import frame_key, frame_ppm

MAX_BYTES = 2 * 1024 * 1024
MAX_DOWNLOADS = 4
RETRY_AFTER_S = 600.0
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
_TYPES = {
    "image/jpeg": ".jpg",
    "image/jpg": ".jpg",
    "image/png": ".png",
    "image/webp": ".webp",
    "image/gif": ".gif",
}

ClientFactory = Callable[[], httpx.AsyncClient]


class Thumbnails:
    """One per open library (owner side); `path_for` never raises for a missing picture."""

    def __init__(
        self,
        cache_dir: Path,
        client: ClientFactory | None = None,
        *,
        retry_after: float = RETRY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cache_dir = cache_dir
        self._make_client = client or _default_client
        self._client: httpx.AsyncClient | None = None
        self._retry_after = retry_after
        self._clock = clock
        self._failed: dict[str, float] = {}  # url -> when it last failed
        self._running: dict[str, asyncio.Task[str]] = {}  # one download per url at a time
        self._slots = asyncio.Semaphore(MAX_DOWNLOADS)

    async def path_for(self, video: Video) -> str:
        """The path of an image of `video`, or "" when it has none (yet)."""
        beside = await asyncio.to_thread(image_beside, video.source_path)
        if beside:
            return beside
        if video.source_path and is_media(video.source_path):
            frame = await asyncio.to_thread(self._frame, Path(video.source_path))
            if frame:
                return frame
        url = video.thumbnail_url
        if not is_web(url):
            return ""
        cached = await asyncio.to_thread(self._cached, url)
        if cached:
            return cached
        failed_at = self._failed.get(url)
        if failed_at is not None and self._clock() - failed_at < self._retry_after:
            return ""
        task = self._running.get(url)
        if task is None:
            task = asyncio.ensure_future(self._download(url))
            self._running[url] = task
            task.add_done_callback(lambda _t: self._running.pop(url, None))
        return await asyncio.shield(task)

    def _frame(self, media: Path) -> str:
        """A cached still of the local video `media` (made on first use), or ""."""
        name = frame_key(media)
        if name is None:
            return ""
        target = self.cache_dir / name
        if target.is_file():
            return str(target)
        body = frame_ppm(media)
        if body is None:
            return ""
        try:
            _write_atomically(target, body)
        except OSError:
            return ""
        return str(target)

    def _stem(self, url: str) -> str:
        return hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]

    def _cached(self, url: str) -> str:
        stem = self._stem(url)
        for suffix in (*_TYPES.values(), ""):
            path = self.cache_dir / f"{stem}{suffix}"
            if path.is_file() and path.stat().st_size > 0:
                return str(path)
        return ""

    async def _download(self, url: str) -> str:
        async with self._slots:
            try:
                body, suffix = await self._fetch(url)
            except (httpx.HTTPError, OSError, ValueError):
                self._failed[url] = self._clock()
                return ""
            path = self.cache_dir / f"{self._stem(url)}{suffix}"
            try:
                await asyncio.to_thread(_write_atomically, path, body)
            except OSError:
                self._failed[url] = self._clock()
                return ""
            self._failed.pop(url, None)
            return str(path)

    async def _fetch(self, url: str) -> tuple[bytes, str]:
        if self._client is None:
            self._client = self._make_client()
        async with self._client.stream("GET", url, follow_redirects=True) as response:
            response.raise_for_status()
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            suffix = _TYPES.get(kind)
            if suffix is None:
                raise ValueError(f"not an image: {kind or 'no content type'}")
            body = bytearray()
            async for part in response.aiter_bytes():
                body += part
                if len(body) > MAX_BYTES:
                    raise ValueError("image too large")
        if not body:
            raise ValueError("empty image")
        return bytes(body), suffix

    async def aclose(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def image_beside(source_path: str) -> str:
    """An image file named like the video's local file (`talk.mp4` or `talk.en.vtt` ->
    `talk.jpg`), or ""."""
    if not source_path:
        return ""
    source = Path(source_path)
    stems = {source.stem}
    name = source.name
    while "." in name:  # talk.en.vtt -> talk.en -> talk
        name = name.rsplit(".", 1)[0]
        stems.add(name)
    for stem in sorted(stems, key=len, reverse=True):
        for suffix in IMAGE_SUFFIXES:
            candidate = source.with_name(stem + suffix)
            if candidate != source and candidate.is_file():
                return str(candidate)
    return ""


def _write_atomically(path: Path, body: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(body)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _default_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=httpx.Timeout(15.0), follow_redirects=True)
