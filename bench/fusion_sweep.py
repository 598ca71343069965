"""RRF's k and the vector side's weight, swept on the search eval's dev split (issue 18).

Hybrid fusion is reciprocal rank fusion with k = 60 and equal side weights, each keyword
hit weighted by its coverage (`core/search/fusion.py`); those two constants were taken from
the RRF paper, never tuned. This measures whether another choice would have done better:
every (k, vector weight) pair below on the dev split, the one that scores best there, and
what that pair gives on the held-out split (which is reported, never selected on). A
choice is worth changing to only if it wins on dev and does not lose held-out.

    .venv/bin/python bench/fusion_sweep.py
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.eval.check_queries import default_corpus  # noqa: E402
from tests.eval.metrics import evaluate  # noqa: E402
from tests.eval.run_eval import default_embedder, eval_library, search_all  # noqa: E402

KS = (10.0, 20.0, 40.0, 60.0, 100.0)
VECTOR_WEIGHTS = (0.75, 1.0, 1.5, 2.0)


def figures(report: dict[str, Any], split: str) -> tuple[float, float]:
    part = report["by_split"][split]
    return part["mrr"], part["hit_at_k"]


async def main() -> None:
    embedder = default_embedder()
    rows: list[tuple[float, float, tuple[float, float], tuple[float, float]]] = []
    try:
        async with eval_library(default_corpus(), embedder) as (lib, engine):
            base = engine.fusion
            for k in KS:
                for weight in VECTOR_WEIGHTS:
                    engine.fusion = replace(base, k=k, weights={"keyword": 1.0, "vector": weight})
                    runs = await search_all(engine, lib, ("hybrid",), 5)
                    report = evaluate(runs.results["hybrid"], k=5)
                    rows.append((k, weight, figures(report, "dev"), figures(report, "held-out")))
            engine.fusion = base
            sides = await search_all(engine, lib, ("keyword", "vector"), 5)
    finally:
        await embedder.aclose()
    print("hybrid MRR / Hit@5 by (RRF k, vector weight); the app uses k 60, weight 1")
    for k, weight, dev, held in rows:
        mark = "  <- the app" if (k, weight) == (60.0, 1.0) else ""
        print(
            f"  k {k:5.0f}  vector x{weight:4.2f}   dev {dev[0]:.3f} / {dev[1]:.3f}"
            f"   held-out {held[0]:.3f} / {held[1]:.3f}{mark}"
        )
    best = max(rows, key=lambda r: (r[2][0], r[2][1]))
    print(
        f"best on dev: k {best[0]:.0f}, vector x{best[1]:.2f}: dev {best[2][0]:.3f} / "
        f"{best[2][1]:.3f}, held-out {best[3][0]:.3f} / {best[3][1]:.3f}"
    )
    for mode in ("keyword", "vector"):
        report = evaluate(sides.results[mode], k=5)
        dev, held = figures(report, "dev"), figures(report, "held-out")
        print(
            f"  {mode} alone: dev {dev[0]:.3f} / {dev[1]:.3f}"
            f"   held-out {held[0]:.3f} / {held[1]:.3f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
