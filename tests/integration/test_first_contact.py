"""The first minutes of a new user on the command line: what happened, and what to do next.

Every message here is what a person sees before they know anything about v2c: where the
library is, what was imported, commands that work as printed, why an answer was not
written by a model and how to get one, and a failed download said in plain words.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, child_env
from v2c_desktop.cli.main import main
from v2c_desktop.resources import sample_dir

SAMPLE = "youtube:spCOYV4KyPA"


def headless(tmp_path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")
    }
    env.update(child_env())
    env.update(V2C_HOME=str(tmp_path / "home"), V2C_LIBRARY=str(tmp_path / "lib.duckdb"))
    return subprocess.run(
        [sys.executable, "-m", "v2c_desktop"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_the_headless_main_job_says_where_what_and_what_next(tmp_path: Path) -> None:
    first = headless(tmp_path, REPO)
    assert first.returncode == 0, first.stderr[-2000:]
    out = first.stdout
    assert "no display here" in first.stderr
    assert f"Library: {tmp_path / 'lib.duckdb'}" in out  # the real path, not a setting name
    assert "1 video, 0.5 hours of transcript" in out
    assert "Imported the bundled sample: Testing Spacecraft with Pytest (youtube:spCOYV4KyPA" in out
    assert "6 time sections" in out  # the outline
    assert "[import" not in first.stderr  # no progress noise for one small file
    bin_dir = os.path.relpath(Path(sys.executable).parent, REPO)
    commands = [line.strip() for line in out.splitlines() if line.startswith("  ")]
    steps = [c for c in commands if c.startswith((f"{bin_dir}/v2c", "v2c"))]
    assert any(c.startswith(f"{bin_dir}/v2c search ") for c in steps), out
    assert any(c.startswith(f"{bin_dir}/v2c ask ") for c in steps), out
    assert f"{bin_dir}/v2c-desktop" in steps
    again = headless(tmp_path, REPO)
    assert "The bundled sample is in it" in again.stdout  # a second run says so, not "added"


def test_the_commands_it_suggests_work_as_printed(tmp_path: Path) -> None:
    done = headless(tmp_path, REPO)
    env = {**os.environ, **child_env(), "V2C_HOME": str(tmp_path / "home")}
    env["V2C_LIBRARY"] = str(tmp_path / "lib.duckdb")
    for kind in ("search", "ask"):
        line = next(
            s.strip() for s in done.stdout.splitlines() if re.match(rf"\s+\S*v2c {kind} ", s)
        )
        argv = shlex.split(line)
        ran = subprocess.run(
            [str(REPO / argv[0]), *argv[1:]], cwd=REPO, env=env, capture_output=True, text=True
        )
        assert ran.returncode == 0, (line, ran.stderr[-2000:])
        assert "Testing Spacecraft with Pytest" in ran.stdout


def test_from_another_folder_the_commands_are_full_paths(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = headless(tmp_path, elsewhere)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"  {Path(sys.executable).parent / 'v2c'} search " in done.stdout


def test_an_unreachable_address_is_said_in_plain_words_with_a_cli_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real yt-dlp on a name that can never resolve (`.invalid`, RFC 6761)."""
    assert main(["--library", str(tmp_path / "lib.duckdb"), "add", "https://example.invalid/x"])
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert "Could not reach example.invalid: the name does not resolve" in shown
    assert "`--proxy URL`" in shown
    for raw in ("HTTPSConnection", "TransportError", "Errno", "Settings →"):
        assert raw not in shown, raw
    assert "[import 0/0]" not in shown


def test_an_extractive_answer_says_why_and_how_to_get_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = ["--library", str(tmp_path / "lib.duckdb")]
    assert main([*library, "add", str(sample_dir())]) == 0
    capsys.readouterr()
    question = "Why do they test flight software with pytest?"
    assert main([*library, "ask", question, "--video", SAMPLE]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert out.startswith("Extractive answer (no chat model wrote this)")
    assert "No chat model wrote this answer: the only chat model installed" in err
    assert "models pull llamacpp/Qwen2.5-3B-Instruct-Q4_K_M` (a 1.9 GB download)" in err
    assert "Ollama or LM Studio" in err
    # the sources: listed as cited, numbered as first read, and counted as listed
    cited = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\] \(\d+:\d\d\)", out)))
    assert cited == list(range(1, len(cited) + 1))
    listed = [int(n) for n in re.findall(r"^\[(\d+)\] Testing Spacecraft", out, re.M)]
    assert listed == cited
    assert f"Sources ({len(listed)}):" in out
    # asked for on purpose: the why says so and no model is pushed
    assert main([*library, "ask", question, "--video", SAMPLE, "--extractive"]) == 0
    err = capsys.readouterr().err
    assert "No chat model wrote this answer: you asked for an extractive answer." in err
    assert "models pull" not in err
