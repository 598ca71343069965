"""SponsorBlock without the internet: its recorded answers replayed, in-process or over HTTP.

`replay(...)` is an `httpx.MockTransport` for a core built in the test process (unit and GUI
tests; `replay_web` wraps it as the core's web access); `SponsorBlockServer` serves the same
answers from 127.0.0.1 for a process the test starts (`v2c mcp`), whose settings name it as
`sponsorblock.server`. Both answer
`/api/skipSegments/<prefix>` with the recorded file for that prefix, 404 for any other, or a
scripted status for a prefix the test names in `fail`; both record every request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx

from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web_access import WebAccess

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sponsorblock"
SAMPLE_ID = "spCOYV4KyPA"  # the bundled sample's YouTube id; its prefix is 5a23
ANSWERS = {"5a23": FIXTURES / "skipSegments-5a23.json"}
PATH = "/api/skipSegments/"


@dataclass
class Script:
    """What the replay answers: recorded files by prefix, statuses to fail with instead."""

    answers: Mapping[str, Path] = field(default_factory=lambda: dict(ANSWERS))
    fail: dict[str, int] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)  # each request's path and query

    def answer(self, path: str, query: str) -> tuple[int, dict[str, str], bytes]:
        self.requests.append(f"{path}?{query}" if query else path)
        if not path.startswith(PATH):
            return 404, {}, b"Not Found"
        prefix = path[len(PATH) :]
        if prefix in self.fail:
            status = self.fail[prefix]
            return status, {"Retry-After": "30"} if status == 429 else {}, b"Too many"
        recorded = self.answers.get(prefix)
        if recorded is None:
            return 404, {}, b"Not Found"
        return 200, {"Content-Type": "application/json"}, recorded.read_bytes()

    def categories_asked(self) -> list[list[str]]:
        """The `categories` parameter of each request, decoded."""
        out: list[list[str]] = []
        for request in self.requests:
            query = parse_qs(urlparse(request).query)
            out.append(json.loads(query["categories"][0]) if "categories" in query else [])
        return out


def replay(script: Script) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        assert request.url.host == "sponsor.ajay.app", f"asked {request.url}"
        status, headers, body = script.answer(request.url.path, request.url.query.decode())
        return httpx.Response(status, headers=headers, content=body)

    return httpx.MockTransport(handle)


class NoPages:
    """The info source of a replayed web: these tests read no video page (their videos are
    local files), so any page read fails the test."""

    async def extract(self, url: str, *, flat: bool = False) -> dict[str, Any]:
        raise AssertionError(f"unexpected page read: {url}")


def replay_web(script: Script) -> WebAccess:
    """The core's web access with SponsorBlock replayed by `script` (and no video pages)."""
    client = httpx.AsyncClient(transport=replay(script))
    return WebAccess(NoPages(), client, WebSettings())  # type: ignore[arg-type]


class SponsorBlockServer:
    """The replay on a real HTTP server at `url` (127.0.0.1, a free port)."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        script_ = self.script

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parsed = urlparse(self.path)
                status, headers, body = script_.answer(parsed.path, parsed.query)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
