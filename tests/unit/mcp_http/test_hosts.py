"""The `Host` and `Origin` checks that keep web pages (DNS rebinding) off the HTTP server."""

from __future__ import annotations

import pytest

from v2c_desktop.mcp.http.hosts import HostPolicy, allows_origin, is_loopback, split_host
from v2c_desktop.mcp.http.serve import parse_bind

LOCAL = HostPolicy(8732)


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:8732", "localhost:8732", "LOCALHOST:8732", "[::1]:8732", "127.8.9.10:8732"],
)
def test_loopback_hosts_on_the_right_port_are_answered(host: str) -> None:
    assert LOCAL.allows_host(host)


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        "attacker.example:8732",  # a rebound name pointing at 127.0.0.1
        "localhost.attacker.example:8732",
        "127.0.0.1.nip.io:8732",
        "127.0.0.1:8733",  # another port: another program
        "127.0.0.1",  # no port is port 80
        "192.168.1.20:8732",  # this computer's LAN address: not bound there
        "::1:8732",  # IPv6 without brackets is no Host header
        "[::1:8732",
        "127.0.0.1:8732:1",
        "127.0.0.1:port",
        "127.0.0.1:",
    ],
)
def test_other_hosts_are_refused(host: str | None) -> None:
    assert not LOCAL.allows_host(host)


def test_bound_elsewhere_on_purpose_addresses_and_the_bound_name_are_answered() -> None:
    remote = HostPolicy(8732, remote=True, names=frozenset({"studio.lan"}))
    assert remote.allows_host("192.168.1.20:8732")
    assert remote.allows_host("[fe80::1]:8732")
    assert remote.allows_host("STUDIO.lan:8732")
    assert remote.allows_host("localhost:8732")
    assert not remote.allows_host("attacker.example:8732")  # rebinding needs a name
    assert not remote.allows_host("192.168.1.20:9000")


@pytest.mark.parametrize(
    "origin",
    [
        None,
        "http://localhost:5173",
        "http://127.0.0.1:6274",
        "https://[::1]:3000",
        "http://localhost",
    ],
)
def test_loopback_origins_or_none_are_allowed(origin: str | None) -> None:
    assert allows_origin(origin)


@pytest.mark.parametrize(
    "origin",
    [
        "https://attacker.example",
        "http://localhost.attacker.example",
        "null",
        "file://",
        "chrome-extension://abcdef",
        "http://127.0.0.1:99999",
        "http://localhost:5173/path",
        "",
    ],
)
def test_foreign_origins_are_refused(origin: str) -> None:
    assert not allows_origin(origin)


def test_host_parts_and_loopback_names() -> None:
    assert split_host("[::1]:80") == ("::1", 80)
    assert split_host("localhost") == ("localhost", None)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost.")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.1")


def test_listen_addresses() -> None:
    assert parse_bind("127.0.0.1:0").url(41234) == "http://127.0.0.1:41234/mcp"
    assert parse_bind("8732").host == "127.0.0.1"
    six = parse_bind("[::1]:8732")
    assert six.loopback and six.url() == "http://[::1]:8732/mcp"
    assert not parse_bind("0.0.0.0:8732").loopback
    for bad in ("127.0.0.1", "127.0.0.1:70000", "nowhere:", ":8732"):
        with pytest.raises(Exception, match="not an address"):
            parse_bind(bad)
