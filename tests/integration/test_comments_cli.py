"""`v2c comments` as a real command, a client of a library owner whose web is YouTube
replayed (tests/mcp/youtube_server.py serves as that owner: recorded player responses and
the hand-written comment lists of tests/fixtures/comments/). So the call crosses the owner
socket as every `v2c` command beside a running app or agent does, and no test reaches the
internet: the command itself never reads the web, its owner does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, corpus_path, first_cues
from tests.mcp.harness import McpProcess, server_env
from tests.support.youtube_replay import PLAYERS, watch_url
from tests.unit.owner.toys import remove_dir, short_dir

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(300)]

SURFACE = "GJLlxj_dtq8"
QUIET = "dsMFmonKDD4"
SAMPLE_SRT = REPO / "resources" / "samples" / "testing-spacecraft-with-pytest.en.srt"


@pytest.fixture(scope="module")
def owner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpProcess, dict[str, str]]]:
    place = tmp_path_factory.mktemp("comments-cli")
    env = server_env(place / "home", short_dir())
    process = McpProcess(
        place / "library.duckdb",
        env,
        name="owner",
        command=[
            sys.executable,
            "-m",
            "tests.mcp.youtube_server",
            "--players",
            str(corpus_path(PLAYERS)),
        ],
    )
    try:
        yield process, env
    finally:
        process.close()
        remove_dir(Path(env["XDG_RUNTIME_DIR"]))


def v2c(
    owner: tuple[McpProcess, dict[str, str]], *words: str, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """`v2c WORDS` as its own process (a client of `owner`), run in `cwd`."""
    process, env = owner
    library = str(process.stderr_path.parent / "library.duckdb")
    return subprocess.run(
        [sys.executable, "-m", "v2c_desktop.cli.main", "--library", library, *words],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_comments_print_with_replies_indented(owner: tuple[McpProcess, dict[str, str]]) -> None:
    done = v2c(owner, "comments", watch_url(SURFACE), "--limit", "4")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Surface Go Review - It’s Awesome  (youtube:{SURFACE})"
    assert lines[1] == watch_url(SURFACE)
    assert lines[2].startswith("4 comments, read from the site ")
    assert lines[2].endswith("there may be more (--limit 8)")
    assert "@Dave2D · 2018-08-01 · 4,210 likes · pinned · by the channel" in lines
    assert "  Thanks for watching! Battery test results are in the description." in lines
    assert "    ↳ @notesfirst · 2018-08-03 · 41 likes" in lines
    assert "      Same here, OneNote with the pen is the killer feature." in lines
    assert "    ↳ @Dave2D · 2018-08-04 · 230 likes · by the channel" in lines

    listed = v2c(owner, "list", "--json")  # every read is saved, through the owner
    assert listed.returncode == 0 and f"youtube:{SURFACE}" in listed.stdout


def test_json_and_kept_comments_and_a_video_without_captions(
    owner: tuple[McpProcess, dict[str, str]],
) -> None:
    done = v2c(owner, "comments", SURFACE, "--limit", "2", "--json")
    assert done.returncode == 0, done.stderr
    body: dict[str, Any] = json.loads(done.stdout)
    assert body["count"] == 2 and body["from_library"] and body["in_library"]
    assert body["comments"][0]["pinned"] and body["comments"][0]["parent_id"] is None

    quiet = v2c(owner, "comments", watch_url(QUIET), "--json")
    assert quiet.returncode == 0, quiet.stderr
    kept: dict[str, Any] = json.loads(quiet.stdout)
    assert kept["count"] == 3 and not kept["in_library"] and "no captions" in kept["note"]


def test_a_local_file_is_refused_with_the_cli_s_hint(
    owner: tuple[McpProcess, dict[str, str]], tmp_path: Path
) -> None:
    talk = first_cues(SAMPLE_SRT, 4, tmp_path / "talk.en.srt")
    done = v2c(owner, "comments", talk.name, "--json", cwd=talk.parent)  # a relative path
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["error"] == "unsupported-input" and "file on this computer" in error["message"]
    assert "`v2c comments URL`" in error["hint"]
    bad = v2c(owner, "comments", SURFACE, "--limit", "0")
    assert bad.returncode == 1 and "limit must be a whole number from 1 to 500" in bad.stderr
