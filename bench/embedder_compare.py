"""The default embedder against nomic-embed-text-v1.5, side by side, on the search eval.

Measures, for all-MiniLM-L6-v2 (the shipped int8 ONNX) and for nomic-embed-text-v1.5 read
from files given on the command line (never downloaded):

1. Quality: the search eval (tests/eval/queries.json over ../shared/corpus, both splits)
   in keyword, vector and hybrid mode, MRR and Hit@5, with nomic at its full 768
   dimensions and truncated (matryoshka: layer norm, cut, unit length) to each of `--dims`.
   Nomic gets the prefixes it was trained with ("search_document: " for chunks,
   "search_query: " for queries) and mean pooling. Its vectors come from llama.cpp (the
   GGUF, through the app's own `LlamaCppEmbeddingModel`) or, with `--quality-runtime
   onnx`, from onnxruntime. The truncated runs reuse the full vectors of the first run.
2. Speed: chunks/s embedding a sample of real eval chunks, on 1 and 2 threads, and the
   median time to embed one query; each (model, runtime, threads) in a child process so
   its memory is its own: peak RSS, and the RSS the loaded model adds.
3. Agreement: cosine between the ONNX (fp32, int8) and llama.cpp vectors of the sample, so
   the runtimes are shown to compute the same model.

    .venv/bin/python bench/embedder_compare.py --gguf /path/nomic-embed-text-v1.5.f16.gguf \
        [--onnx /path/nomic.onnx --tokenizer /path/tokenizer.json] [--int8-onnx /path/int8.onnx] \
        [--dims 384,256] [--quality-runtime llamacpp|onnx] [--no-quality] [--no-speed]

Production defaults are untouched: the eval's embedder and engine are passed in
(`run_eval.eval_library`), and the query prefix reaches the model through a bench-only
engine whose query embedding calls `embed_query`.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.eval.check_queries import default_corpus  # noqa: E402
from tests.eval.metrics import evaluate  # noqa: E402
from tests.eval.run_eval import eval_library, search_all  # noqa: E402
from v2c_desktop.core.models.types import ModelInfo  # noqa: E402
from v2c_desktop.core.search.engine import SearchEngine  # noqa: E402

Vectors = npt.NDArray[np.float32]
DOC_PREFIX, QUERY_PREFIX = "search_document: ", "search_query: "
NOMIC_MAX_TOKENS = 512  # chunks are 30-60 s of speech, ~100-250 word pieces


# -- embedders ------------------------------------------------------------------------------


def _unit(matrix: npt.NDArray[Any]) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)


class NomicOnnx:
    """nomic-embed-text-v1.5 through onnxruntime: each text alone (no padding, so a vector
    never depends on its batch), one pass per runner thread, mean pooling, unit length."""

    def __init__(self, model: Path, tokenizer: Path, threads: int, label: str) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=NOMIC_MAX_TOKENS)
        self._tokenizer.no_padding()
        self._threads = threads
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=threads)
        self.info = ModelInfo(
            id=f"onnx/{label}", kind="embed", runtime="onnx", label=label, dimensions=768
        )

    def _one(self, ids: Sequence[int]) -> Vectors:
        input_ids = np.asarray([ids], dtype=np.int64)
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": input_ids, "attention_mask": np.ones_like(input_ids)},
        )
        pooled: Vectors = hidden[0].mean(axis=0)
        return pooled

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        ids = [e.ids for e in self._tokenizer.encode_batch_fast(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        out = np.empty((len(ids), 768), dtype=np.float32)
        queue, lock = iter(order), threading.Lock()

        def runner() -> None:
            while True:
                with lock:
                    i = next(queue, None)
                if i is None:
                    return
                out[i] = self._one(ids[i])

        futures = [self._pool.submit(runner) for _ in range(min(self._threads, len(ids)))]
        for future in futures:
            future.result()
        return _unit(out)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await asyncio.to_thread(self.embed_sync, texts)

    async def aclose(self) -> None:
        self._pool.shutdown(wait=True)


def nomic_llamacpp(path: Path, threads: int) -> Any:
    """The app's own llama.cpp embedder over the GGUF (mean pooling, unit rows)."""
    from v2c_desktop.core.models.llamacpp.embed import LlamaCppEmbeddingModel

    return LlamaCppEmbeddingModel(
        path, model_id="llamacpp/nomic-embed-text-v1.5-f16", n_threads=threads, context_window=512
    )


