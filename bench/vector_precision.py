"""The search eval with the vector index held as int8 codes (the app) and as float32.

The vector index keeps each unit vector as int8 codes plus a float32 scale per row, a
quarter of float32's memory (`core/search/vectors.py`). This runs tests/eval (both splits,
keyword, vector and hybrid) over one indexed eval library twice: once with the app's
engine, once with an engine whose index keeps float32 rows (`VectorIndex(exact=True)`,
which nothing but benchmarks selects), and prints MRR and Hit@5 side by side, how many
queries' top-5 changed, and the memory each would take at 1M chunks of 384 dimensions.

    .venv/bin/python bench/vector_precision.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.eval.check_queries import default_corpus  # noqa: E402
from tests.eval.metrics import evaluate  # noqa: E402
from tests.eval.run_eval import default_embedder, eval_library, search_all  # noqa: E402
from v2c_desktop.core.search.engine import SearchEngine  # noqa: E402
from v2c_desktop.core.search.vectors import VectorIndex  # noqa: E402

MODES = ("keyword", "vector", "hybrid")
DIMS, MILLION = 384, 1_000_000


def exact_engine(store: Any, embedder: Any) -> SearchEngine:
    engine = SearchEngine(store, embedder)
    exact = VectorIndex(embedder.info.id, exact=True)
    engine.vectors = engine.indexer.vectors = exact
    return engine


async def main() -> None:
    embedder = default_embedder()
    try:
        async with eval_library(default_corpus(), embedder) as (lib, engine):
            runs = {"int8 (app)": await search_all(engine, lib, MODES, 5)}
            other = exact_engine(lib.store, embedder)
            try:
                runs["float32"] = await search_all(other, lib, MODES, 5)
            finally:
                await other.aclose()
    finally:
        await embedder.aclose()
    print(f"{len(lib.queries)} queries; MRR / Hit@5 per split")
    for mode in MODES:
        for name, run in runs.items():
            report = evaluate(run.results[mode], k=5)
            cells = "  ".join(
                f"{split} {report['by_split'][split]['mrr']:.3f} / "
                f"{report['by_split'][split]['hit_at_k']:.3f}"
                for split in ("dev", "held-out")
            )
            overall = report["overall"]
            print(
                f"  {mode:7s} {name:11s} all {overall['mrr']:.3f} / {overall['hit_at_k']:.3f}"
                f"  {cells}"
            )
        a, b = (runs[n].hits[mode] for n in runs)
        changed = sum(a[q] != b[q] for q in a)
        print(f"  {mode:7s} queries whose top 5 differ: {changed} of {len(a)}")
    per_row = {"int8 (app)": DIMS + 4, "float32": DIMS * 4}
    print(
        "memory at 1M chunks: "
        + ", ".join(f"{n} {b * MILLION / 2**30:.2f} GiB" for n, b in per_row.items())
    )


if __name__ == "__main__":
    asyncio.run(main())
