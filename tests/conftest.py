"""Test set-up shared by every test: a private home directory and no network.

Every test runs with `V2C_HOME` in a temp dir (so nothing touches the user's library) and
with sockets limited to loopback, so a test that would reach the internet fails loudly.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("V2C_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def corpus_path(relative: str) -> Path:
    """A file read in place from ../shared/corpus; skips the test where the corpus is absent."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"../shared/corpus is not beside this checkout ({relative} missing)")
    return path


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = str(address[0])
        if host in ("localhost", ""):
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False
    return True  # Unix domain sockets and the like stay on this machine


@pytest.fixture(autouse=True)
def _private_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("v2c-home")
    monkeypatch.setenv("V2C_HOME", str(home))
    monkeypatch.delenv("V2C_LIBRARY", raising=False)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: object) -> object:
        if not _is_loopback(address):
            raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        if not _is_loopback(address):
            raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    yield
