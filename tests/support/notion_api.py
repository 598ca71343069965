"""The Notion API's page endpoints on 127.0.0.1, answering as api.notion.com documents.

What v2c's exporter calls (API version 2022-06-28): `POST /v1/pages`, `PATCH
/v1/blocks/{id}/children`, `GET /v1/pages/{id}`. It checks what Notion checks (the bearer
token, the `Notion-Version` header, a parent page shared with the integration, at most 100
children per request, 100 rich-text items per block, 2,000 characters per item) and answers
with Notion's error objects (`{"object": "error", "status", "code", "message"}`) and page
objects. `busy` makes the next requests answer 429 with `Retry-After`, as Notion does when a
client goes over its rate.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "ntn_test_integration_secret_5f1c"
PARENT = "0f3c2b1a9d8e4f7a8b6c5d4e3f2a1b0c"  # a page shared with the integration


@dataclass
class Page:
    id: str
    title: str
    parent: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    in_trash: bool = False

    def text(self) -> str:
        """Every block's text, a line per block."""
        lines = []
        for block in self.blocks:
            rich = block[block["type"]]["rich_text"]
            lines.append("".join(item["text"]["content"] for item in rich))
        return "\n".join(lines)

    def links(self) -> list[str]:
        return [
            item["text"]["link"]["url"]
            for block in self.blocks
            for item in block[block["type"]]["rich_text"]
            if item["text"].get("link")
        ]


def _dashed(raw: str) -> str:
    raw = raw.replace("-", "").lower()
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


class NotionApi:
    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.shared = {_dashed(PARENT)}
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # method, path, headers
        self.busy = 0  # answer this many next requests with 429
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any], **headers: str) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, code: str, message: str, **headers: str) -> None:
                self._send(
                    status,
                    {"object": "error", "status": status, "code": code, "message": message},
                    **headers,
                )

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                with api.lock:
                    api.requests.append((method, self.path, dict(self.headers.items())))
                    if api.busy:
                        api.busy -= 1
                        self._error(
                            429, "rate_limited", "You have been rate limited.", Retry_After="0"
                        )
                        return
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._error(401, "unauthorized", "API token is invalid.")
                    return
                if not self.headers.get("Notion-Version"):
                    self._error(400, "missing_version", "Notion-Version header failed validation.")
                    return
                body = json.loads(raw or b"{}")
                with api.lock:
                    api.route(self, method, body)

            def do_POST(self) -> None:
                self._handle("POST")

            def do_PATCH(self) -> None:
                self._handle("PATCH")

            def do_GET(self) -> None:
                self._handle("GET")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    # -- the endpoints ----------------------------------------------------------------------
    def route(self, handler: Any, method: str, body: dict[str, Any]) -> None:
        path = handler.path.split("?", 1)[0]
        if method == "POST" and path == "/v1/pages":
            self._create(handler, body)
        elif method == "PATCH" and path.startswith("/v1/blocks/") and path.endswith("/children"):
            self._append(handler, path.split("/")[3], body)
        elif method == "GET" and path.startswith("/v1/pages/"):
            page = self.pages.get(_dashed(path.split("/")[3]))
            if page is None:
                handler._error(404, "object_not_found", f"Could not find page with ID: {path}.")
            else:
                handler._send(200, self._page_object(page))
        else:
            handler._error(400, "invalid_request_url", "Invalid request URL.")

    def _problem(self, children: Any) -> str:
        if not isinstance(children, list):
            return "body.children should be an array."
        if len(children) > 100:
            return f"body.children.length should be ≤ `100`, instead was `{len(children)}`."
        for n, block in enumerate(children):
            rich = block.get(block.get("type", ""), {}).get("rich_text")
            if not isinstance(rich, list):
                return f"body.children[{n}] should be a block."
            if len(rich) > 100:
                return f"body.children[{n}].rich_text.length should be ≤ `100`."
            for item in rich:
                if len(item["text"]["content"]) > 2000:
                    return f"body.children[{n}].rich_text.text.content.length should be ≤ 2000."
        return ""

    def _create(self, handler: Any, body: dict[str, Any]) -> None:
        parent = _dashed(str(body.get("parent", {}).get("page_id", "")))
        if parent not in self.shared and parent not in self.pages:
            handler._error(
                404,
                "object_not_found",
                f"Could not find page with ID: {parent}. Make sure the relevant pages and "
                "databases are shared with your integration.",
            )
            return
        children = body.get("children", [])
        problem = self._problem(children)
        if problem:
            handler._error(400, "validation_error", problem)
            return
        title = "".join(t["text"]["content"] for t in body["properties"]["title"]["title"])
        page = Page(str(uuid.uuid4()), title, parent, list(children))
        self.pages[page.id] = page
        handler._send(200, self._page_object(page))

    def _append(self, handler: Any, block_id: str, body: dict[str, Any]) -> None:
        page = self.pages.get(_dashed(block_id))
        if page is None:
            handler._error(404, "object_not_found", f"Could not find block with ID: {block_id}.")
            return
        problem = self._problem(body.get("children"))
        if problem:
            handler._error(400, "validation_error", problem)
            return
        page.blocks.extend(body["children"])
        handler._send(200, {"object": "list", "results": body["children"], "has_more": False})

    def _page_object(self, page: Page) -> dict[str, Any]:
        slug = "-".join(page.title.split()[:5]) or "Untitled"
        return {
            "object": "page",
            "id": page.id,
            "archived": page.in_trash,
            "in_trash": page.in_trash,
            "url": f"https://www.notion.so/{slug}-{page.id.replace('-', '')}",
            "parent": {"type": "page_id", "page_id": page.parent},
            "properties": {"title": {"id": "title", "type": "title"}},
        }

    def children_of(self, parent: str) -> list[Page]:
        return [p for p in self.pages.values() if p.parent == _dashed(parent)]


@contextmanager
def notion_api() -> Iterator[NotionApi]:
    api = NotionApi()
    thread = threading.Thread(target=api.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        api.server.shutdown()
        api.server.server_close()
