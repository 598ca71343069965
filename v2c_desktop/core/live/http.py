"""One capped GET of a live stream's playlist or segment, each redirect hop checked for agents.

A live stream is read as many small requests (a playlist every few seconds, each segment
once), so they go through the core's shared httpx client (the user's proxy, its timeout) on
the event loop, where cancelling the watch stops a request at once. The site is untrusted:
a body is read in pieces and refused past `max_bytes`; an agent's watch (`guard`) checks the
URL and every redirect hop before it is requested, as a caption download does.
"""

from __future__ import annotations

from urllib.parse import urlparse

import httpx

from ..errors import V2CError
from ..file_kinds import size_text
from ..importers.web.fetch import USER_AGENT, network_error
from ..importers.web.hosts import HostGuard

MAX_REDIRECTS = 10


def host_of(url: str) -> str:
    return (urlparse(url).hostname or "the site").lower()


async def get_capped(
    http: httpx.AsyncClient,
    url: str,
    *,
    what: str,
    max_bytes: int,
    timeout: float,
    guard: HostGuard | None = None,
) -> tuple[str, bytes]:
    """(the final URL, the body) of GET `url`; `what` names it in errors ("the playlist").

    Raises `V2CError`: `upstream` for an HTTP error status, a body over `max_bytes` or a
    network failure (with `details["status"]` when the site answered), `bad-request` for a
    hop the guard refuses.
    """
    current = url
    headers = {"User-Agent": USER_AGENT}
    try:
        for _ in range(MAX_REDIRECTS + 1):
            if guard is not None:
                await guard.check(current, what)
            async with http.stream(
                "GET", current, headers=headers, timeout=timeout, follow_redirects=False
            ) as response:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    current = str(response.url.join(location))
                    continue
                if response.status_code >= 400:
                    raise V2CError(
                        "upstream",
                        f"{host_of(url)} answered HTTP {response.status_code} for {what}",
                        "The stream may have ended or moved; try again, or check the address.",
                        {"url": url, "status": response.status_code},
                    )
                return current, await _read_capped(response, url, what, max_bytes)
    except httpx.HTTPError as exc:
        raise network_error(f"Could not read {what} from {host_of(url)}", url, exc) from None
    raise V2CError(
        "upstream",
        f"{host_of(url)} redirected {what} more than {MAX_REDIRECTS} times",
        "Check the address; the stream may have moved.",
        {"url": url},
    )


async def _read_capped(response: httpx.Response, url: str, what: str, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _too_big(url, what, max_bytes)
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise _too_big(url, what, max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_big(url: str, what: str, max_bytes: int) -> V2CError:
    return V2CError(
        "upstream",
        f"{host_of(url)} sent more than {size_text(max_bytes)} for {what}, so it was not read",
        "This is not the live stream it claims to be; check the address.",
        {"url": url, "max_bytes": max_bytes},
    )
