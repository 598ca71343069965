#!/usr/bin/env bash
# Build the one-folder app with PyInstaller, then smoke-test the frozen programs:
# `v2c --version`, `v2c-desktop --version`, and `v2c-desktop --self-test` (opens the window
# offscreen on a temporary library, imports the bundled sample, exits 0).
#
#   bash packaging/build.sh            -> dist/v2c-desktop-<version>/
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
VERSION=$("$PY" -c 'import v2c_desktop; print(v2c_desktop.__version__)')
OUT="dist/v2c-desktop-$VERSION"

started=$(date +%s)
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/v2c-desktop.spec
built=$(( $(date +%s) - started ))

echo "== smoke tests" >&2
"$OUT/v2c" --version
"$OUT/v2c-desktop" --version
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
V2C_HOME="$home" QT_QPA_PLATFORM=offscreen timeout 300 "$OUT/v2c-desktop" --self-test
V2C_HOME="$home" "$OUT/v2c" --library "$home/cli.duckdb" add resources/samples >/dev/null

echo "built $OUT in ${built}s, $(du -sh "$OUT" | cut -f1)" >&2
