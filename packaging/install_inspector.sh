#!/usr/bin/env bash
# Install the MCP Inspector that tests/mcp/test_inspector.py drives, at the versions locked in
# packaging/inspector/package-lock.json, into .venv/inspector (run packaging/install.sh first).
# .ci/run calls it; it is quiet when that copy is already there, and where Node.js or npm is
# missing it says so and leaves the test to skip.
set -euo pipefail
cd "$(dirname "$0")/.."
LOCK=packaging/inspector
DEST=.venv/inspector

say() { echo "install_inspector.sh: $*" >&2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  say "Node.js and npm are not installed: tests/mcp/test_inspector.py will skip"
  say "(Debian/Ubuntu: apt-get install nodejs npm; the Inspector wants Node.js 20 or newer)"
  exit 0
fi
if [ ! -d .venv ]; then
  say "no .venv here: run bash packaging/install.sh first"
  exit 1
fi
if [ -x "$DEST/node_modules/.bin/mcp-inspector" ] &&
   cmp -s "$LOCK/package-lock.json" "$DEST/package-lock.json" &&
   cmp -s "$LOCK/package.json" "$DEST/package.json"; then
  exit 0
fi
rm -rf "$DEST"
mkdir -p "$DEST"
cp "$LOCK/package.json" "$LOCK/package-lock.json" "$DEST/"
# `npm install --no-save` takes the locked versions, like `npm ci`, which refuses this lock:
# vite names an optional dependency that the registry does not have (so no lock can hold it).
# --ignore-scripts: nothing in the tree needs an install script (the Inspector's own postinstall
# only sets up a source checkout). Its engines field asks for Node.js 22; the CLI parts the test
# uses run on 20, so npm's EBADENGINE warning is not shown (--loglevel=error).
(cd "$DEST" &&
  npm install --no-save --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
[ -x "$DEST/node_modules/.bin/mcp-inspector" ] || {
  say "npm ci finished but $DEST/node_modules/.bin/mcp-inspector is missing"
  exit 1
}
