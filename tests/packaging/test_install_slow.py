"""packaging/install.sh for real: slow (minutes) and online, so skipped unless asked for.

    V2C_TEST_INSTALL=1       a fresh copy of this checkout on this machine: installs, then a
                             second run says one line, then a half-made .venv is made again
    V2C_TEST_INSTALL=chroot  that, and packaging/test_install_chroot.sh: a bare Debian 12
                             (root only; ~5 min)
    V2C_TEST_INSTALL=source  that, and the chroot without ../shared/wheels: llama-cpp-python
                             compiles (root only; ~15 min)

These reach the package index (that is what they test), so they run pip without the test
suite's network guard.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED

ASKED = os.environ.get("V2C_TEST_INSTALL", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ASKED, reason="slow and online: set V2C_TEST_INSTALL=1 to run"),
]


def online_env(home: Path) -> dict[str, str]:
    """This machine's environment without the suite's guard (PYTHONPATH, attempt log)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "V2C_NETWORK_LOG", "VIRTUAL_ENV")
    }
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(REPO / ".venv"))
    )
    return {**env, "HOME": str(home), "CI": "true"}


def fresh_copy(dest: Path) -> Path:
    """This working tree as a clean clone with these changes has it, with ../shared beside."""
    main = dest / "main"
    main.mkdir(parents=True)
    files = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        source = REPO / name
        if source.is_file():
            (main / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, main / name)
    if SHARED.is_dir():
        (dest / "shared").symlink_to(SHARED)
    return main


def install(main: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    done = subprocess.run(
        ["bash", "packaging/install.sh"],
        cwd=main,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return done, time.monotonic() - start


@pytest.mark.timeout(1800)
def test_a_fresh_copy_installs_then_is_quiet_then_repairs_its_venv(tmp_path: Path) -> None:
    main = fresh_copy(tmp_path / "x")
    env = online_env(tmp_path / "home")
    (tmp_path / "home").mkdir()

    first, seconds = install(main, env)
    assert first.returncode == 0, first.stderr[-3000:]
    print(f"first install: {seconds:.0f} s")
    headless = subprocess.run(
        [str(main / ".venv/bin/python"), "-m", "v2c_desktop", "--headless"],
        cwd=main,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert headless.returncode == 0, headless.stderr[-3000:]
    assert "time sections" in headless.stdout

    again, seconds = install(main, env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stderr == f"install.sh: installed into {main}/.venv\n"
    print(f"second install (nothing missing): {seconds:.0f} s")

    # What a run that failed in `python -m venv` (no ensurepip) leaves: no pip in .venv.
    for pip in (main / ".venv/lib").glob("python3*/site-packages/pip"):
        shutil.rmtree(pip)
    repaired, seconds = install(main, env)
    assert repaired.returncode == 0, repaired.stderr[-3000:]
    assert ".venv is incomplete" in repaired.stderr
    check = subprocess.run([str(main / ".venv/bin/python"), "-m", "pip", "--version"], env=env)
    assert check.returncode == 0
    print(f"install with a half-made .venv: {seconds:.0f} s")


def chroot(mode: list[str], out: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the chroot test needs root (debootstrap, chroot, mount)")
    done = subprocess.run(
        ["bash", str(REPO / "packaging/test_install_chroot.sh"), *mode],
        env={**online_env(Path("/root")), "V2C_TEST_OUT": str(out)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    print(done.stderr)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.timeout(1800)
@pytest.mark.skipif(ASKED not in ("chroot", "source"), reason="set V2C_TEST_INSTALL=chroot")
def test_a_bare_debian_12(tmp_path: Path) -> None:
    chroot([], tmp_path / "out")


@pytest.mark.timeout(3600)
@pytest.mark.skipif(ASKED != "source", reason="set V2C_TEST_INSTALL=source")
def test_a_bare_debian_12_compiles_llama_cpp(tmp_path: Path) -> None:
    chroot(["--from-source"], tmp_path / "out")
