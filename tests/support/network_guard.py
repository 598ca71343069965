"""No test may reach the internet: sockets and name lookups stay on this machine.

One guard serves the test process (installed per test by tests/conftest.py, through
monkeypatch) and every Python process a test starts (installed at start-up by
tests/support/guarded_python/sitecustomize.py, which the children find on PYTHONPATH).
A blocked attempt raises the error a real offline machine would give, so the code under
test takes its offline path, AND is recorded: in-process in `ATTEMPTS`, from a child by a
line appended to the file named by `V2C_NETWORK_LOG`. The conftest fails the test that
made any attempt, so a test cannot pass quietly by handling the error.

Names under `.invalid` (reserved by RFC 6761 never to resolve) get the resolver's own
"Name or service not known" without any lookup and are not counted: tests use them to
exercise the real "the name does not resolve" path offline.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable
from typing import Any

LOG_VARIABLE = "V2C_NETWORK_LOG"
#: Attempts blocked in this process, oldest first ("connect ('1.2.3.4', 443)", ...).
ATTEMPTS: list[str] = []

Setter = Callable[[Any, str, Any], None]


def is_local_host(host: object) -> bool:
    """Loopback addresses, `localhost` and the wildcard (None / "") stay on this machine."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    name = str(host).strip("[]").lower()
    if name in ("", "localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def is_local_address(address: object) -> bool:
    """A socket address on this machine: loopback (host, port) pairs and non-IP sockets."""
    if isinstance(address, tuple) and address:
        return is_local_host(address[0])
    return True  # Unix domain sockets and the like never leave the machine


def is_reserved_invalid(host: object) -> bool:
    """A name under `.invalid`, which RFC 6761 reserves to never resolve anywhere."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    return isinstance(host, str) and host.rstrip(".").lower().endswith(".invalid")


def _blocked(what: str, to_log: bool) -> None:
    ATTEMPTS.append(what)
    log = os.environ.get(LOG_VARIABLE) if to_log else None
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"pid {os.getpid()}: {what}\n")


def install(setattr_: Setter = setattr, *, to_log: bool = False) -> None:
    """Patch `socket` so only local connections and local name lookups succeed.

    `to_log` is for child processes: their attempts go to the file the test process reads.
    """
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        if not is_local_address(address):
            _blocked(f"connect {address!r}", to_log)
            raise OSError(f"test tried to reach the network: {address!r}")
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if not is_local_address(address):
            _blocked(f"connect {address!r}", to_log)
            raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if is_reserved_invalid(host):  # what every resolver answers, without asking one
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if not is_local_host(host):
            _blocked(f"resolve {host!r}", to_log)
            raise socket.gaierror(socket.EAI_NONAME, f"test tried to resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    setattr_(socket.socket, "connect", connect)
    setattr_(socket.socket, "connect_ex", connect_ex)
    setattr_(socket, "getaddrinfo", getaddrinfo)
