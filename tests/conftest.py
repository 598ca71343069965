"""Test set-up shared by every test: a private home directory and no network.

Every test runs with `V2C_HOME` in a temp dir (so nothing touches the user's library) and
with sockets and name lookups limited to this machine, in the test process and in every
Python process it starts (tests/support/network_guard.py). A test during which anything
tried to reach the internet fails, even if the code under test handled the error.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import network_guard, qt_messages
from tests.support.feed_site import Site, serve_site

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("V2C_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: On a child's PYTHONPATH, its sitecustomize installs the network guard at start-up.
GUARDED_PYTHON = Path(__file__).resolve().parent / "support" / "guarded_python"


def child_env() -> dict[str, str]:
    """What every Python process a test starts needs: the guard and the attempt log.

    `os.environ` already carries both (set at start-up below); tests that build a child's
    environment from scratch add these.
    """
    return {
        "PYTHONPATH": os.pathsep.join([str(GUARDED_PYTHON), str(REPO)]),
        network_guard.LOG_VARIABLE: os.environ[network_guard.LOG_VARIABLE],
    }


def pytest_configure(config: pytest.Config) -> None:
    handle, log = tempfile.mkstemp(prefix="v2c-network-attempts-", suffix=".log")
    os.close(handle)
    os.environ[network_guard.LOG_VARIABLE] = log
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(GUARDED_PYTHON), str(REPO), *([inherited] if inherited else [])]
    )
    qt_messages.keep_installed()  # before pytest-qt's first capture handler


def pytest_unconfigure(config: pytest.Config) -> None:
    log = os.environ.pop(network_guard.LOG_VARIABLE, None)
    if log:
        Path(log).unlink(missing_ok=True)


def corpus_path(relative: str) -> Path:
    """A file read in place from ../shared/corpus; skips the test where the corpus is absent."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"../shared/corpus is not beside this checkout ({relative} missing)")
    return path


def first_cues(source: Path, count: int, target: Path) -> Path:
    """The first `count` cues of a real SRT file: a transcript small enough for one call."""
    blocks = source.read_text(encoding="utf-8").strip().split("\n\n")[:count]
    target.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return target


@pytest.fixture(autouse=True)
def _private_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("v2c-home")
    monkeypatch.setenv("V2C_HOME", str(home))
    monkeypatch.delenv("V2C_LIBRARY", raising=False)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    network_guard.install(monkeypatch.setattr)
    log = Path(os.environ[network_guard.LOG_VARIABLE])
    seen_here, seen_in_children = len(network_guard.ATTEMPTS), log.stat().st_size
    yield
    here = network_guard.ATTEMPTS[seen_here:]
    with log.open(encoding="utf-8") as handle:
        handle.seek(seen_in_children)
        children = handle.read().splitlines()
    if here or children:
        pytest.fail(f"the test tried to reach the network: {here + children}", pytrace=False)


@pytest.fixture
def feed_site(tmp_path: Path) -> Iterator[Site]:
    """An RSS feed of talk pages on 127.0.0.1 that yt-dlp reads as a playlist."""
    with serve_site(tmp_path / "site") as served:
        yield served
