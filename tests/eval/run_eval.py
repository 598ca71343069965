"""Runs the search evaluation: tests/eval/queries.json against a fresh library of real transcripts.

Imports every transcript the queries point at (read in place from ../shared/corpus) into a
library in a temp dir, indexes it with the search engine, runs each query in each mode and
scores the top `limit` hits with tests/eval/metrics.py. Prints a table like the one in
spec/search.md ("Evaluation").

    .venv/bin/python tests/eval/run_eval.py [--modes keyword,vector,hybrid] [--limit 5] [--json F]
                                            [--vector-noise 0.001 [--seed N]]

`--vector-noise` adds Gaussian noise of that size to every vector component (then scales
back to unit length), a robustness check; `bench/cpu_margin.py` runs the gates with every
vector moved as far as another CPU's float kernels were measured to move one (0.08).

Importable too: `run(modes=..., limit=5) -> dict`. The search engine and the embedder are
imported only when a run starts, so this module loads before the engine exists.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.eval` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.eval.check_queries import KINDS, default_corpus, load_queries
from tests.eval.metrics import K, QueryOutcome, Span, evaluate

DEFAULT_MODES = ("keyword", "vector", "hybrid")


class EvalUnavailable(RuntimeError):
    """The evaluation cannot run here: the corpus is not beside this checkout.

    Only that. A missing or broken embedder is a failure of the gate, not a reason to skip
    it: the app ships its embedder, so a search-quality check that quietly skipped when the
    embedder broke would pass exactly when search got worse.
    """


def default_embedder() -> Any:
    """The local ONNX embedder the desktop app uses (no network), remembering its vectors
    for this process (`RememberingEmbedder`)."""
    from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder

    return RememberingEmbedder(OnnxEmbedder())


#: text -> vector, per embedding model id, for the life of the process.
_REMEMBERED: dict[str, dict[str, Any]] = {}


class RememberingEmbedder:
    """The real embedder, asked only for texts this process has not embedded yet.

    The search, ask and brief evals index the same corpus transcripts, cut the same way, in
    one test session; a vector does not depend on its batch (issue 11), so a remembered row
    is the row the model would give again, and each eval after the first skips re-embedding
    them. Index timings of a later run in the same process are then not the model's speed:
    `run_eval.py` as a script (one run per process) measures that.
    """

    def __init__(self, inner: Any) -> None:
        self.inner, self.info = inner, inner.info
        self._memo = _REMEMBERED.setdefault(inner.info.id, {})

    async def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            vectors = await self.inner.embed(missing)
            self._memo.update(zip(missing, vectors, strict=True))
        if not texts:
            return await self.inner.embed(texts)
        return np.stack([self._memo[t] for t in texts]).astype(np.float32)

    async def aclose(self) -> None:
        await self.inner.aclose()


class NoisyEmbedder:
    """Wraps an embedder and perturbs its unit vectors by `scale` (for robustness runs)."""

    def __init__(self, inner: Any, scale: float, seed: int = 0) -> None:
        import numpy as np

        self.inner, self.info, self.scale = inner, inner.info, scale
        self._rng = np.random.default_rng(seed)

    async def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        vectors = await self.inner.embed(texts)
        noisy = vectors + self._rng.normal(0.0, self.scale, vectors.shape)
        return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)

    async def aclose(self) -> None:
        await self.inner.aclose()


def transcripts_used(queries: Sequence[dict[str, Any]]) -> list[str]:
    """Every INDEX.json path an expected or forbidden range points at, sorted."""
    return sorted(
        {r["path"] for q in queries for key in ("expected", "forbidden") for r in q.get(key) or []}
    )


def _spans(ranges: Sequence[dict[str, Any]], video_of: dict[str, str]) -> list[Span]:
    return [Span(video_of[r["path"]], float(r["start"]), float(r["end"])) for r in ranges]


async def _import(library: Any, corpus: Path, paths: Sequence[str]) -> dict[str, str]:
    """Import each transcript; path -> video id from the batch outcome."""
    video_of: dict[str, str] = {}
    for path in paths:
        batch = await library.add([str(corpus / path)])
        outcome = batch.outcomes[0] if batch.outcomes else None
        if outcome is None or outcome.status == "failed" or not outcome.video_id:
            reason = outcome.reason if outcome is not None else "no outcome"
            raise RuntimeError(f"import of {path} failed: {reason}")
        video_of[path] = outcome.video_id
    return video_of


@dataclass
class EvalLibrary:
    """A fresh library holding the eval's transcripts, indexed (see `eval_library`)."""

    store: Any
    queries: list[dict[str, Any]]
    paths: list[str]
    video_of: dict[str, str]
    timings: dict[str, float]