class Prefixed:
    """Adds nomic's task prefixes and remembers every full-size chunk vector, so the
    truncated runs and a second pass over the same chunks cost nothing."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.info = replace(inner.info, dimensions=768)
        self.memo: dict[tuple[str, str], Vectors] = {}

    async def _embed(self, role: str, prefix: str, texts: Sequence[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if (role, t) not in self.memo))
        if missing:
            vectors = await self.inner.embed([prefix + t for t in missing])
            self.memo.update({(role, t): v for t, v in zip(missing, vectors, strict=True)})
        if not texts:
            return np.zeros((0, 768), dtype=np.float32)
        return np.stack([self.memo[(role, t)] for t in texts])

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await self._embed("doc", DOC_PREFIX, texts)

    async def embed_query(self, text: str) -> Vectors:
        """Never remembered: a search's time must include embedding its query."""
        vectors: Vectors = await self.inner.embed([QUERY_PREFIX + text])
        return vectors[0]

    async def aclose(self) -> None:
        await self.inner.aclose()


class Matryoshka:
    """nomic's own recipe for fewer dimensions: layer norm over all 768, keep the first
    `dims`, unit length (the model was trained so these prefixes stand alone)."""

    def __init__(self, source: Prefixed, dims: int) -> None:
        self.source, self.dims = source, dims
        self.info = replace(source.info, id=f"{source.info.id}-d{dims}", dimensions=dims)

    def _cut(self, matrix: Vectors) -> Vectors:
        if self.dims >= matrix.shape[1]:
            return matrix
        centred = matrix - matrix.mean(axis=1, keepdims=True)
        normed = centred / np.sqrt(centred.var(axis=1, keepdims=True) + 1e-5)
        return _unit(normed[:, : self.dims])

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return self._cut(await self.source.embed(texts))

    async def embed_query(self, text: str) -> Vectors:
        return self._cut((await self.source.embed_query(text))[None, :])[0]

    async def aclose(self) -> None:  # the source is closed by its owner
        pass


class QueryAwareEngine(SearchEngine):
    """The app's engine, embedding queries with `embed_query` where the model has one."""

    async def _embed_query(self, text: str) -> Any:
        embed_query = getattr(self.embedder, "embed_query", None)
        if embed_query is None:
            return await super()._embed_query(text)
        cached = self._query_vectors.get(text)
        if cached is None:
            cached = self._query_vectors[text] = await embed_query(text)
        return cached


# -- quality --------------------------------------------------------------------------------


@dataclass
class QualityRow:
    name: str
    figures: dict[str, dict[str, dict[str, float]]]  # split -> mode -> metric
    ms: dict[str, float]  # mode -> median ms per query (query embedding included)
    index_s: float


async def quality(name: str, embedder: Any, modes: Sequence[str]) -> tuple[QualityRow, Any]:
    """The eval with `embedder`; query vectors are not cached between queries or modes, so
    vector and hybrid times include embedding the query."""
    async with eval_library(default_corpus(), embedder, QueryAwareEngine) as (lib, engine):
        runs = await search_all(engine, lib, modes, 5, fresh_query_vectors=True)
        texts = engine.reads.cursor().execute("SELECT text FROM chunks ORDER BY id").fetchall()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for mode in modes:
        ev = evaluate(runs.results[mode], k=5)
        for split, s in ev["by_split"].items():
            figures.setdefault(split, {})[mode] = {"mrr": s["mrr"], "hit": s["hit_at_k"]}
    ms = {mode: statistics.median(runs.ms[mode].values()) for mode in modes}
    return QualityRow(name, figures, ms, lib.timings["index_s"]), [t[0] for t in texts]


