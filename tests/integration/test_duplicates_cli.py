"""`v2c duplicates`: the detector briefs use, from the command line, on real captions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from v2c_desktop.cli.main import main

pytestmark = [pytest.mark.corpus]

BITCOIN = "transcripts/3blue1brown/2017_bitcoin/captions.en.srt"
BAYES = "transcripts/3blue1brown/2019_bayes-theorem/captions.en.srt"


def test_duplicates_finds_a_reupload_in_the_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("V2C_HOME", str(tmp_path / "home"))
    original = tmp_path / "bitcoin.en.srt"
    original.write_bytes(corpus_path(BITCOIN).read_bytes())
    reupload = tmp_path / "bitcoin-again.en.srt"  # other bytes (CRLF), the same words
    reupload.write_bytes(original.read_bytes().replace(b"\n", b"\r\n"))
    library = ["--library", str(tmp_path / "lib.duckdb")]
    files = [str(original), str(reupload), str(corpus_path(BAYES))]
    assert main([*library, "add", "--no-index", *files]) == 0
    capsys.readouterr()

    assert main([*library, "duplicates", "--json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    [copy] = group["copies"]
    assert copy["kind"] == "reupload" and copy["overlap"] == 1.0 and copy["offset"] == 0.0

    assert main([*library, "duplicates", str(original), str(corpus_path(BAYES))]) == 0
    assert capsys.readouterr().out.strip() == "no duplicates"
    assert main([*library, "duplicates"]) == 0
    out = capsys.readouterr().out
    assert ", original)" in out and "reupload: " in out and "overlap 100%" in out
