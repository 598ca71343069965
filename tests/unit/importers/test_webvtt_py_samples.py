"""webvtt-py's own sample subtitles through the real import path, as a folder and one by one.

The files (tests/fixtures/captions/webvtt-py, MIT, see the README there) are the odd cases
another project collected: cues with no timing line, broken timestamps, empty files, a header
missing, same-name `.srt` and `.vtt` twins. Whatever happens to each, the batch report has
exactly one line for every file, and no cue number or timing line ever becomes speech.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.conftest import FIXTURES
from v2c_desktop.core.domain.imports import BatchResult
from v2c_desktop.core.library import Library
from v2c_desktop.core.store import open_library

SAMPLES = FIXTURES / "captions" / "webvtt-py"
T = TypeVar("T")

# What the folder import reports for each file (webvtt-py 0.6.0 tests/samples, less one).
EXPECTED = {
    "captions_with_bom.vtt": "added",
    "comments.vtt": "added",
    "cue_tags.vtt": "added",
    "empty.vtt": "failed",  # an empty file: no transcript
    "invalid.vtt": "added",  # no WEBVTT header: read anyway
    "invalid_format1.srt": "failed",  # "1" and nothing else: cut off
    "invalid_format2.srt": "failed",  # "some text": not a cue
    "invalid_format3.srt": "failed",  # a cue number and text, no timing
    "invalid_format4.srt": "failed",  # a timing line without text
    "invalid_timeframe.srt": "added",  # 00:00:11:890 is read as 11.890 s
    "invalid_timeframe.vtt": "skipped",  # the .srt twin was used
    "invalid_timeframe_in_cue_text.vtt": "added",
    "metadata_headers.vtt": "added",
    "metadata_headers_multiline.vtt": "added",
    "missing_caption_text.srt": "added",
    "missing_caption_text.vtt": "skipped",
    "missing_timeframe.srt": "added",  # cue 2 left out, with a warning
    "missing_timeframe.vtt": "skipped",
    "no_captions.vtt": "failed",
    "non_padded_timestamps.vtt": "added",
    "one_caption.srt": "added",
    "one_caption.vtt": "skipped",
    "regions.vtt": "added",
    "sample.srt": "added",
    "sample.vtt": "skipped",
    "styles.vtt": "added",
    "styles_colours.srt": "added",
    "styles_colours.vtt": "skipped",
    "styles_with_comments.vtt": "added",
    "using_identifiers.vtt": "added",
    "youtube_dl.vtt": "added",
}
# The damaged cues each file has, as the warnings of its import (file, line, cue).
WARNED = {
    "missing_timeframe.srt": ["missing_timeframe.srt line 5: cue 2 has no timing line"],
    "missing_timeframe.vtt": ["missing_timeframe.vtt line 6: 'Caption text #2' has no cue"],
    "invalid_timeframe.vtt": ["invalid_timeframe.vtt line 6: the cue timing '00:00:07.000"],
}
_STRUCTURE = re.compile(r"-->|\d+:\d{2}:\d{2}")


def samples() -> list[Path]:
    return sorted(p for p in SAMPLES.iterdir() if p.suffix in (".srt", ".vtt"))


def with_library(tmp_path: Path, work: Callable[[Library], Awaitable[T]]) -> T:
    async def go() -> T:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            return await work(library)
        finally:
            await library.aclose()
            store.close()

    return asyncio.run(go())


def text_numbers(path: Path) -> set[str]:
    """Bare numbers that appear in the file's cue text (not as cue numbers or timings)."""
    found: set[str] = set()
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        stripped = line.strip()
        if stripped.isdigit() or "-->" in stripped:
            continue
        found.update(token for token in stripped.split() if token.isdigit())
    return found


async def speech_of(library: Library, result: BatchResult) -> dict[str, list[str]]:
    """Segment texts of every video the batch saved, by the file it came from."""
    speech: dict[str, list[str]] = {}
    for outcome in result.outcomes:
        if outcome.status == "added" and outcome.video_id:
            record = await library.get_video(outcome.video_id)
            speech[Path(outcome.source).name] = [s.text for s in record.transcript.segments]
    return speech


