"""The network guard itself: local traffic passes, anything else is refused and recorded."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support import network_guard


def test_local_hosts_and_addresses() -> None:
    assert all(
        network_guard.is_local_host(h)
        for h in (None, "", "localhost", "127.0.0.1", "127.5.6.7", "::1", "[::1]", b"localhost")
    )
    assert not any(
        network_guard.is_local_host(h)
        for h in ("www.youtube.com", "8.8.8.8", "10.0.0.1", "2001:db8::1", "localhost.evil.com")
    )
    assert network_guard.is_local_address("/run/user/1000/v2c.sock")
    assert not network_guard.is_local_address(("142.250.0.1", 443))


def test_in_process_attempts_are_refused_and_recorded() -> None:
    before = len(network_guard.ATTEMPTS)
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("www.youtube.com", 443)
    with socket.socket() as sock, pytest.raises(OSError, match="reach the network"):
        sock.connect(("93.184.216.34", 80))
    attempts = network_guard.ATTEMPTS[before:]
    del network_guard.ATTEMPTS[before:]  # made on purpose: not this test's failure
    assert attempts == ["resolve 'www.youtube.com'", "connect ('93.184.216.34', 80)"]
    assert socket.getaddrinfo("localhost", 80)  # local lookups still work


def test_a_child_python_is_guarded_and_reports_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "attempts.log"
    env = {**os.environ, network_guard.LOG_VARIABLE: str(log)}  # not the session's log
    code = (
        "import socket\n"
        "try:\n    socket.create_connection(('www.youtube.com', 443), timeout=5)\n"
        "except OSError as exc:\n    print(type(exc).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True
    )
    assert done.stdout.strip() == "gaierror", done.stderr
    assert "resolve 'www.youtube.com'" in log.read_text(encoding="utf-8")


def test_reserved_invalid_names_fail_like_a_resolver_and_are_not_attempts() -> None:
    before = len(network_guard.ATTEMPTS)
    for name in ("example.invalid", "A.B.INVALID.", b"x.invalid"):
        with pytest.raises(socket.gaierror) as caught:
            socket.getaddrinfo(name, 443)
        assert caught.value.errno == socket.EAI_NONAME
        assert "Name or service not known" in str(caught.value)
    assert network_guard.ATTEMPTS[before:] == []
    assert not network_guard.is_reserved_invalid("invalid.example.com")
