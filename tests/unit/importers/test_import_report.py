"""What an import tells the user: one line per input, warnings, and no empty progress noise."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from v2c_desktop.cli.main import main
from v2c_desktop.core.domain.imports import BatchResult, ImportOutcome, outcome_line
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.library import Library
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.store import open_library
from v2c_desktop.core.wire_codec import decode, encode

SAMPLES = FIXTURES / "captions" / "webvtt-py"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with a same-name .srt/.vtt pair and an SRT that lost one cue's timing line."""
    found = tmp_path / "subs"
    found.mkdir()
    for name in ("sample.srt", "sample.vtt", "missing_timeframe.srt"):
        shutil.copy(SAMPLES / name, found / name)
    return found


def progress_of(tmp_path: Path, inputs: list[str]) -> list[Progress]:
    seen: list[Progress] = []

    async def go() -> None:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            await library.add(inputs, progress=seen.append)
        finally:
            await library.aclose()
            store.close()

    asyncio.run(go())
    return seen


def test_nothing_to_import_sends_no_import_done(tmp_path: Path) -> None:
    seen = progress_of(tmp_path, [str(tmp_path / "missing.srt")])
    assert [p.stage for p in seen] == ["plan", "settled"]  # no "[import 0/0] done"
    assert seen[-1].message.startswith("failed")


def test_import_done_says_how_many_failed(tmp_path: Path) -> None:
    broken = tmp_path / "broken.vtt"
    broken.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:0", encoding="utf-8")
    seen = progress_of(tmp_path, [str(broken), str(SAMPLES / "sample.srt")])
    assert seen[-1] == Progress("import", 2, 2, "done, 1 failed")
    assert progress_of(tmp_path, [str(SAMPLES / "one_caption.srt")])[-1].message == "done"


def test_v2c_add_prints_a_line_for_every_file(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--library", str(tmp_path / "lib.duckdb"), "add", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("added") and lines[0].endswith("Missing timeframe  (1 warning)")
    assert lines[1].startswith("added") and lines[1].endswith(" Sample")
    assert lines[2].startswith("skipped  file:")
    assert lines[2].endswith(f"{folder / 'sample.vtt'}  (sample.srt was used for this video)")
    assert lines[3:] == [
        "warning: Missing timeframe",
        "  missing_timeframe.srt line 5: cue 2 has no timing line (its text: 'Caption text #2'),"
        " so it was left out",
        "added 2, updated 0, skipped 1, failed 0",
    ]


def test_v2c_add_json_carries_the_warnings(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--library", str(tmp_path / "lib.duckdb"), "add", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["added"], report["skipped"], len(report["items"])) == (2, 1, 3)
    by_name = {Path(item["source"]).name: item for item in report["items"]}
    assert by_name["missing_timeframe.srt"]["warnings"] == [
        "missing_timeframe.srt line 5: cue 2 has no timing line (its text: 'Caption text #2'),"
        " so it was left out"
    ]
    assert by_name["sample.vtt"]["reason"] == "sample.srt was used for this video"
    assert "warnings" not in by_name["sample.srt"]


def test_a_failed_single_import_prints_no_empty_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--library", str(tmp_path / "lib.duckdb"), "add", str(tmp_path / "no.srt")]) == 1
    captured = capsys.readouterr()
    assert "0/0" not in captured.err and "0/0" not in captured.out
    assert "failed 1" in captured.out


def test_outcomes_with_warnings_cross_the_owner_socket() -> None:
    result = BatchResult(
        [
            ImportOutcome("a.srt", "added", "file:0123456789abcdef", "A", warnings=["w1", "w2"]),
            ImportOutcome("a.vtt", "skipped", "file:0123456789abcdef", reason="a.srt was used"),
            ImportOutcome("b.srt", "failed", error=V2CError("bad-request", "broken", "fix it")),
        ]
    )
    back = decode(json.loads(json.dumps(encode(result))))
    assert back == result
    assert back.outcomes[0].warnings == ["w1", "w2"]
    assert outcome_line(back.outcomes[0]).endswith("A  (2 warnings)")
    assert outcome_line(back.outcomes[1]).endswith("a.vtt  (a.srt was used)")


def test_many_damaged_cues_make_a_short_list(tmp_path: Path) -> None:
    cues = [f"{n}\n00:00:{n:02},000 --> 00:00:{n:02},500\nline {n}\n" for n in range(1, 41)]
    for n in range(2, 40, 3):  # 13 of 40 cues lose their timing line
        cues[n - 1] = f"{n}\nline {n}\n"
    path = tmp_path / "worn.srt"
    path.write_text("\n".join(cues), encoding="utf-8")

    async def go() -> ImportOutcome:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            (outcome,) = (await library.add([str(path)])).outcomes
            return outcome
        finally:
            await library.aclose()
            store.close()

    outcome = asyncio.run(go())
    assert outcome.status == "added"
    assert len(outcome.warnings) == 11
    assert outcome.warnings[0].startswith("worn.srt line 5: cue 2 has no timing line")
    assert outcome.warnings[-1] == "worn.srt: 3 more damaged cues were left out"
