"""The `v2c` command end to end on real files: every command, JSON output, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, corpus_path
from v2c_desktop.cli.main import main
from v2c_desktop.resources import sample_dir

SAMPLE = "youtube:spCOYV4KyPA"


@pytest.fixture
def lib(tmp_path: Path) -> list[str]:
    return ["--library", str(tmp_path / "lib.duckdb")]


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> dict:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main([*argv, "--json"]) == status
    return json.loads(capsys.readouterr().out)


def test_add_list_show_rm(lib: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    added = run_json(capsys, [*lib, "add", str(sample_dir())])
    assert (added["added"], added["failed"]) == (1, 0)
    listing = run_json(capsys, [*lib, "list"])
    (video,) = listing["videos"]
    assert video["id"] == SAMPLE
    assert video["duration"] == 1811
    assert video["origin"] == "subtitle-file"
    assert video["source"] == "https://www.youtube.com/watch?v=spCOYV4KyPA"
    shown = run_json(capsys, [*lib, "show", "https://youtu.be/spCOYV4KyPA"])
    assert shown["transcript"]["segments"] == 396 and shown["channel"] == "PyCon US"
    assert main([*lib, "rm", SAMPLE]) == 0
    assert run_json(capsys, [*lib, "list"])["count"] == 0


def test_add_reports_each_item_and_exit_status(
    lib: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.vtt"
    broken.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:0")
    assert main([*lib, "add", str(sample_dir()), str(broken)]) == 1
    out = capsys.readouterr().out
    assert "added    youtube:spCOYV4KyPA" in out
    assert "failed" in out and "hint:" in out
    assert "added 1, updated 0, skipped 0, failed 1" in out
    assert main([*lib, "add", str(sample_dir())]) == 0
    assert "skipped 1" in capsys.readouterr().out


def test_transcript_formats_sections_and_paging(
    lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = corpus_path("transcripts/crashcourse-psychology")
    assert main([*lib, "add", str(folder)]) == 0
    vid = "youtube:fxZWtc0mYpQ"
    capsys.readouterr()
    assert main([*lib, "transcript", vid]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Title: Homunculus: Crash Course Psychology #6\nChannel: CrashCourse")
    assert "[1:22]" in text
    for fmt, check in (
        ("json", lambda s: json.loads(s)["segments"]),
        ("srt", lambda s: s.startswith("1\n00:00:")),
        ("vtt", lambda s: s.startswith("WEBVTT")),
        ("markdown", lambda s: "(https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=" in s),
    ):
        assert main([*lib, "transcript", vid, "--format", fmt]) == 0
        assert check(capsys.readouterr().out), fmt
    section = run_json(capsys, [*lib, "transcript", vid, "--chapter", "synes"])
    assert section["section"]["title"] == "Synesthesia"
    assert 'Section "Synesthesia": 4:24 to 5:48' in section["content"]
    timed = run_json(capsys, [*lib, "transcript", vid, "--from", "1:30", "--to", "120"])
    assert timed["section"]["start"] == 90 and timed["section"]["end"] == 120
    # page through the whole transcript as JSON pages: each parses, together they hold all
    cursor, seen, pages = None, [], 0
    while True:
        argv = [*lib, "transcript", vid, "--format", "json", "--max-tokens", "1200"]
        page = run_json(capsys, argv + (["--cursor", cursor] if cursor else []))
        seen.extend(s["text"] for s in json.loads(page["content"])["segments"])
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    full = json.loads(run_json(capsys, [*lib, "transcript", vid, "--format", "json"])["content"])
    assert seen == [s["text"] for s in full["segments"]] and pages > 3
    outline = run_json(capsys, [*lib, "outline", vid])
    assert outline["kind"] == "chapters" and len(outline["sections"]) == 11


def test_collections_commands(lib: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*lib, "add", str(sample_dir()), "--collection", "PyCon"]) == 0
    created = run_json(capsys, [*lib, "collections", "create", "Testing talks"])
    assert created["id"] == "testing-talks"
    added = run_json(capsys, [*lib, "collections", "add", "testing-talks", SAMPLE])
    assert added == {"collection": "testing-talks", "added": [SAMPLE], "count": 1}
    listed = run_json(capsys, [*lib, "collections", "list"])
    assert [c["id"] for c in listed["collections"]] == ["pycon", "testing-talks"]
    shown = run_json(capsys, [*lib, "collections", "show", "PyCon"])
    assert [v["id"] for v in shown["videos"]] == [SAMPLE]
    assert shown["sources"] == [str(sample_dir())]


def test_errors_are_message_and_hint_not_tracebacks(
    lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*lib, "show", "youtube:nothere0000"]) == 1
    err = capsys.readouterr().err
    assert "error (not-found)" in err and "hint: run `v2c list`" in err
    error = run_json(capsys, [*lib, "transcript", "x", "--cursor", "seg:3"], status=1)
    assert error["error"] == "bad-request" and error["hint"]
    assert main([*lib, "add", str(sample_dir())]) == 0
    error = run_json(capsys, [*lib, "transcript", SAMPLE, "--from", "2:00:00"], status=1)
    assert error["error"] == "bad-request" and "30:11" in error["hint"]


def test_second_process_is_told_the_library_is_in_use(tmp_path: Path) -> None:
    library = tmp_path / "lib.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]);"
            "from v2c_desktop.core.store import open_library;"
            "s = open_library(Path(sys.argv[1])); print('ready', flush=True); sys.stdin.read()",
            str(library),
            str(REPO),
        ],
        stdin=subprocess.PIPE,  # holds the library until killed, however long the test takes
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        # the client waits out its connect timeout, then says who holds the library; the
        # subprocess timeout only turns a client that waits forever into a failure
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "v2c_desktop.cli.main",
                "--library",
                str(library),
                "list",
                "--json",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        holder.kill()
        holder.wait()
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    error = json.loads(out.stdout)
    assert error["error"] == "library-in-use"
    assert error["details"]["pid"] == holder.pid


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["transcript", SAMPLE, "--format", "json"],
        ["search", "spacecraft"],
        ["--help"],
    ],
)
def test_a_closed_output_pipe_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    """`v2c list | head`: the reader goes away first; no traceback, the SIGPIPE status."""
    library = tmp_path / "lib.duckdb"
    assert main(["--library", str(library), "add", str(sample_dir())]) == 0
    command = [sys.executable, "-m", "v2c_desktop.cli.main", "--library", str(library), *argv]
    process = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    process.stdout.close()  # before it writes a byte
    _, err = process.communicate(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert process.returncode == (0 if argv == ["--help"] else 141), err  # argparse: quiet 0


def test_a_video_can_be_renamed_and_keeps_its_title_when_imported_again(
    lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_json(capsys, [*lib, "add", str(sample_dir())])
    renamed = run_json(capsys, [*lib, "rename", SAMPLE, "  Flight software,\n tested  "])
    assert renamed["title"] == "Flight software, tested"
    assert run_json(capsys, [*lib, "list"])["videos"][0]["title"] == "Flight software, tested"
    again = run_json(capsys, [*lib, "add", "--refresh", str(sample_dir())])
    assert again["items"][0]["status"] == "updated"
    assert run_json(capsys, [*lib, "show", SAMPLE])["title"] == "Flight software, tested"
    hits = run_json(capsys, [*lib, "search", "hardware in the loop", "--mode", "keyword"])
    assert hits["hits"][0]["title"] == "Flight software, tested"
    empty = run_json(capsys, [*lib, "rename", SAMPLE, "   "], status=1)
    assert empty["error"] == "bad-request"
    missing = run_json(capsys, [*lib, "rename", "youtube:nope", "x"], status=1)
    assert missing["error"] == "not-found"
