"""Which `Host` and `Origin` headers the HTTP server answers: its defence against DNS rebinding.

A web page the user opens can make their browser send requests to `127.0.0.1`, by pointing
a name it controls at that address (DNS rebinding) or by sending them from its own origin.
The browser then names the page's host in `Host` and its origin in `Origin`, so:

- `Host` must name this server: a loopback name or address with the port it listens on.
  Bound to another address on purpose (`--allow-remote`), any IP address with that port is
  accepted too (rebinding needs a DNS name, never an address), and the name it was bound to.
- `Origin`, when a request carries one (browsers do; agents' HTTP clients do not), must be
  a loopback origin, `http` or `https`, on any port (a local tool's web page).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost"})


def ip_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address `host` is written as ("[::1]" too), or None for a name."""
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """`localhost`, 127.0.0.0/8 or ::1 (a name or an address, any case)."""
    if host.lower().rstrip(".") in LOOPBACK_NAMES:
        return True
    address = ip_of(host)
    return address is not None and address.is_loopback


def split_host(value: str) -> tuple[str, int | None] | None:
    """("127.0.0.1", 8732) from "127.0.0.1:8732", ("::1", None) from "[::1]"; None when
    `value` is not a host with an optional port."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1 :]
        if ip_of(host) is None:
            return None
    else:
        host, colon, port_text = value.partition(":")
        rest = f":{port_text}" if colon else ""
        if ":" in port_text:  # a bare IPv6 address: not valid in a Host header
            return None
    if not host:
        return None
    if not rest:
        return host, None
    if not rest.startswith(":") or not rest[1:].isdigit() or len(rest) > 6:
        return None
    return host, int(rest[1:])


@dataclass(frozen=True)
class HostPolicy:
    """The `Host` headers a server listening on `port` answers.

    `remote`: it was bound to a non-loopback address on purpose, so IP addresses and
    `names` (the name it was bound to) are accepted besides the loopback ones.
    """

    port: int
    remote: bool = False
    names: frozenset[str] = field(default_factory=frozenset)

    def allows_host(self, header: str | None) -> bool:
        parts = split_host(header or "")
        if parts is None:
            return False
        host, port = parts
        if (port if port is not None else 80) != self.port:
            return False
        if is_loopback(host):
            return True
        return self.remote and (ip_of(host) is not None or host.lower() in self.names)


def allows_origin(header: str | None) -> bool:
    """No `Origin`, or a loopback one (`http://localhost:5173`); never `null`."""
    if header is None:
        return True
    try:
        origin = urlsplit(header.strip())
        host = origin.hostname
        origin.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError:
        return False
    if origin.scheme not in ("http", "https") or not host or origin.path not in ("", "/"):
        return False
    return is_loopback(host)