@contextlib.asynccontextmanager
async def eval_library(
    corpus: Path,
    embedder: Any,
    engine_factory: Callable[[Any, Any], Any] | None = None,
) -> AsyncIterator[tuple[EvalLibrary, Any]]:
    """Import the transcripts the queries use into a temp library and index them.

    Yields the library and the engine that indexed it; both are closed on exit. Benches
    that compare engine variants (bench/search_levers.py) open more engines over the same
    `store`: the index is built once, each variant only reloads it.
    """
    from v2c_desktop.core.library import Library
    from v2c_desktop.core.search.engine import SearchEngine
    from v2c_desktop.core.store import open_library

    queries = load_queries()
    paths = transcripts_used(queries)
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="v2c-eval-") as tmp:
        store = open_library(Path(tmp) / "eval.duckdb")
        library = Library(store)
        engine: Any = None
        try:
            started = time.perf_counter()
            video_of = await _import(library, corpus, paths)
            timings["import_s"] = time.perf_counter() - started

            started = time.perf_counter()
            engine = (engine_factory or SearchEngine)(store, embedder)
            await engine.index_pending()
            timings["index_s"] = time.perf_counter() - started
            yield EvalLibrary(store, queries, paths, video_of, timings), engine
        finally:
            close = getattr(engine, "aclose", None)
            if close is not None:
                await close()
            await library.aclose()
            store.close()


@dataclass
class SearchRuns:
    """What `search_all` found: outcomes per mode and query, hits, meta, wall times."""

    results: dict[str, dict[str, QueryOutcome]]
    hits: dict[str, dict[str, list[dict[str, Any]]]]
    meta: dict[str, Any]
    ms: dict[str, dict[str, float]]  # mode -> query id -> wall ms of `engine.search`


async def search_all(
    engine: Any,
    lib: EvalLibrary,
    modes: Sequence[str],
    limit: int,
    *,
    fresh_query_vectors: bool = False,
) -> SearchRuns:
    """Every query of `lib` in every mode against `engine`, scored against its ranges.

    With `fresh_query_vectors` the engine forgets its query vectors before each search, so
    the wall times of vector and hybrid searches include embedding the query.
    """
    from v2c_desktop.core.search.engine import SearchRequest

    out = SearchRuns({}, {}, {}, {})
    for mode in modes:
        out.results[mode], out.hits[mode], out.ms[mode] = {}, {}, {}
        for q in lib.queries:
            if fresh_query_vectors:
                engine.clear_query_cache()
            started = time.perf_counter()
            result = await engine.search(SearchRequest(query=q["query"], mode=mode, limit=limit))
            out.ms[mode][q["id"]] = (time.perf_counter() - started) * 1000
            hits = [Span(h.video_id, float(h.start), float(h.end)) for h in result.hits]
            out.results[mode][q["id"]] = QueryOutcome(
                kind=q["kind"],
                hits=hits,
                expected=_spans(q["expected"], lib.video_of),
                forbidden=_spans(q.get("forbidden") or [], lib.video_of),
                split=q.get("split", "dev"),
            )
            out.hits[mode][q["id"]] = [
                {"video_id": h.video, "start": h.start, "end": h.end} for h in hits
            ]
            out.meta.setdefault(mode, getattr(result, "meta", {}))
    return out


