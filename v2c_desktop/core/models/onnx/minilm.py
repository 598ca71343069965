"""all-MiniLM-L6-v2 as int8 ONNX: where its files are, how to load them, one text's maths.

Kept apart from `embedder` so the blocking pieces (file lookup, session options,
run-pool) read on their own, without the async lifecycle wrapped around them.
Nothing here holds state: the embedder owns the session and the tokenizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from v2c_desktop.core.errors import not_found
from v2c_desktop.core.models.installed.catalog import app_models_dir

#: The model's own `max_seq_length` (sentence-transformers config): it was trained on
#: pieces up to this long, so longer texts are cut here (special tokens included).
MAX_TOKENS = 256
DIMENSIONS = 384
MODEL_DIR = "all-minilm-l6-v2"
MODEL_FILE = "model-int8w7.onnx"

Vector = npt.NDArray[np.float32]


def tokenizer_file() -> Path:
    return app_models_dir() / MODEL_DIR / "tokenizer.json"


def onnx_file() -> Path:
    """The re-quantised int8 ONNX file that ships in models/ (packaging/quantize_embedder.py)."""
    return app_models_dir() / MODEL_DIR / MODEL_FILE


def _model_missing(message: str) -> Exception:
    return not_found(
        message,
        f"reinstall v2c: models/{MODEL_DIR}/{MODEL_FILE} ships with the app "
        "(packaging/quantize_embedder.py makes it again)",
    )


def load_tokenizer(path: Path) -> Tokenizer:
    """The WordPiece tokenizer, set to truncate at `MAX_TOKENS` and not to pad.

    The shipped tokenizer.json pads and truncates to a fixed 128; padding is done per
    batch instead (to that batch's longest text), so it is switched off here.
    """
    if not path.is_file():
        raise not_found(
            f"embedding tokenizer not found: {path}",
            f"the tokenizer.json is missing from models/{MODEL_DIR}: reinstall v2c",
        )
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


def load_session(path: Path) -> Any:
    """An onnxruntime CPU session that runs each call on the calling thread alone.

    The file holds int8 weights for onnxruntime's integer GEMM kernels (dynamic
    quantisation: activations are quantised per run). The embedder gets its parallelism by
    running independent texts on one thread per core over this one session (`run` is
    thread-safe): with 2 cores that made 94-122 chunks/s against 76-96 for one pass spread
    over both cores, which pays a synchronisation per operator (bench/embed_bench.py).
    BASIC optimisation measured as fast as ALL here and changes nothing numerically.
    """
    if not path.is_file():
        raise _model_missing(f"embedding model not found: {path}")
    import onnxruntime as ort  # imported here: ~0.1 s, paid only by code that embeds

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # warnings about unused initialisers are noise here
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def token_ids(tokenizer: Tokenizer, texts: Sequence[str]) -> list[list[int]]:
    """Word-piece ids per text, [CLS] ... [SEP], truncated to `MAX_TOKENS`.

    `encode_batch_fast` skips character offsets (unused here) and tokenises in parallel.
    """
    return [encoding.ids for encoding in tokenizer.encode_batch_fast(list(texts))]


def run_text(session: Any, ids: Sequence[int]) -> Vector:
    """One forward pass over one tokenised text: its 384-dim unit vector.

    One text per pass, never a batch: activations are quantised per pass, so texts sharing
    a pass would change each other's vectors (see `embedder`).
    """
    input_ids = np.asarray([ids], dtype=np.int64)
    feeds = {
        "input_ids": input_ids,
        "attention_mask": np.ones_like(input_ids),
        "token_type_ids": np.zeros_like(input_ids),
    }
    (hidden,) = session.run(["last_hidden_state"], feeds)
    return mean_pool(np.asarray(hidden[0], dtype=np.float32))


def mean_pool(hidden: npt.NDArray[np.float32]) -> Vector:
    """Mean of a text's token vectors, scaled to unit length.

    This is what sentence-transformers does for this model (Pooling(mean) + Normalize);
    cosine similarity then reduces to a dot product for the store.
    """
    mean = hidden.mean(axis=0)
    return np.asarray(mean / max(float(np.linalg.norm(mean)), 1e-12), dtype=np.float32)
