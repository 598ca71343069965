"""Resumable, verified downloads of multi-gigabyte model files.

A laptop on hotel Wi-Fi loses connections and gets closed mid-download, so the file is
written to `<dest>.part` and a later call resumes it with an HTTP Range request. Nothing
reaches `dest` until its size and sha256 are right, and the rename is atomic: a model path
either holds the whole, verified file or nothing.

Cancelling (setting the `cancel` event) stops promptly, keeps the `.part` for a resume and
raises `asyncio.CancelledError`, the same signal as cancelling the awaiting task.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import math
import os
import re
import shutil
import socket
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeVar, cast
from urllib.parse import urlparse

import httpx

import v2c_desktop

from ...errors import V2CError
from ...progress import Progress, ProgressCallback

CHUNK_BYTES = 1024 * 1024
PROGRESS_INTERVAL_S = 0.25
FREE_SPACE_MARGIN = 256 * 1024 * 1024
STAGE = "download"
#: Worded per face by `core.errors.render_hint` (a command to re-run, a button to click).
RESUME_HINT = "{download-again}"
_OFFLINE_ERRNOS = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN})

_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
T = TypeVar("T")


def make_http_client() -> httpx.AsyncClient:
    """The client the app downloads with: redirects followed (Hugging Face uses a CDN)."""
    return httpx.AsyncClient(
        follow_redirects=True,
        timeout=httpx.Timeout(30.0, read=60.0),
        headers={"User-Agent": f"v2c-desktop/{v2c_desktop.__version__}"},
    )


async def download(
    url: str,
    dest: Path,
    *,
    http: httpx.AsyncClient,
    expected_sha256: str | None,
    expected_size: int | None,
    progress: ProgressCallback,
    cancel: asyncio.Event | None = None,
) -> Path:
    """Fetch `url` into `dest`, resuming a `.part` left by an earlier attempt.

    Raises `V2CError("upstream")` for HTTP and network failures (the `.part` is kept, so a
    re-run resumes) and for a wrong size or checksum (the `.part` is deleted: it cannot be
    resumed into the right file); `V2CError("internal")` when the disk is too full; and
    `asyncio.CancelledError` when `cancel` is set.
    """
    job = _Job(url, dest, expected_sha256, expected_size, progress)
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = job.part_size()
    if expected_size is not None and have > expected_size:
        job.discard()  # longer than the real file: it cannot be a prefix of it
        have = 0
    _check_free_space(dest, (expected_size - have) if expected_size is not None else None)
    if have:
        await _until_cancelled(asyncio.to_thread(job.rehash, have), cancel)
        job.report(force=True)
    if expected_size is not None and have == expected_size:
        return job.finish()  # everything arrived before; only the rename was missing
    await _until_cancelled(_fetch(job, http), cancel)
    return job.finish()


@dataclass
class _Job:
    """One download's state: where it writes, what it expects, how far it got."""

    url: str
    dest: Path
    expected_sha256: str | None
    expected_size: int | None
    progress: ProgressCallback
    done: int = 0
    total: int | None = None
    hasher: hashlib._Hash = field(default_factory=hashlib.sha256)
    last_report: float = -math.inf

    def __post_init__(self) -> None:
        self.total = self.expected_size

    @property
    def part(self) -> Path:
        return self.dest.with_suffix(self.dest.suffix + ".part")

    @property
    def name(self) -> str:
        return self.dest.name

    def part_size(self) -> int:
        try:
            return self.part.stat().st_size
        except FileNotFoundError:
            return 0

    def discard(self) -> None:
        self.part.unlink(missing_ok=True)
        self.restart()

    def restart(self) -> None:
        self.done = 0
        self.hasher = hashlib.sha256()

    def rehash(self, have: int) -> None:
        """Hash the bytes already on disk so the final checksum covers the whole file.

        Runs in a worker thread (gigabytes take seconds), so it reports nothing itself:
        progress listeners expect the event loop's thread.
        """
        with self.part.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                self.hasher.update(chunk)
        self.done = have

    def write(self, handle: IO[bytes], chunk: bytes) -> bool:
        """Append a chunk; False once more bytes arrived than the file should have."""
        handle.write(chunk)
        self.hasher.update(chunk)
        self.done += len(chunk)
        self.report()
        return self.expected_size is None or self.done <= self.expected_size

    def report(self, *, force: bool = False, message: str = "") -> None:
        """At most a few events a second: a GUI repaint per chunk would cost more than I/O."""
        now = time.monotonic()
        if force or now - self.last_report >= PROGRESS_INTERVAL_S:
            self.last_report = now
            self.progress(Progress(STAGE, self.done, self.total, message or self.name))

    def finish(self) -> Path:
        """Check size and checksum, then move the file into place atomically."""
        size = self.part_size()
        if self.expected_size is not None and size != self.expected_size:
            self.discard()
            raise self.mismatch(f"got {size} bytes, expected {self.expected_size}")
        if self.expected_sha256 is not None:
            digest = self.hasher.hexdigest()
            if digest != self.expected_sha256:
                self.discard()
                raise self.mismatch(
                    f"sha256 is {digest}, expected {self.expected_sha256}", checksum=True
                )
        os.replace(self.part, self.dest)
        self.done = self.total = size
        self.report(force=True)
        return self.dest

    def mismatch(self, detail: str, *, checksum: bool = False) -> V2CError:
        what = "checksum" if checksum else "size"
        return V2CError(
            "upstream",
            f"{self.name} from {_host(self.url)} has the wrong {what}: {detail}",
            "the partial file was deleted; run again to download it afresh, and if it fails "
            "again the file on the server has changed: update the app's model catalog",
            {"url": self.url, "dest": str(self.dest)},
        )


