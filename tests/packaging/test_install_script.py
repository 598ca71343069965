"""packaging/install.sh, fast: its syntax, its pin, and its choices with fake system tools.

The script is sourced (that defines its functions and runs nothing) in a bash whose PATH
starts with fake `dpkg-query`, `apt-cache`, `apt-get` and `id`, each driven by environment
variables, so the package-name choice (Debian 12 vs the t64 names of Ubuntu 24.04), the
"nothing missing: no apt-get at all" rule and the non-root message are checked without root
and without touching this machine. The slow, real runs are in test_install_slow.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED

INSTALL = REPO / "packaging" / "install.sh"
SCRIPTS = [
    INSTALL,
    REPO / "packaging" / "install_inspector.sh",
    REPO / "packaging" / "test_install_chroot.sh",
    REPO / ".ci" / "run",
]

FAKES = {
    # dpkg-query -W -f=FORMAT PATTERN (status of one package, or the '*t64' listing)
    # and dpkg-query -S PATH (which package owns a file).
    "dpkg-query": r"""#!/bin/bash
if [ "$1" = -S ]; then
  [ -n "${FAKE_DPKG_OWNS:-}" ] && echo "python3.11-minimal: $2" && exit 0; exit 1
fi
pattern=${*: -1}
if [ "$pattern" = '*t64' ]; then
  for p in $FAKE_INSTALLED; do [[ $p == *t64 ]] && echo "ii $p"; done; exit 0
fi
for p in $FAKE_INSTALLED; do [ "$p" = "$pattern" ] && echo "install ok installed" && exit 0; done
for p in ${FAKE_CONFIG_ONLY:-}; do
  [ "$p" = "$pattern" ] && echo "deinstall ok config-files" && exit 0
done
echo "dpkg-query: no packages found matching $pattern" >&2; exit 1
""",
    # apt-cache policy NAME: a candidate for FAKE_APT names, "(none)" for FAKE_APT_VIRTUAL.
    "apt-cache": r"""#!/bin/bash
name=$2
for p in ${FAKE_APT:-}; do
  [ "$p" = "$name" ] && printf '%s:\n  Installed: (none)\n  Candidate: 1.0-1\n' "$p" && exit 0
done
for p in ${FAKE_APT_VIRTUAL:-}; do
  [ "$p" = "$name" ] && printf '%s:\n  Installed: (none)\n  Candidate: (none)\n' "$p" && exit 0
