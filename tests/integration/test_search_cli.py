"""`v2c search` end to end: a library imported by `v2c add` (indexed by the real embedder on
import), searched in-process through `main([...])` and once as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, child_env, corpus_path
from v2c_desktop.cli.main import main

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(600)]

SLEEP = "youtube:rMHus-0wFSo"
HOMUNCULUS = "youtube:fxZWtc0mYpQ"
HIT_KEYS = {"video_id", "title", "start", "end", "url", "snippet", "text", "sources", "score"}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = corpus_path("transcripts/crashcourse-psychology")
    files = [
        *sorted(folder.glob("to_sleep_*.en.srt")),
        *sorted(folder.glob("homunculus_*.en.srt")),
        corpus_path("transcripts/3blue1brown/2019_bayes-theorem/captions.en.srt"),
    ]
    path = tmp_path_factory.mktemp("search-cli") / "lib.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(tmp_path_factory.mktemp("v2c-home")))
        assert main(["--library", str(path), "add", *map(str, files)]) == 0
    yield path


def search_json(capsys: pytest.CaptureFixture[str], library: Path, *args: str) -> Any:
    capsys.readouterr()
    assert main(["--library", str(library), "search", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_search_json_has_hits_and_meta(library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = search_json(capsys, library, "what happens in the brain during REM sleep")
    assert out["hits"] and len(out["hits"]) <= 10
    for hit in out["hits"]:
        assert hit.keys() >= HIT_KEYS
        assert 0 <= hit["start"] < hit["end"] and hit["text"] and hit["snippet"]
    top = out["hits"][0]
    assert top["video_id"] == SLEEP and top["sources"] == ["keyword", "vector"]
    assert top["url"] == f"https://www.youtube.com/watch?v=rMHus-0wFSo&t={int(top['start'])}s"
    assert "**" in top["snippet"] and top["chapter"]
    meta = out["meta"]
    assert meta["mode"] == "hybrid" and meta["sides"] == ["keyword", "vector"]
    assert meta["embedding_model"] == "onnx/all-minilm-l6-v2-int8w7"
    assert meta["vector"] == {"status": "ok", "covered": 3, "videos": 3}
    assert meta["index"]["videos"] == 3 and meta["index"]["chunks"] == meta["index"]["vectors"]
    assert meta["timings_ms"]["total"] > 0


def test_search_options_reach_the_engine(library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keyword = search_json(capsys, library, "synesthesia", "--mode", "keyword", "--limit", "2")
    assert keyword["meta"]["sides"] == ["keyword"] and 1 <= len(keyword["hits"]) <= 2
    assert {h["video_id"] for h in keyword["hits"]} == {HOMUNCULUS}
    scoped = search_json(capsys, library, "brain", "--video", "https://youtu.be/rMHus-0wFSo")
    assert scoped["hits"] and {h["video_id"] for h in scoped["hits"]} == {SLEEP}
    assert scoped["meta"]["filtered_videos"] == 1
    dated = search_json(
        capsys, library, "brain", "--after", "2014-03-20", "--channel", "CrashCourse"
    )
    assert {h["video_id"] for h in dated["hits"]} == {SLEEP}
    phrase = search_json(capsys, library, '"REM sleep" -dreams', "--mode", "vector")
    assert phrase["hits"] and phrase["meta"]["query"]["phrases"] == ["REM sleep"]
    assert all("dream" not in h["text"].lower() for h in phrase["hits"])


def test_batch_prints_one_json_line_per_query(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "queries.txt"
    batch.write_text(
        "# one query per line\nsynesthesia\n\nBayes theorem\n-dreams\nsleep spindles\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    status = main(["--library", str(library), "search", "--batch", str(batch), "--mode", "keyword"])
    assert status == 1  # one query was refused; the others still ran
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["query"] for line in lines] == [
        "synesthesia",
        "Bayes theorem",
        "-dreams",
        "sleep spindles",
    ]
    for line in (lines[0], lines[1], lines[3]):
        assert line["hits"] and line["meta"]["mode"] == "keyword"
        assert all(h.keys() >= HIT_KEYS for h in line["hits"])
    assert lines[2]["error"] == "bad-request" and "only excludes" in lines[2]["message"]


def test_text_output_and_usage_errors(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--library", str(library), "search", "synesthesia", "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("1. Homunculus: Crash Course Psychology #6 [")
    assert "https://www.youtube.com/watch?v=fxZWtc0mYpQ&t=" in text
    assert "-- hybrid search, sides: keyword, vector; embedding model: onnx/" in text
    assert main(["--library", str(library), "search"]) == 1
    assert "give a QUERY or --batch FILE" in capsys.readouterr().err
    assert main(["--library", str(library), "search", "--batch", str(tmp_path / "none")]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert main(["--library", str(library), "search", "", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"] == "bad-request"


def test_search_as_a_subprocess(library: Path, tmp_path: Path) -> None:
    env = {**os.environ, "V2C_HOME": str(tmp_path / "home"), **child_env()}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "v2c_desktop.cli.main",
            "--library",
            str(library),
            "search",
            "how does the sense of touch work",
            "--limit",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert 1 <= len(out["hits"]) <= 3 and out["hits"][0]["video_id"] == HOMUNCULUS
    assert out["meta"]["vector"]["status"] == "ok"