async def _fetch(job: _Job, http: httpx.AsyncClient) -> None:
    have = job.done
    headers = {"Accept-Encoding": "identity"}  # byte offsets must be file offsets
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        async with http.stream("GET", job.url, headers=headers, follow_redirects=True) as reply:
            mode = _accept(job, reply, have)
            if mode is None:
                return  # 416: the .part already holds the whole file
            with job.part.open(mode) as handle:
                # aclosing: a cancelled download closes the body's generator in this task,
                # not later from the garbage collector (httpcore then fails to release it)
                async with contextlib.aclosing(
                    _generator(reply.aiter_bytes(CHUNK_BYTES))
                ) as chunks:
                    async for chunk in chunks:
                        if not job.write(handle, chunk):
                            break
                handle.flush()
                os.fsync(handle.fileno())
    except httpx.HTTPError as exc:
        raise _network_error(job, exc) from exc
    except OSError as exc:
        raise _write_error(job, exc) from exc
    if job.expected_size is not None and job.done > job.expected_size:
        job.discard()  # only now: Windows cannot delete a file that is still open
        raise job.mismatch(f"the server sent more than {job.expected_size} bytes")


def _accept(job: _Job, reply: httpx.Response, have: int) -> str | None:
    """How to write this response into the `.part` ('ab' or 'wb'), or None if it is complete."""
    if reply.status_code == 416 and have:
        return None
    if reply.status_code == 206:
        start, total = _content_range(reply)
        if start != have:
            job.discard()
            raise V2CError(
                "upstream",
                f"{_host(job.url)} resumed {job.name} at byte {start}, not {have}",
                "the partial file was deleted; run again to download from the start",
            )
        _set_total(job, total)
        return "ab"
    if reply.status_code == 200:
        if have:
            job.restart()  # the server ignored Range: it is sending the whole file again
            job.report(force=True, message=f"{job.name}: server cannot resume; restarting")
        length = reply.headers.get("Content-Length")
        _set_total(job, int(length) if length and length.isdigit() else None)
        return "wb"
    raise _http_error(job, reply.status_code)


def _set_total(job: _Job, total: int | None) -> None:
    if total is None:
        return
    if job.expected_size is not None and total != job.expected_size:
        job.discard()
        raise job.mismatch(f"the server offers {total} bytes, expected {job.expected_size}")
    if job.expected_size is None:
        _check_free_space(job.dest, total - job.done)
    job.total = total


def _content_range(reply: httpx.Response) -> tuple[int, int | None]:
    match = _CONTENT_RANGE.match(reply.headers.get("Content-Range", ""))
    if not match:
        return -1, None
    total = match.group(3)
    return int(match.group(1)), (int(total) if total != "*" else None)


