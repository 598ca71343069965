"""Load time and speed of the local models: the llama.cpp test chat model and the embedder.

Prints, for SmolLM2-135M (the model the tests use): load time, prompt tokens/s and
generation tokens/s at a short and a long prompt; for the ONNX embedder: load time,
chunks/s on real ~120-token transcript chunks, and peak memory (RSS).
Run: .venv/bin/python bench/models_bench.py
"""

from __future__ import annotations

import asyncio
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.captions import parse_captions  # noqa: E402
from v2c_desktop.core.models.llamacpp import (  # noqa: E402
    LlamaCppChatModel,
    smollm2_test_model_path,
)
from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder  # noqa: E402
from v2c_desktop.core.models.types import (  # noqa: E402
    ChatDone,
    ChatMessage,
    ChatOptions,
)

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts"


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def corpus_chunks(n: int) -> list[str]:
    words: list[str] = []
    for path in sorted((CORPUS / "3blue1brown").glob("*/captions.en.srt")):
        words += " ".join(s.text for s in parse_captions(path.read_bytes())).split()
    if not words:
        words = ("gradient descent moves the weights downhill on the cost surface " * 200).split()
    size = 90  # ~120 word pieces
    return [" ".join(words[i : i + size]) for i in range(0, size * n, size)][:n]


async def chat_bench() -> None:
    path = smollm2_test_model_path()
    if path is None:
        print("SmolLM2 test model not installed (packaging/install.sh installs it)")
        return
    model = LlamaCppChatModel(path, context_window=4096, capable=False)
    context = " ".join(corpus_chunks(12))
    for label, prompt in (
        ("short prompt", "Name three primary colours."),
        ("long prompt", f"Summarise this transcript in two sentences:\n{context[:6000]}"),
    ):
        done = None
        async for event in model.chat(
            [ChatMessage("user", prompt)], ChatOptions(max_tokens=64, temperature=0.0, seed=7)
        ):
            if isinstance(event, ChatDone):
                done = event
        assert done is not None
        u = done.usage
        load = model.load_ms / 1000 if label == "short prompt" else 0.0
        first = (u.first_token_ms or 0) / 1000 - load
        gen = max(1e-6, u.ms / 1000 - (u.first_token_ms or 0) / 1000)
        print(
            f"SmolLM2-135M {label}: {u.prompt_tokens} prompt tokens at "
            f"{u.prompt_tokens / max(first, 1e-6):.0f} tok/s, {u.completion_tokens} generated "
            f"at {u.completion_tokens / gen:.0f} tok/s"
        )
    print(f"SmolLM2-135M load: {model.load_ms / 1000:.2f} s")
    await model.aclose()


async def embed_bench() -> None:
    before = rss_mb()
    embedder = OnnxEmbedder()
    started = time.perf_counter()
    await embedder.embed(["warm up"])
    load = time.perf_counter() - started
    chunks = corpus_chunks(256)
    started = time.perf_counter()
    await embedder.embed(chunks)
    elapsed = time.perf_counter() - started
    print(
        f"embedder {embedder.info.id}: load {load:.2f} s, {len(chunks)} chunks of ~120 "
        f"tokens at {len(chunks) / elapsed:.1f} chunks/s; peak RSS {rss_mb():.0f} MB "
        f"({before:.0f} MB before loading)"
    )
    await embedder.aclose()


def main() -> None:
    asyncio.run(embed_bench())
    asyncio.run(chat_bench())


if __name__ == "__main__":
    main()
