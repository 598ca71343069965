"""A tiny web site on 127.0.0.1, so the real yt-dlp and httpx can run without the internet."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# path → (status, content type, body, extra headers)
Page = tuple[int, str, bytes, dict[str, str]]

TALK_VTT = (
    b"WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nHello from a page on this machine.\n\n"
    b"00:00:02.500 --> 00:00:05.000\nThe second caption.\n"
)
TALK_HTML = (
    b"<html><head><title>Local talk</title></head><body><video controls>"
    b'<source src="/clip.mp4" type="video/mp4">'
    b'<track kind="captions" src="/subs.en.vtt" srclang="en" label="English">'
    b"</video></body></html>"
)
PAGES: dict[str, Page] = {
    "/talk.html": (200, "text/html", TALK_HTML, {}),
    "/subs.en.vtt": (200, "text/vtt", TALK_VTT, {}),
    "/clip.mp4": (200, "video/mp4", b"\x00" * 64, {}),
    "/page": (
        200,
        "text/html",
        b"<html><head><title>No video</title></head><body>hi</body></html>",
        {},
    ),
    "/busy": (429, "text/plain", b"slow down", {"Retry-After": "60"}),
    "/gone": (404, "text/plain", b"", {}),
}


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, content_type, body, headers = PAGES.get(
            self.path.split("?")[0], (404, "text/plain", b"", {})
        )
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@contextmanager
def serving() -> Iterator[str]:
    """The base URL of the site while the block runs."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
