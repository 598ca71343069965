"""The few Notion API calls an export makes, with Notion's answers turned into typed errors.

`POST /v1/pages` (a page under a page, with its first 100 blocks), `PATCH
/v1/blocks/{id}/children` (the rest, 100 at a time) and `GET /v1/pages/{id}` (is the page
made last time still there?), API version 2022-06-28. A 429 or a 5xx is tried again after
Notion's `Retry-After` (at most `RETRIES` times, each wait capped); 401 is a token Notion
refused, 403/404 a page the integration cannot see. The token goes only in the
Authorization header of requests to `api_url`: never in a message, a hint or a log.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import V2CError, bad_request, not_found, rate_limited, upstream
from .blocks import Block, batches

NOTION_VERSION = "2022-06-28"
RETRIES = 3
MAX_WAIT_S = 30.0
UNAUTHORIZED = "unauthorized"  # in a refused token's error details: the export stops
TIMEOUT = httpx.Timeout(30.0, connect=10.0)
_ID = re.compile(r"([0-9a-fA-F]{32})|([0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})")


def page_id(text: str) -> str:
    """A Notion page id from what a user pastes: the id (with or without dashes) or the
    page's URL (`https://www.notion.so/Title-0123...cdef?pvs=4`); dashed, lower case."""
    tail = text.strip().split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    matches = list(_ID.finditer(tail))
    if not matches:
        raise bad_request(
            f"{text.strip()[:80]!r} is not a Notion page URL or id",
            "copy the page's link in Notion (… → Copy link) and give that, "
            "or its 32-character id; {notion-parent}",
        )
    raw = matches[-1].group(0).replace("-", "").lower()
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


@dataclass(frozen=True, slots=True)
class CreatedPage:
    id: str
    url: str


class NotionClient:
    """One export's connection to the Notion API."""

    def __init__(self, api_url: str, token: str, *, wait: Any = asyncio.sleep) -> None:
        self._http = httpx.AsyncClient(
            base_url=api_url.rstrip("/"),
            headers={
                "Authorization": f"Bearer {token}",
                "Notion-Version": NOTION_VERSION,
                "Content-Type": "application/json",
            },
            timeout=TIMEOUT,
            follow_redirects=False,  # the token never follows a redirect elsewhere
        )
        self._wait = wait

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> NotionClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def create_page(self, parent: str, title: str, blocks: list[Block]) -> CreatedPage:
        """The page under `parent` with all of `blocks` (the first request carries 100)."""
        parts = batches(blocks) or [[]]
        body = {
            "parent": {"type": "page_id", "page_id": parent},
            "properties": {"title": {"title": [{"type": "text", "text": {"content": title}}]}},
            "children": parts[0],
        }
        made = await self._call("POST", "/v1/pages", body)
        page = CreatedPage(str(made.get("id") or ""), str(made.get("url") or ""))
        if not page.id:
            raise upstream("Notion made the page but did not say its id", "try again")
        for part in parts[1:]:
            await self._call("PATCH", f"/v1/blocks/{page.id}/children", {"children": part})
        return page

    async def page_exists(self, page: str) -> bool:
        """Whether the page is there and not in the trash."""
        try:
            found = await self._call("GET", f"/v1/pages/{page}")
        except V2CError as error:
            if error.code == "not-found":
                return False
            raise
        return not (found.get("archived") or found.get("in_trash"))

    async def _call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        for attempt in range(RETRIES + 1):
            try:
                response = await self._http.request(method, path, json=body)
            except httpx.HTTPError as exc:
                raise upstream(
                    f"could not reach Notion ({type(exc).__name__})",
                    "check the internet connection (and {proxy}), then export again: "
                    "videos already exported are not exported twice",
                ) from None
            if response.status_code in (429, 500, 502, 503, 504) and attempt < RETRIES:
                await self._wait(_retry_after(response, attempt))
                continue
            return _answer(response)
        raise AssertionError("unreachable")  # pragma: no cover


def _retry_after(response: httpx.Response, attempt: int) -> float:
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        seconds = 2.0**attempt
    return max(0.0, min(seconds, MAX_WAIT_S))


def _answer(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    if response.is_success:
        return data
    code = str(data.get("code") or "")
    said = str(data.get("message") or "")[:300]  # Notion's words, for the user to read
    status = response.status_code
    if status == 401:
        raise V2CError(
            "bad-request",
            "Notion refused the token (unauthorized)",
            "check {notion-token}: it is the integration's secret, starting ntn_ or secret_",
            {"notion": UNAUTHORIZED},
        )
    if status in (403, 404):
        raise not_found(
            f"Notion says the integration cannot see that page ({code or status})",
            "in Notion, open the page, then … → Connections → add your integration; "
            "or give another page: {notion-parent}",
        )
    if status == 429:
        raise rate_limited(
            "Notion asked to slow down and kept refusing", "wait a minute and export again"
        )
    if status == 400:
        raise bad_request(
            f"Notion refused the request: {said or code}", "report this with the video"
        )
    raise upstream(f"Notion answered {status} {code}".strip(), "try again in a few minutes")
