"""Do the eval gates hold on a CPU whose float kernels round differently? Measured, not hoped.

The embedder's integer matrix products are exact on every x86-64 CPU (7-bit weights,
tests/unit/models/test_embedder_numerics.py), but its float32 operators (the attention
products, softmax, layer norm, GELU) run different kernels on AVX-512 and on AVX2. Their
last-bit differences change the rounding of the next layer's int8 activations now and then,
and that grows: the same 84 corpus texts embedded on this machine (AVX-512 VNNI) and under
`qemu-x86_64 -cpu EPYC-Rome` (AVX2, no VNNI, no AVX-512: the CI kind) gave identical vectors
for 32 texts, and the rest differed by up to 0.080 in norm (cosine >= 0.9968; 5% quantile
0.9984). See `--compare` below to measure it again.

This script runs the search, ask and brief evaluations with every text's vector moved as if
by another CPU: each text is moved by a fixed random direction of norm `--norm` (default
0.080, the largest difference measured, for every text, so harsher than any real CPU), the
same text always the same way (as a CPU embeds a query and a chunk of the same words alike),
a different direction per seed. It prints each gated figure per seed beside its gate.

    .venv/bin/python bench/cpu_margin.py [--seeds 0 1 2] [--norm 0.08] [--evals search,ask,brief]
    .venv/bin/python bench/cpu_margin.py --dump vectors.npy      # this CPU's vectors of the texts
    qemu-x86_64 -cpu EPYC-Rome .venv/bin/python bench/cpu_margin.py --dump other.npy  # (slow)
    .venv/bin/python bench/cpu_margin.py --compare vectors.npy other.npy
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import v2c_desktop.core.models.onnx.embedder as onnx_embedder  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts"
REAL_RUN_TEXT = onnx_embedder.run_text


def moved(seed: int, norm: float) -> Callable[[Any, Sequence[int]], np.ndarray]:
    """`run_text` as another CPU might compute it: the text's vector moved by `norm` in a
    direction fixed by the text's tokens and the seed, back to unit length."""

    def run_text(session: Any, ids: Sequence[int]) -> np.ndarray:
        vector = REAL_RUN_TEXT(session, ids)
        digest = hashlib.sha256(f"{seed}:{list(ids)}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        direction = rng.normal(size=vector.shape)
        direction -= direction.dot(vector) * vector  # orthogonal: a move of exactly `norm`
        direction /= np.linalg.norm(direction)
        out = vector + norm * direction
        return np.asarray(out / np.linalg.norm(out), dtype=np.float32)

    return run_text


def _forget() -> None:
    """Each run embeds afresh (the evals remember vectors for one process)."""
    from tests.eval import run_eval

    run_eval._REMEMBERED.clear()


def search_figures() -> dict[str, float]:
    from tests.eval.run_eval import run

    report = run(modes=("keyword", "vector", "hybrid"), limit=5)
    dev = {m: report["modes"][m]["by_split"]["dev"] for m in ("keyword", "vector", "hybrid")}
    return {
        "hybrid MRR - best side (gate >= 0)": dev["hybrid"]["mrr"]
        - max(dev["keyword"]["mrr"], dev["vector"]["mrr"]),
        "hybrid distinct P@5 - best side (gate >= 0)": dev["hybrid"]["distinct_p_at_k"]
        - max(dev["keyword"]["distinct_p_at_k"], dev["vector"]["distinct_p_at_k"]),
        "hybrid Hit@5 (gate >= 0.9)": dev["hybrid"]["hit_at_k"],
        "vector MRR": dev["vector"]["mrr"],
    }


def ask_figures() -> dict[str, float]:
    from tests.eval.run_ask_eval import run

    o = run()["overall"]
    return {
        "answered (gate >= 0.9)": o["answered"],
        "first near (gate >= 0.75)": o["first_near"],
        "citations near (gate >= 0.6)": o["citations_near"],
        "verified (gate = 1)": o["verified"],
    }


def brief_figures() -> dict[str, float]:
    from tests.eval.run_brief_eval import run

    o = run(model=None)["overall"]
    return {"coverage (gate >= 0.5)": o["coverage"], "precision (gate >= 0.3)": o["precision"]}


EVALS = {"search": search_figures, "ask": ask_figures, "brief": brief_figures}


def texts() -> list[str]:
    """Real corpus sentences and ~8-sentence passages, plus tiny texts (the worst case)."""
    out = ["ok", "Hi.", "So.", "The quick brown fox jumps over the lazy dog."]
    for path in sorted(CORPUS.glob("*/*/sentence_timings.en.json"))[:4]:
        sentences = [row[0] for row in json.loads(path.read_text(encoding="utf-8"))]
        out += sentences[:60:6]
        out += [" ".join(sentences[i : i + 8]) for i in range(0, 160, 16)]
    return out


def dump(path: Path) -> None:
    embedder = onnx_embedder.OnnxEmbedder(threads=1)
    vectors = embedder.embed_sync(texts())
    np.save(path, vectors)
    print(f"{len(vectors)} vectors written to {path}")


def compare(a_path: Path, b_path: Path) -> None:
    a, b = np.load(a_path), np.load(b_path)
    cosine = np.sum(a * b, axis=1)
    moved_by = np.linalg.norm(a - b, axis=1)
    print(
        f"{len(a)} texts: identical {int(np.sum(moved_by == 0))}, largest move "
        f"{moved_by.max():.4f} (norm), cosine lowest {cosine.min():.5f}, "
        f"5% quantile {np.quantile(cosine, 0.05):.5f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--norm", type=float, default=0.080)
    parser.add_argument("--evals", default="search,ask,brief")
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--compare", type=Path, nargs=2)
    args = parser.parse_args()
    if args.dump:
        return dump(args.dump)
    if args.compare:
        return compare(*args.compare)
    if not CORPUS.exists():
        raise SystemExit("../shared/corpus is not beside this checkout")
    names = [n.strip() for n in args.evals.split(",") if n.strip()]
    runs: list[tuple[str, Callable[[Any, Sequence[int]], np.ndarray]]] = [
        ("this CPU", REAL_RUN_TEXT)
    ]
    runs += [(f"seed {s}, moved {args.norm}", moved(s, args.norm)) for s in args.seeds]
    for name in names:
        print(f"\n## {name}")
        for label, run_text in runs:
            onnx_embedder.run_text = run_text  # type: ignore[assignment]
            _forget()
            figures = EVALS[name]()
            print(f"{label:<24} " + "  ".join(f"{k}: {v:.3f}" for k, v in figures.items()))
            sys.stdout.flush()
    onnx_embedder.run_text = REAL_RUN_TEXT


if __name__ == "__main__":
    main()
