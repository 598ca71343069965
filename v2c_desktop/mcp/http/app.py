"""The HTTP server's ASGI app: the SDK's Streamable HTTP endpoint at `/mcp`, behind `Guard`.

`Guard` answers every request before the SDK sees it, in this order:

1. a `Host` this server does not answer to: 421 (DNS rebinding, `hosts.py`);
2. a foreign `Origin`: 403;
3. no bearer token, or one that is not in the settings: 401 with `WWW-Authenticate`;
4. a token that has used up its requests: 429 with `Retry-After` (`ratelimit.py`).

Each refusal is a JSON body `{error, message, hint}`. A request that passes carries its
token as the SDK's authenticated user, so the SDK binds each MCP session to the token that
opened it (another token gets 404 for it). The SDK's own Host/Origin check is
off: `Guard`'s is stricter (it checks the port too) and works for `--allow-remote`.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..server import V2CServer
from .auth import TokenBook
from .hosts import HostPolicy, allows_origin
from .ratelimit import RateLimiter

log = logging.getLogger(__name__)
MCP_PATH = "/mcp"
REALM = 'Bearer realm="v2c"'
TOKEN_HINT = (
    "send `Authorization: Bearer <token>` with a token the user made with "
    "`v2c mcp token add NAME` or in the app (Settings → Agents (MCP) → Create token)"
)


def refusal(
    status: int, error: str, message: str, hint: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": error, "message": message, "hint": hint}, status_code=status, headers=headers
    )


class Guard:
    """Host, Origin, bearer token and rate limit, checked before the MCP app runs."""

    def __init__(
        self, app: ASGIApp, hosts: HostPolicy, book: TokenBook, limiter: RateLimiter
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.book = book
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # it opens and closes the library
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a WebSocket: MCP has none here
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = Headers(scope=scope)
        answer, user = self.check(headers)
        if answer is not None:
            await answer(scope, receive, send)
            return
        await self.app({**scope, "user": user}, receive, send)

    def check(self, headers: Headers) -> tuple[JSONResponse | None, Any]:
        """The refusal to send, or None and the user the request is."""
        host = headers.get("host")
        if not self.hosts.allows_host(host):
            log.warning("refused a request for the host %r (port %d)", host, self.hosts.port)
            return refusal(
                421,
                "misdirected",
                f"this server does not answer to the host {host!r}",
                f"connect to http://127.0.0.1:{self.hosts.port}{MCP_PATH}",
            ), None
        origin = headers.get("origin")
        if not allows_origin(origin):
            log.warning("refused a request from the origin %r", origin)
            return refusal(
                403,
                "forbidden",
                f"requests from the web origin {origin!r} are not allowed",
                "only programs on this computer (and pages served from it) may connect",
            ), None
        verdict = self.book.verify(headers.get("authorization"))
        token = verdict.token
        if token is None:
            challenge = REALM + (', error="invalid_token"' if verdict.presented else "")
            message = "the bearer token is not valid" if verdict.presented else "no bearer token"
            return refusal(
                401, "unauthorized", message, TOKEN_HINT, {"WWW-Authenticate": challenge}
            ), None
        wait = self.limiter.check(token.name)
        if wait:
            log.info("token %s is over its rate limit for %d s", token.name, wait)
            return refusal(
                429,
                "rate-limited",
                f"too many requests with the token {token.name}",
                f"wait {wait} s (Retry-After) and try again",
                {"Retry-After": str(wait)},
            ), None
        # the subject makes a session the exact token's, even if another gets its name later
        access = AccessToken(
            token=token.sha256, client_id=token.name, scopes=[], subject=token.sha256
        )
        return None, AuthenticatedUser(access)


def http_app(server: V2CServer, hosts: HostPolicy, book: TokenBook, limiter: RateLimiter) -> Guard:
    """The whole HTTP app for `server`: `/mcp` and nothing else, all of it guarded."""
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return Guard(inner, hosts, book, limiter)