def quality_table(rows: Sequence[QualityRow], modes: Sequence[str]) -> str:
    head = "| embedder | split | " + " | ".join(f"{m} MRR / Hit@5" for m in modes)
    head += " | " + " | ".join(f"{m} ms/q" for m in modes) + " | index s |"
    lines = [head, "|" + "---|" * (3 + 2 * len(modes))]
    for row in rows:
        for split in ("dev", "held-out"):
            cells = [
                f"{row.figures[split][m]['mrr']:.3f} / {row.figures[split][m]['hit']:.3f}"
                for m in modes
            ]
            times = [f"{row.ms[m]:.1f}" for m in modes]
            lines.append(
                f"| {row.name} | {split} | " + " | ".join(cells + times) + f" | {row.index_s:.0f} |"
            )
    return "\n".join(lines)


# -- speed and memory (one child process per measurement) -----------------------------------


def _rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (VmRSS) or its peak (VmHWM), in MB. Not
    `ru_maxrss`: Linux carries that over `exec`, so a child would report its parent's."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _child(kind: str, path: str, tokenizer: str, threads: int, texts_file: str) -> None:
    """Load one embedder, embed the sample and some queries; print JSON figures."""
    texts = json.loads(Path(texts_file).read_text())
    chunks, queries = texts["chunks"], texts["queries"]
    before = _rss_mb()
    if kind == "minilm":
        from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder

        model: Any = OnnxEmbedder(threads=threads)
        embed = model.embed_sync
        doc, query = "", ""
    elif kind == "llamacpp":
        model = nomic_llamacpp(Path(path), threads)
        embed = lambda xs: asyncio.run(model.embed(xs))  # noqa: E731
        doc, query = DOC_PREFIX, QUERY_PREFIX
    else:
        model = NomicOnnx(Path(path), Path(tokenizer), threads, kind)
        embed = model.embed_sync
        doc, query = DOC_PREFIX, QUERY_PREFIX
    started = time.perf_counter()
    embed([doc + chunks[0]])
    load_s = time.perf_counter() - started
    loaded = _rss_mb()
    embed([doc + t for t in chunks[:4]])  # warm
    started = time.perf_counter()
    vectors = embed([doc + t for t in chunks])
    rate = len(chunks) / (time.perf_counter() - started)
    query_ms = []
    for q in queries:
        started = time.perf_counter()
        embed([query + q])
        query_ms.append((time.perf_counter() - started) * 1000)
    peak = _rss_mb("VmHWM")
    np.save(texts_file + f".{kind}.{threads}.npy", np.asarray(vectors, dtype=np.float32))
    print(
        json.dumps(
            {
                "chunks_per_s": rate,
                "query_ms": statistics.median(query_ms),
                "load_s": load_s,
                "model_rss_mb": loaded - before,
                "peak_rss_mb": peak,
            }
        )
    )


def speed(models: dict[str, tuple[str, str]], texts_file: Path, threads: Sequence[int]) -> str:
    """Run `_child` for each model and thread count, one at a time; a table."""
    lines = [
        "| model | threads | chunks/s | query ms (p50) | load s | model RSS MB | peak RSS MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, (path, tokenizer) in models.items():
        for n in threads:
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    kind,
                    path,
                    tokenizer,
                    str(n),
                    str(texts_file),
                ],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "OMP_NUM_THREADS": str(n)},
            )
            f = json.loads(out.stdout.strip().splitlines()[-1])
            lines.append(
                f"| {kind} | {n} | {f['chunks_per_s']:.1f} | {f['query_ms']:.1f} | "
                f"{f['load_s']:.1f} | {f['model_rss_mb']:.0f} | {f['peak_rss_mb']:.0f} |"
            )
            print(lines[-1], flush=True)
    return "\n".join(lines)


def agreement(texts_file: Path, kinds: Sequence[str], reference: str) -> str:
    """Mean and minimum cosine of each runtime's chunk vectors against `reference`'s."""
    ref_file = Path(f"{texts_file}.{reference}.1.npy")
    if not ref_file.exists():
        return ""
    ref = np.load(ref_file)
    lines = [f"| model | cosine to {reference}: mean | min |", "|---|---|---|"]
    for kind in kinds:
        other = Path(f"{texts_file}.{kind}.1.npy")
        if kind in (reference, "minilm") or not other.exists():
            continue
        cos = (np.load(other) * ref).sum(axis=1)
        lines.append(f"| {kind} | {cos.mean():.4f} | {cos.min():.4f} |")
    return "\n".join(lines)


