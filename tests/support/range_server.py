"""A real HTTP file server on 127.0.0.1 with Range support, for download tests.

Tests of resume, restart and verification need a server that behaves like a CDN (206
partial content, 416 past the end, or one that ignores Range and answers 200), so this is
stdlib `http.server` in a thread serving real files, recording every request it gets.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


@dataclass
class Served:
    """What the server does; tests change these between requests."""

    files: dict[str, Path]
    ignore_range: bool = False
    chunk_bytes: int = 256 * 1024
    chunk_delay_s: float = 0.0
    requests: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, path: str, headers: Mapping[str, str]) -> None:
        with self.lock:
            self.requests.append({"path": path, **{k.lower(): v for k, v in headers.items()}})


@dataclass
class RangeServer:
    served: Served
    port: int

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def requests(self) -> list[dict[str, str]]:
        return self.served.requests


def _handler(served: Served) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

        def do_GET(self) -> None:
            served.record(self.path, dict(self.headers.items()))
            path = served.files.get(self.path)
            if path is None:
                self._empty(404)
                return
            size = path.stat().st_size
            start, end = 0, size - 1
            status = 200
            match = _RANGE.match(self.headers.get("Range", ""))
            if match and not served.ignore_range:
                start = int(match.group(1))
                if match.group(2):
                    end = min(int(match.group(2)), size - 1)
                if start >= size:
                    self._empty(416, {"Content-Range": f"bytes */{size}"})
                    return
                status = 206
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(end - start + 1))
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            self.end_headers()
            self._send_body(path, start, end - start + 1)

        def _send_body(self, path: Path, start: int, length: int) -> None:
            try:
                with path.open("rb") as handle:
                    handle.seek(start)
                    while length > 0:
                        chunk = handle.read(min(served.chunk_bytes, length))
                        if not chunk:
                            break
                        self.wfile.write(chunk)
                        length -= len(chunk)
                        if served.chunk_delay_s:
                            time.sleep(served.chunk_delay_s)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client cancelled: expected

        def _empty(self, status: int, headers: Mapping[str, str] | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@contextmanager
def range_server(files: Mapping[str, Path], **options: object) -> Iterator[RangeServer]:
    """Serve `files` ({url path: file}) on a free loopback port until the block ends."""
    served = Served(files=dict(files), **options)  # type: ignore[arg-type]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(served))
    httpd.daemon_threads = True
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="range-server", daemon=True
    )
    thread.start()
    try:
        yield RangeServer(served, httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
