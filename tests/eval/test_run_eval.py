"""The evaluation runner itself, with a stand-in engine (the real one is tested in test_eval)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import corpus_path
from tests.eval.check_queries import load_queries
from tests.eval.metrics import QueryOutcome, evaluate
from tests.eval.run_eval import format_table, misses, run, transcripts_used


def test_transcripts_used_lists_each_path_once() -> None:
    queries = [
        {"expected": [{"path": "b"}, {"path": "a"}], "forbidden": [{"path": "c"}]},
        {"expected": [{"path": "a"}]},
    ]
    assert transcripts_used(queries) == ["a", "b", "c"]
    assert len(transcripts_used(load_queries())) >= 15


def test_format_table_has_a_row_per_kind_and_mode() -> None:
    good = {"q1": QueryOutcome("exact", [("v", 0, 10)], [("v", 5, 20)])}
    bad = {"q1": QueryOutcome("exact", [("v", 50, 60)], [("v", 5, 20)])}
    report = {"limit": 5, "modes": {"keyword": evaluate(good), "vector": evaluate(bad)}}
    table = format_table(report).splitlines()
    assert table[0].startswith("| Queries | n | Method | P@5 (distinct)")
    assert "| all | 1 | keyword | 0.200 | 0.200 | 1.000 | 1.000 | 0 |" in table
    assert "| exact | 1 | vector | 0.000 | 0.000 | 0.000 | 0.000 | 0 |" in table
    assert len(table) == 2 + 2 * 2
    assert misses(report, "vector") == ["q1"] and misses(report, "keyword") == []


@dataclass
class _Request:
    query: str
    mode: str = "hybrid"
    limit: int = 10


@dataclass
class _Result:
    hits: list[Any]
    meta: dict[str, Any] = field(default_factory=dict)


class _Engine:
    """Finds nothing; records what it was asked."""

    instances: list[_Engine] = []  # noqa: RUF012

    def __init__(self, store: Any, embedder: Any) -> None:
        self.store, self.embedder, self.asked = store, embedder, []
        self.indexed = False
        _Engine.instances.append(self)

    async def index_pending(self) -> list[Any]:
        self.indexed = True
        return []

    async def search(self, request: _Request) -> _Result:
        self.asked.append((request.query, request.mode, request.limit))
        return _Result(hits=[], meta={"mode": request.mode})


@pytest.mark.corpus
def test_run_imports_every_transcript_and_asks_every_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus = corpus_path("transcripts/INDEX.json").parents[1]
    fake = ModuleType("v2c_desktop.core.search.engine")
    fake.SearchEngine = _Engine  # type: ignore[attr-defined]
    fake.SearchRequest = _Request  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "v2c_desktop.core.search.engine", fake)
    _Engine.instances.clear()

    report = run(modes=("keyword",), limit=5, corpus=corpus)

    queries = load_queries()
    (engine,) = _Engine.instances
    assert engine.indexed and engine.embedder is None  # keyword only: no embedder needed
    assert engine.asked == [(q["query"], "keyword", 5) for q in queries]
    assert report["queries"] == len(queries)
    assert report["transcripts"] == len(transcripts_used(queries))
    assert set(report["videos"]) == set(transcripts_used(queries))
    assert len(set(report["videos"].values())) == report["transcripts"]  # one video each
    summary = report["modes"]["keyword"]["overall"]
    assert summary["n"] == len(queries) and summary["mrr"] == 0.0


class _BrokenEmbedder:
    """An embedder whose model file is gone: loads fine, fails on the first text."""

    def __init__(self) -> None:
        from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder

        self.info = OnnxEmbedder().info

    async def embed(self, texts: Any) -> Any:
        raise RuntimeError("the embedding model file is damaged")

    async def aclose(self) -> None:
        pass


@pytest.mark.corpus
def test_a_broken_embedder_fails_the_gate_instead_of_skipping_it() -> None:
    """With the corpus present, only a missing corpus may skip the evaluation: a broken
    embedder must make it fail (the vector side reports `failed`, so the gate's numbers drop
    and its checks fail), never turn into "evaluation unavailable"."""
    from tests.eval.run_eval import EvalUnavailable

    corpus = corpus_path("transcripts/INDEX.json").parents[1]
    try:
        report = run(modes=("vector",), limit=5, corpus=corpus, embedder_factory=_BrokenEmbedder)
    except EvalUnavailable as exc:  # the old behaviour: a skipped gate
        pytest.fail(f"a broken embedder made the evaluation 'unavailable': {exc}")
    vector = report["modes"]["vector"]["overall"]
    assert vector["hit_at_k"] == 0.0  # no vector side: nothing found, so the gate fails
    assert report["meta"]["vector"]["vector"]["status"] == "failed"