done
exit 0
""",
    "apt-get": '#!/bin/bash\necho "apt-get $*" >> "$FAKE_APT_LOG"\n',
    "id": '#!/bin/bash\necho "${FAKE_UID:-1000}"\n',
}

#: Everything install.sh checks, as Debian 12 names it.
DEBIAN_12 = (
    "libgomp1 libgl1 libegl1 libxkbcommon0 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3 "
    "libgssapi-krb5-2 libpulse0 libasound2 libnss3 libnspr4 libgbm1 libdrm2 libx11-6 libxext6 "
    "libxfixes3 libxcomposite1 libxdamage1 libxrandr2 libxtst6 libxkbfile1 ca-certificates "
    "libxcb1 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 "
    "libxcb-render-util0 libxcb-render0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 "
    "libxcb-xkb1 libxcb-randr0 libxcb-util1 libxcb-glx0 libxcb-dri3-0 libxkbcommon-x11-0 "
    "libwayland-client0 libwayland-cursor0 libwayland-egl1"
)
UBUNTU_24_04 = (
    DEBIAN_12.replace("libasound2 ", "libasound2t64 ").replace("libglib2.0-0 ", "libglib2.0-0t64 ")
    + " libssl3t64"
)


@pytest.fixture
def fakes(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    for name, text in FAKES.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def run(snippet: str, fakes: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`snippet` in a bash that sourced install.sh, with the fakes first on PATH."""
    base = {
        "PATH": f"{fakes}:{os.environ['PATH']}",
        "HOME": str(cwd),
        "FAKE_APT_LOG": str(cwd / "apt-get.log"),
        "FAKE_INSTALLED": "",
    }
    script = f"source {INSTALL}\n{snippet}\n"
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def out(snippet: str, fakes: Path, cwd: Path, **env: str) -> str:
    done = run(snippet, fakes, cwd, **env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_scripts_parse(script: Path) -> None:
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck_finds_nothing(script: Path) -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    done = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_install_sh_keeps_strict_mode() -> None:
    assert "\nset -euo pipefail\n" in INSTALL.read_text()


def test_llama_cpp_python_is_pinned_to_the_prebuilt_wheel() -> None:
    """A range would let a newer release on the index win over the wheel: CI would compile."""
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = [d for d in dependencies if re.match(r"llama[-_]cpp[-_]python\b", d)]
    assert len(pins) == 1 and re.fullmatch(r"llama-cpp-python==[\d.]+", pins[0]), pins
    wheels = sorted((SHARED / "wheels").glob("llama_cpp_python-*.whl"))
    if not wheels:
        pytest.skip("../shared/wheels has no llama-cpp-python wheel here")
    versions = {w.name.split("-")[1] for w in wheels}
    assert pins[0].split("==")[1] in versions, (pins, versions)


def test_the_script_reads_the_same_pin(fakes: Path) -> None:
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pin = next(d for d in dependencies if d.startswith("llama-cpp-python"))
    assert out("cd $OLDPWD; llama_pin", fakes, REPO, OLDPWD=str(REPO)) == pin.split("==")[1]


@pytest.mark.parametrize(
    ("entry", "env", "expected"),
    [
        # After apt-get update: the name apt can install (libasound2 is only virtual on 24.04).
        (
            "libasound2t64|libasound2",
            {"FAKE_APT": "libasound2t64", "FAKE_APT_VIRTUAL": "libasound2"},
            "libasound2t64",
        ),
        ("libasound2t64|libasound2", {"FAKE_APT": "libasound2"}, "libasound2"),
        (
            "libglib2.0-0t64|libglib2.0-0",
            {"FAKE_APT": "libglib2.0-0 libglib2.0-0t64"},
            "libglib2.0-0t64",
        ),
        # No package lists (a user who cannot apt-get update): t64 only where t64 libs are.
        ("libasound2t64|libasound2", {"FAKE_INSTALLED": "libc6 libssl3t64"}, "libasound2t64"),
        ("libasound2t64|libasound2", {"FAKE_INSTALLED": "libc6 libssl3"}, "libasound2"),
        ("python3.11-venv|python3-venv", {}, "python3.11-venv"),
        ("python3.12-venv|python3-venv", {"FAKE_APT": "python3-venv"}, "python3-venv"),
        ("libxcb-cursor0", {}, "libxcb-cursor0"),
    ],
)
def test_package_name_picks_the_name_this_system_knows(
    fakes: Path, tmp_path: Path, entry: str, env: dict[str, str], expected: str
) -> None:
    assert out(f'package_name "{entry}"', fakes, tmp_path, **env) == expected


@pytest.mark.parametrize(
    ("installed", "config_only", "expected"),
    [("libasound2", "", "yes"), ("libasound2t64", "", "yes"), ("libc6", "libasound2", "no")],
)
def test_either_name_counts_as_installed(
    fakes: Path, tmp_path: Path, installed: str, config_only: str, expected: str
) -> None:
    snippet = 'any_installed "libasound2t64|libasound2" && echo yes || echo no'
    env = {"FAKE_INSTALLED": installed, "FAKE_CONFIG_ONLY": config_only}
    assert out(snippet, fakes, tmp_path, **env) == expected


# system_packages, as main calls it: PY is a Python with venv support, no .venv yet, and a
# prebuilt wheel beside the checkout unless a test says otherwise.
SYSTEM = (
    'PY={py}; LLAMA_VERSION=0.3.36; REPORTED_PACKAGES=""; {before}\n'
    'system_packages; echo "status=$? reported=$REPORTED_PACKAGES"'
)


def system_run(
    fakes: Path, tmp_path: Path, before: str = "", wheel: bool = True, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    checkout = tmp_path / "main"
    checkout.mkdir(exist_ok=True)
    if wheel:
        wheels = tmp_path / "shared" / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        arch = os.uname().machine
        (wheels / f"llama_cpp_python-0.3.36-py3-none-linux_{arch}.whl").touch()
    snippet = SYSTEM.format(py=sys.executable, before=before)
    done = run(snippet, fakes, checkout, **env)
    log = checkout / "apt-get.log"
    calls = log.read_text().splitlines() if log.exists() else []
    return done, calls


def test_nothing_missing_runs_no_apt_get_at_all(fakes: Path, tmp_path: Path) -> None:
    """Above all no `apt-get update` on every install (as before, for the t64 names)."""
    for installed in (DEBIAN_12, UBUNTU_24_04):
        done, calls = system_run(fakes, tmp_path, FAKE_UID="0", FAKE_INSTALLED=installed)
        assert "status=0 reported=" in done.stdout, done.stderr
        assert done.stderr == ""
        assert calls == []


def test_root_updates_once_and_installs_what_is_missing(fakes: Path, tmp_path: Path) -> None:
    installed = UBUNTU_24_04.replace("libxcb-cursor0 ", "").replace("libasound2t64 ", "")
    done, calls = system_run(
        fakes,
        tmp_path,
        FAKE_UID="0",
        FAKE_INSTALLED=installed,
        FAKE_APT="libxcb-cursor0 libasound2t64",
        FAKE_APT_VIRTUAL="libasound2",
    )
    assert "status=0" in done.stdout, done.stderr
    assert calls[0] == "apt-get update -qq"
    assert calls[1:] == [
        "apt-get install -y -qq --no-install-recommends libasound2t64 libxcb-cursor0"
    ]
    assert "installing system packages: libasound2t64 libxcb-cursor0" in done.stderr


def test_a_user_gets_one_line_to_copy_and_the_install_goes_on(fakes: Path, tmp_path: Path) -> None:
    installed = DEBIAN_12.replace("libxcb-icccm4 ", "").replace("libxcb-keysyms1 ", "")
    done, calls = system_run(fakes, tmp_path, FAKE_INSTALLED=installed)
    assert "status=0 reported=1" in done.stdout, done.stderr
    assert calls == []
    assert (
        "sudo apt-get install --no-install-recommends libxcb-icccm4 libxcb-keysyms1\n"
        in done.stderr
    )
    assert "going on with the Python parts" in done.stderr


def test_a_user_without_a_compiler_is_stopped_when_llama_cpp_must_be_built(
    fakes: Path, tmp_path: Path
) -> None:
    done, calls = system_run(
        fakes,
        tmp_path,
        before="have_compiler() { return 1; }",
        wheel=False,
        FAKE_INSTALLED=DEBIAN_12,
    )
    assert done.returncode == 1, done.stderr
    assert "sudo apt-get install --no-install-recommends build-essential\n" in done.stderr
    assert "cannot go on without build-essential" in done.stderr
    assert calls == []


def test_root_without_a_compiler_gets_build_essential(fakes: Path, tmp_path: Path) -> None:
    done, calls = system_run(
        fakes,
        tmp_path,
        before="have_compiler() { return 1; }",
        wheel=False,
        FAKE_UID="0",
        FAKE_INSTALLED=DEBIAN_12,
        FAKE_APT="build-essential",
    )
    assert "status=0" in done.stdout, done.stderr
    assert calls[-1].endswith("--no-install-recommends build-essential")


def test_with_the_prebuilt_wheel_no_compiler_is_needed(fakes: Path, tmp_path: Path) -> None:
    done, _ = system_run(
        fakes,
        tmp_path,
        before="have_compiler() { return 1; }",
        wheel=True,
        FAKE_INSTALLED=DEBIAN_12,
    )
    assert "status=0 reported=" in done.stdout, done.stderr
    assert done.stderr == ""


def test_a_python_without_venv_support_names_its_venv_package(fakes: Path, tmp_path: Path) -> None:
    """Stock Debian/Ubuntu Python: `python3 -m venv` fails without python3.X-venv."""
    done, _ = system_run(
        fakes,
        tmp_path,
        before="has_venv_support() { return 1; }",
        FAKE_INSTALLED=DEBIAN_12,
        FAKE_DPKG_OWNS="1",
    )
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert done.returncode == 1, done.stderr
    assert f"--no-install-recommends python{version}-venv\n" in done.stderr
    assert f"cannot go on without python{version}-venv:" in done.stderr


def test_no_python_at_all_asks_for_python3(fakes: Path, tmp_path: Path) -> None:
    done, _ = system_run(fakes, tmp_path, before='PY=""', FAKE_INSTALLED=DEBIAN_12)
    assert done.returncode == 1, done.stderr
    assert "--no-install-recommends python3 python3-venv\n" in done.stderr


def test_the_llama_wheel_must_match_version_and_machine(fakes: Path, tmp_path: Path) -> None:
    wheels = tmp_path / "shared" / "wheels"
    wheels.mkdir(parents=True)
    (tmp_path / "main").mkdir()
    check = "LLAMA_VERSION={v}; llama_needs_build && echo build || echo wheel"
    (wheels / "llama_cpp_python-0.3.36-py3-none-linux_riscv128.whl").touch()
    assert out(check.format(v="0.3.36"), fakes, tmp_path / "main") == "build"
    (wheels / f"llama_cpp_python-0.3.36-py3-none-linux_{os.uname().machine}.whl").touch()
    assert out(check.format(v="0.3.36"), fakes, tmp_path / "main") == "wheel"
    assert out(check.format(v="0.3.37"), fakes, tmp_path / "main") == "build"


@pytest.mark.parametrize(
    ("venv", "healthy"),
    [
        ("none", False),  # .venv made, then python -m venv failed before bin/python
        ("no-pip", False),  # ensurepip missing: a venv without pip
        ("broken", False),  # bin/python points at an interpreter that is gone
        ("good", True),
    ],
)
def test_a_half_made_venv_is_not_taken_for_a_venv(
    fakes: Path, tmp_path: Path, venv: str, healthy: bool
) -> None:
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    if venv == "no-pip":
        python.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')
    elif venv == "broken":
        python.symlink_to(tmp_path / "gone" / "python3.11")
    elif venv == "good":
        python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    if python.is_file():
        python.chmod(0o755)
    answer = out("healthy_venv && echo healthy || echo broken", fakes, tmp_path)
    assert answer == ("healthy" if healthy else "broken")