async def _run(
    modes: Sequence[str],
    limit: int,
    corpus: Path,
    embedder_factory: Callable[[], Any] | None,
    engine_factory: Callable[[Any, Any], Any] | None = None,
) -> dict[str, Any]:
    needs_vectors = any(m in ("vector", "hybrid") for m in modes)
    embedder = (embedder_factory or default_embedder)() if needs_vectors else None
    try:
        async with eval_library(corpus, embedder, engine_factory) as (lib, engine):
            runs = await search_all(engine, lib, modes, limit)
    finally:
        if embedder is not None:
            await embedder.aclose()
    timings = dict(lib.timings)
    for mode in modes:
        timings[f"search_{mode}_s"] = sum(runs.ms[mode].values()) / 1000
    return {
        "queries": len(lib.queries),
        "transcripts": len(lib.paths),
        "videos": lib.video_of,
        "limit": limit,
        "embedder": getattr(getattr(embedder, "info", None), "id", None),
        "timings": timings,
        "modes": {mode: evaluate(runs.results[mode], k=limit) for mode in modes},
        "hits": runs.hits,
        "meta": {mode: _jsonable(m) for mode, m in runs.meta.items()},
    }


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)


def run(
    modes: Sequence[str] = DEFAULT_MODES,
    limit: int = K,
    *,
    corpus: Path | None = None,
    embedder_factory: Callable[[], Any] | None = None,
    engine_factory: Callable[[Any, Any], Any] | None = None,
) -> dict[str, Any]:
    """Evaluate every query in every mode; see `evaluate` for the per-mode summaries.

    `embedder_factory` and `engine_factory` (store, embedder -> engine) let a bench measure
    another embedder or engine variant; the defaults are what the app uses.
    Raises EvalUnavailable when the corpus is missing; any other failure propagates.
    """
    corpus = corpus or default_corpus()
    if not (corpus / "transcripts" / "INDEX.json").exists():
        raise EvalUnavailable(f"../shared/corpus is not at {corpus}")
    return asyncio.run(_run(tuple(modes), limit, corpus, embedder_factory, engine_factory))


def format_table(report: dict[str, Any]) -> str:
    """Markdown table: one row per (query kind, mode), `all` first, as in the spec."""
    k = report["limit"]
    head = f"| Queries | n | Method | P@{k} (distinct) | P@{k} (raw) | MRR | Hit@{k} | Forbidden |"
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    modes = list(report["modes"])
    splits = sorted({split for m in modes for split in report["modes"][m].get("by_split", {})})
    groups = ["all", *(s for s in splits if len(splits) > 1)] + [
        kind for kind in KINDS if any(kind in report["modes"][m]["by_kind"] for m in modes)
    ]
    for group in groups:
        for mode in modes:
            ev = report["modes"][mode]
            if group == "all":
                s = ev["overall"]
            elif group in splits:
                s = ev["by_split"][group]
            else:
                s = ev["by_kind"][group]
            lines.append(
                f"| {group} | {s['n']} | {mode} | {s['distinct_p_at_k']:.3f} | "
                f"{s['raw_p_at_k']:.3f} | {s['mrr']:.3f} | {s['hit_at_k']:.3f} | "
                f"{int(s['forbidden'])} |"
            )
    return "\n".join(lines)


def misses(report: dict[str, Any], mode: str) -> list[str]:
    """Query ids with no relevant hit in the top k for `mode`."""
    per_query = report["modes"][mode]["per_query"]
    return sorted(qid for qid, s in per_query.items() if s["hit_at_k"] == 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default=",".join(DEFAULT_MODES))
    parser.add_argument("--limit", type=int, default=K)
    parser.add_argument("--json", type=Path, help="also write the full report here")
    parser.add_argument("--vector-noise", type=float, default=0.0, metavar="SCALE")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    factory = None
    if args.vector_noise:
        factory = lambda: NoisyEmbedder(default_embedder(), args.vector_noise, args.seed)  # noqa: E731
    try:
        report = run(
            modes=[m.strip() for m in args.modes.split(",") if m.strip()],
            limit=args.limit,
            embedder_factory=factory,
        )
    except EvalUnavailable as exc:
        print(f"cannot run the evaluation: {exc}", file=sys.stderr)
        return 2
    print(
        f"{report['queries']} queries over {report['transcripts']} transcripts, "
        f"top {report['limit']}, embedder {report['embedder']}"
    )
    print(format_table(report))
    for mode in report["modes"]:
        missed = misses(report, mode)
        print(f"{mode}: no relevant hit in the top {report['limit']}: {', '.join(missed) or '-'}")
    print("timings: " + ", ".join(f"{k} {v:.1f}" for k, v in report["timings"].items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
