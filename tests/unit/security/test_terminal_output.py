"""A title cannot drive the user's terminal: `v2c list` on a terminal strips escapes.

The library here holds a title with an OSC 52 clipboard write, an OSC 8 link and a screen
clear, as a library from an older version (or another program) could: `rename` stores what
it is given. On a real terminal (a pty) none of it arrives; through a pipe the JSON escapes
it.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, child_env
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.services import Services

HOSTILE = "Talk \x1b]52;c;ZXZpbA==\x07one\x1b]8;;https://evil.example\x07 link\x1b]8;;\x07\x1b[2J"


def _library(tmp_path: Path) -> Path:
    srt = tmp_path / "talk.en.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:03,000\nHello there.\n", encoding="utf-8")
    library = tmp_path / "lib.duckdb"

    async def go() -> None:
        api = CoreAPI(Services.open(library, index_on_import=False))
        try:
            (vid,) = (await api.add([str(srt)])).changed_ids
            await api.rename_video(vid, HOSTILE)
        finally:
            await api.aclose()

    run(go())
    return library


def _on_a_terminal(args: list[str], env: dict[str, str]) -> bytes:
    master, slave = os.openpty()
    process = subprocess.Popen(args, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            process.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    process.wait(timeout=60)
    os.close(master)
    return out


def test_titles_lose_their_escapes_on_a_terminal(tmp_path: Path) -> None:
    library = _library(tmp_path)
    v2c = [str(Path(sys.executable).parent / "v2c"), "--library", str(library)]
    env = {**child_env(), "V2C_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    shown = _on_a_terminal([*v2c, "list"], env)
    assert b"Talk" in shown and b"one" in shown
    assert b"\x1b" not in shown and b"\x07" not in shown
    piped = subprocess.run([*v2c, "list", "--json"], capture_output=True, env=env, timeout=60)
    assert b"\x1b" not in piped.stdout  # JSON escapes it: \u001b
    titles = [v["title"] for v in json.loads(piped.stdout)["videos"]]
    assert titles == [HOSTILE]  # the data itself is kept, for the user to see and fix