def assert_no_structure_in_speech(speech: dict[str, list[str]]) -> None:
    for name, segments in speech.items():
        allowed = text_numbers(SAMPLES / name)
        for text in segments:
            assert not _STRUCTURE.search(text), (name, text)
            stray = [t for t in text.split() if t.isdigit() and t not in allowed]
            assert not stray, (name, text)  # a cue number became speech


def test_the_fixture_set_is_complete() -> None:
    assert [p.name for p in samples()] == sorted(EXPECTED)
    assert (SAMPLES / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_folder_import_reports_every_file_once(tmp_path: Path) -> None:
    async def work(library: Library) -> tuple[BatchResult, dict[str, list[str]]]:
        result = await library.add([str(SAMPLES)])
        return result, await speech_of(library, result)

    result, speech = with_library(tmp_path, work)
    reported = [Path(o.source).name for o in result.outcomes]
    assert sorted(reported) == sorted(EXPECTED)  # one line each, none twice, none missing
    assert {Path(o.source).name: o.status for o in result.outcomes} == EXPECTED
    assert_no_structure_in_speech(speech)
    assert speech["missing_timeframe.srt"] == [f"Caption text #{n}" for n in (1, 3, 4, 5)]
    assert speech["invalid_timeframe.srt"] == [f"Caption text #{n}" for n in range(1, 6)]


def test_a_twin_that_was_not_used_says_which_one_was(tmp_path: Path) -> None:
    result = with_library(tmp_path, lambda library: library.add([str(SAMPLES)]))
    by_name = {Path(o.source).name: o for o in result.outcomes}
    twin, used = by_name["sample.vtt"], by_name["sample.srt"]
    assert twin.status == "skipped"
    assert twin.reason == "sample.srt was used for this video"
    assert twin.video_id == used.video_id and used.status == "added"
    assert twin.error is None and twin.to_dict()["reason"] == twin.reason


def test_damaged_cues_are_warnings_on_the_outcome(tmp_path: Path) -> None:
    async def work(library: Library) -> dict[str, list[str]]:
        warnings = {}
        for path in samples():
            (outcome,) = (await library.add([str(path)])).outcomes
            warnings[path.name] = outcome.warnings
        return warnings

    warnings = with_library(tmp_path, work)
    for name, expected in WARNED.items():
        for warning, start in zip(warnings[name], expected, strict=True):
            assert warning.startswith(start), warning
            assert warning.endswith("so it was left out")
    assert [name for name, found in warnings.items() if found] == sorted(WARNED)


@pytest.mark.parametrize("path", samples(), ids=lambda p: p.name)
def test_each_file_alone_gets_one_line_and_no_structure_in_speech(
    path: Path, tmp_path: Path
) -> None:
    async def work(library: Library) -> tuple[BatchResult, dict[str, list[str]]]:
        result = await library.add([str(path)])
        return result, await speech_of(library, result)

    result, speech = with_library(tmp_path, work)
    (outcome,) = result.outcomes
    assert Path(outcome.source).name == path.name
    expected = EXPECTED[path.name]
    assert outcome.status == ("added" if expected == "skipped" else expected)
    if outcome.status == "failed":
        assert outcome.error is not None and outcome.error.hint
    assert_no_structure_in_speech(speech)


def test_a_failed_twin_leaves_the_other_untried_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "talks"
    folder.mkdir()
    (folder / "talk.srt").write_text("1\nsome text\n", encoding="utf-8")
    (folder / "talk.vtt").write_bytes((SAMPLES / "sample.vtt").read_bytes())
    result = with_library(tmp_path, lambda library: library.add([str(folder)]))
    assert [(Path(o.source).name, o.status) for o in result.outcomes] == [
        ("talk.srt", "failed"),
        ("talk.vtt", "skipped"),
    ]
    assert result.outcomes[1].reason == "not read: talk.srt was picked for this video and failed"
    assert result.outcomes[1].video_id is None