# -- main -----------------------------------------------------------------------------------


async def _quality_runs(args: argparse.Namespace, modes: Sequence[str]) -> list[str]:
    from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder

    rows: list[QualityRow] = []
    minilm = OnnxEmbedder()  # not the eval's remembering one: query times include the model
    try:
        row, chunk_texts = await quality("all-MiniLM-L6-v2 int8 (default)", minilm, modes)
        rows.append(row)
        print(quality_table(rows[-1:], modes), flush=True)
    finally:
        await minilm.aclose()
    if args.quality_runtime == "onnx":
        inner: Any = NomicOnnx(args.onnx, args.tokenizer, 2, args.onnx.stem)
    else:
        inner = nomic_llamacpp(args.gguf, 2)
    nomic = Prefixed(inner)
    try:
        runtime = args.onnx.stem if args.quality_runtime == "onnx" else "llama.cpp"
        name = f"nomic v1.5 768 ({runtime})"
        rows.append((await quality(name, nomic, modes))[0])
        print(quality_table(rows[-1:], modes), flush=True)
        for dims in args.dims:
            name = f"nomic v1.5 {dims} ({runtime})"
            rows.append((await quality(name, Matryoshka(nomic, dims), modes))[0])
            print(quality_table(rows[-1:], modes), flush=True)
    finally:
        await nomic.aclose()
    return chunk_texts


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2], argv[3], int(argv[4]), argv[5])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, required=True, help="nomic-embed-text-v1.5 GGUF")
    parser.add_argument("--onnx", type=Path, help="nomic-embed-text-v1.5 fp32 ONNX")
    parser.add_argument("--int8-onnx", type=Path, help="an int8 ONNX of the same model")
    parser.add_argument("--tokenizer", type=Path, help="tokenizer.json for the ONNX files")
    parser.add_argument("--dims", default="384,256", help="matryoshka sizes to try")
    parser.add_argument("--quality-runtime", choices=("llamacpp", "onnx"), default="llamacpp")
    parser.add_argument("--speed-texts", type=int, default=96)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--no-quality", action="store_true")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/embedder-compare"))
    args = parser.parse_args(argv)
    args.dims = [int(d) for d in args.dims.split(",") if d.strip()]
    for path in (args.gguf, args.onnx, args.int8_onnx, args.tokenizer):
        if path is not None and not path.is_file():
            parser.error(f"no such file: {path} (this bench never downloads)")
    if args.quality_runtime == "onnx" and not (args.onnx and args.tokenizer):
        parser.error("--quality-runtime onnx needs --onnx and --tokenizer")
    modes = ("keyword", "vector", "hybrid")
    args.workdir.mkdir(parents=True, exist_ok=True)
    texts_file = args.workdir / "sample.json"
    if not args.no_quality:
        chunk_texts = asyncio.run(_quality_runs(args, modes))
        step = max(1, len(chunk_texts) // args.speed_texts)
        queries = [
            q["query"]
            for q in json.loads((REPO / "tests/eval/queries.json").read_text())["queries"]
        ]
        sample = {"chunks": chunk_texts[::step][: args.speed_texts], "queries": queries[::4]}
        texts_file.write_text(json.dumps(sample))
    if not args.no_speed:
        if not texts_file.exists():
            parser.error(f"no chunk sample at {texts_file}: run once without --no-quality")
        models: dict[str, tuple[str, str]] = {"minilm": ("", ""), "llamacpp": (str(args.gguf), "")}
        if args.onnx and args.tokenizer:
            models["onnx-fp32"] = (str(args.onnx), str(args.tokenizer))
        if args.int8_onnx and args.tokenizer:
            models["onnx-int8"] = (str(args.int8_onnx), str(args.tokenizer))
        threads = [int(n) for n in args.threads.split(",")]
        print(speed(models, texts_file, threads))
        print(
            agreement(
                texts_file, list(models), "onnx-fp32" if "onnx-fp32" in models else "llamacpp"
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