def _http_error(job: _Job, status: int) -> V2CError:
    host, details = _host(job.url), {"url": job.url, "status": status}
    if status in (401, 403):
        return V2CError(
            "upstream",
            f"the server refused the download of {job.name} (HTTP {status} from {host})",
            "it may need a login, or a licence accepted on the model's web page",
            details,
        )
    if status == 404:
        hint = "the file has moved or the catalog entry is out of date: update the app"
    else:
        hint = RESUME_HINT
    return V2CError(
        "upstream", f"downloading {job.name} failed: HTTP {status} from {host}", hint, details
    )


def _network_error(job: _Job, exc: httpx.HTTPError) -> V2CError:
    """What went wrong on the way, in the words a person uses: offline, refused, too slow."""
    host, cause = _host(job.url), _os_cause(exc)
    details = {"url": job.url, "reason": f"{type(exc).__name__}: {exc}"}
    if isinstance(exc, httpx.ConnectError) and isinstance(cause, ConnectionRefusedError):
        message = f"the server refused the connection: {host} did not accept the download"
        hint = f"the server may be down for a while; later, {RESUME_HINT}"
    elif isinstance(exc, httpx.ConnectError) and (
        isinstance(cause, socket.gaierror) or getattr(cause, "errno", None) in _OFFLINE_ERRNOS
    ):
        message = f"no internet connection: {host} cannot be reached to download {job.name}"
        hint = f"connect to the internet, then {RESUME_HINT}"
    elif isinstance(exc, httpx.TimeoutException):
        message = f"the connection to {host} timed out while downloading {job.name}"
        hint = f"the network may be slow or down; {RESUME_HINT}"
    else:
        message = f"the connection to {host} broke off while downloading {job.name}"
        hint = RESUME_HINT
    return V2CError("upstream", message, hint, details)


def _write_error(job: _Job, exc: OSError) -> V2CError:
    folder = job.part.parent
    if exc.errno == errno.ENOSPC:
        return V2CError(
            "internal",
            f"disk full: {job.name} could not be saved in {folder}",
            f"free some space on that disk, then {RESUME_HINT}",
            {"path": str(job.part)},
        )
    return V2CError(
        "internal",
        f"could not write {job.part}: {exc.strerror or exc}",
        f"check the disk; {RESUME_HINT}",
        {"path": str(job.part)},
    )


def _os_cause(exc: BaseException) -> BaseException | None:
    """The operating system's error under httpx's (refused, name not found, ...), if any."""
    seen: BaseException | None = exc
    for _ in range(8):  # httpx wraps httpcore, which wraps the socket's error
        if seen is None:
            return None
        seen = seen.__cause__ or seen.__context__
        if isinstance(seen, OSError) and seen.errno is not None:
            return seen
    return None


def _check_free_space(dest: Path, remaining: int | None) -> None:
    """Refuse before the first byte rather than fill the disk and fail near the end."""
    if remaining is None or remaining <= 0:
        return
    usage = shutil.disk_usage(dest.parent)
    needed = remaining + FREE_SPACE_MARGIN
    if usage.free >= needed:
        return
    short_gb = math.ceil((needed - usage.free) / 1e8) / 10
    raise V2CError(
        "internal",
        f"disk too full for {dest.name}: {remaining / 1e9:.1f} GB still to download, "
        f"{usage.free / 1e9:.1f} GB free on {dest.parent}",
        f"free {short_gb:.1f} GB on {dest.parent}",
        {"needed": needed, "free": usage.free},
    )


async def _until_cancelled(work: Awaitable[T], cancel: asyncio.Event | None) -> T:
    """Await `work`, but stop as soon as `cancel` is set, even mid-read on a stalled socket."""
    if cancel is None:
        return await work
    if cancel.is_set():
        _close(work)
        raise asyncio.CancelledError("download cancelled")
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        # Also on our own cancellation: the work closes its file and connection first.
        for pending in (task, waiter):
            if not pending.done():
                pending.cancel()
        await asyncio.gather(task, waiter, return_exceptions=True)
    if task.cancelled():
        raise asyncio.CancelledError("download cancelled")
    return task.result()


def _close(work: Awaitable[object]) -> None:
    close = getattr(work, "close", None)
    if callable(close):
        close()


def _host(url: str) -> str:
    return urlparse(url).netloc or url


def _generator(chunks: AsyncIterator[bytes]) -> AsyncGenerator[bytes, None]:
    """httpx types `aiter_bytes` as an iterator; it is an async generator (it has aclose)."""
    return cast(AsyncGenerator[bytes, None], chunks)
