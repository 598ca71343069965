"""Which hosts an agent's URLs may reach: public ones, unless the user widens it.

An agent is not the user: a URL it passes (and the caption track or redirect that URL leads
to) must not reach this machine or the user's network, where a token URL or an internal page
would be read and put into the library for the agent to read back. `HostGuard` refuses a
URL whose host is, or resolves to, a loopback, private, link-local or otherwise non-global
address; every address a name resolves to is checked, and each redirect hop is checked
again by the caller (`fetch_caption`).

When the request goes through a proxy, the proxy resolves the name, not we: then only
literal addresses and local names (`localhost`) are refused, and no name is looked up here.
A name that does not resolve is let through: the request itself fails with its own error.
The user's own imports (the CLI, the app) are never checked: only an agent's are.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from ...errors import V2CError

PRIVATE_HOST_HINT = (
    "An agent may import only from public web addresses. If the user wants agents to reach "
    "local or private addresses too, they set `agents.allow_private_hosts` to true in v2c's "
    "settings file."
)
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Every address a host name resolves to (none when it does not resolve).
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]


def is_public_address(address: IPAddress) -> bool:
    """A globally routable unicast address (an IPv4 address inside IPv6 judged as itself)."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is not None:
            return is_public_address(inner)
    return address.is_global and not address.is_multicast


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def _is_local_name(host: str) -> bool:
    name = host.rstrip(".").lower()
    return name in _LOCAL_NAMES or name.endswith(".localhost")


def _proxied(url: str, host: str, proxy: str | None) -> bool:
    """Whether the request to `url` goes through a proxy (the setting, else the environment's,
    which httpx and yt-dlp both follow)."""
    if proxy:
        return True
    scheme = urlparse(url).scheme.lower()
    proxies = urllib.request.getproxies()
    if not (proxies.get(scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(host)


async def _resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to; none when it does not resolve."""
    loop = asyncio.get_running_loop()
    try:
        infos: list[Any] = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    found: list[IPAddress] = []
    for info in infos:
        address = _literal(str(info[4][0]))
        if address is not None and address not in found:
            found.append(address)
    return found


@dataclass(frozen=True)
class HostGuard:
    """Refuses URLs that reach loopback, private or link-local hosts; see the module doc."""

    proxy: str | None = None
    resolve: Resolver = field(default=_resolve_host)

    async def check(self, url: str, what: str = "the URL") -> None:
        """Raise a `bad-request` naming `what` (the URL, a redirect of it) when `url` may
        not be reached."""
        parsed = urlparse(url)
        host = (parsed.hostname or "").lower()
        if not host:
            return  # not a web address: the importers refuse it themselves
        refused = await self._refused(url, host, parsed.port, parsed.scheme.lower())
        if refused is not None:
            raise V2CError(
                "bad-request",
                f"refused {what}: {host} is {refused}, which an agent may not reach",
                PRIVATE_HOST_HINT,
                {"host": host},
            )

    async def _refused(self, url: str, host: str, port: int | None, scheme: str) -> str | None:
        if _is_local_name(host):
            return "this machine"
        literal = _literal(host)
        if literal is not None:
            return None if is_public_address(literal) else f"a {_kind(literal)} address"
        if _proxied(url, host, self.proxy):
            return None  # the proxy resolves the name; we cannot see what it finds
        for address in await self.resolve(host, port or (443 if scheme == "https" else 80)):
            if not is_public_address(address):
                return f"a name for the {_kind(address)} address {address}"
        return None


def _kind(address: IPAddress) -> str:
    inner = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    address = inner or address
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_private:
        return "private"
    return "non-public"
