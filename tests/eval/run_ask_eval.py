"""Runs the ask evaluation: extractive answers to tests/eval/ask_questions.json.

Imports every transcript the questions use (read in place from ../shared/corpus) into one
fresh library, indexes it with the local ONNX embedder, asks each question over its own
videos with `extractive=True` (no chat model: what a fresh install answers with), and
scores the citations of each answer against the question's support ranges, read out of the
transcripts. A citation is *near* support when it is of the same video and overlaps the
range widened by `SLACK` seconds on each side:

* **answered**: the share of questions with at least one citation near support;
* **first near**: the share of questions whose first citation (the answer's lead) is near;
* **citations near**: of all citations of all answers, the share near support (pooled);
* **verified**: the share of citations whose quote verifies (must be 1.0).

    .venv/bin/python tests/eval/run_ask_eval.py [--questions a,b] [--json F] [--show]
        [--model llamacpp/SmolLM2-135M-Instruct.Q4_1 [--source-tokens 300,600,1200]]

With `--model` the answers are the model's (its `[n]` citations, checked and narrowed as
the app shows them), once per source cap in `--source-tokens` (none: the default budget),
and each answer's prompt tokens and time to first token are kept: how small the sources
may be before support drops, and what each size costs in waiting.

Importable: `run(questions=None) -> dict`. Raises `EvalUnavailable` only when the corpus
is missing; a broken embedder is an error (the gate must fail, not skip, then).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.eval` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.eval.check_ask_questions import load_questions
from tests.eval.check_queries import default_corpus
from tests.eval.run_eval import EvalUnavailable, default_embedder

SLACK = 15.0
EMBEDDER = "onnx/all-minilm-l6-v2-int8w7"


def near(start: float, end: float, support: dict[str, Any], slack: float = SLACK) -> bool:
    """The time range [start, end] overlaps the support range widened by `slack` seconds."""
    return start <= float(support["end"]) + slack and end >= float(support["start"]) - slack


def score(
    question: dict[str, Any], citations: Sequence[tuple[str, float, float]]
) -> dict[str, Any]:
    """How one answer's citations (corpus path, start, end), in order, land on support."""
    hits = [
        any(path == s["path"] and near(start, end, s) for s in question["support"])
        for path, start, end in citations
    ]
    return {
        "citations": len(hits),
        "near": sum(hits),
        "answered": any(hits),
        "first_near": bool(hits and hits[0]),
    }


async def _run(
    ids: set[str] | None,
    corpus: Path,
    model: str | None = None,
    caps: Sequence[int | str | None] = (None,),
    max_tokens: int = 768,
) -> list[dict[str, Any]]:
    from v2c_desktop.core.api import CoreAPI
    from v2c_desktop.core.ask import service as ask_service
    from v2c_desktop.core.ask.events import AskDelta, AskDone, AskError, AskRequest
    from v2c_desktop.core.search.request import SearchRequest
    from v2c_desktop.core.services import Services
    from v2c_desktop.core.settings import Settings

    questions = [q for q in load_questions() if ids is None or q["id"] in ids]
    paths = sorted({v for q in questions for v in q["videos"]})
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="v2c-ask-eval-") as tmp:
        embedder = default_embedder()
        services = await asyncio.to_thread(
            Services.open, Path(tmp) / "ask.duckdb", settings=Settings(), embedder=embedder
        )
        api = CoreAPI(services)
        try:
            started = time.perf_counter()
            video_of: dict[str, str] = {}
            for relative in paths:
                result = await api.add([str(corpus / relative)])
                (outcome,) = result.outcomes
                if outcome.video_id is None:
                    raise RuntimeError(f"{relative} did not import: {outcome.reason}")
                video_of[relative] = outcome.video_id
            await api.index_pending()
            timings["import_index_s"] = time.perf_counter() - started
            probe = await services.engine.search(
                SearchRequest(query=questions[0]["question"], mode="hybrid", limit=1)
            )
            vector = probe.meta.get("vector", {})
            path_of = {vid: path for path, vid in video_of.items()}
            reports: list[dict[str, Any]] = []
            focus_pool = ask_service.FOCUS_POOL
            for spec in caps:
                # "p2500": whole search passages, as local models read them before `focus`
                passages = isinstance(spec, str) and spec.startswith("p")
                cap = int(spec[1:]) if isinstance(spec, str) else spec
                ask_service.FOCUS_POOL = 0 if passages else focus_pool
                results: list[dict[str, Any]] = []
                started = time.perf_counter()
                for q in questions:
                    request = AskRequest(
                        q["question"],
                        video_ids=tuple(video_of[v] for v in q["videos"]),
                        extractive=model is None,
                        model=model,
                        strict=model is not None,
                        source_tokens=cap,
                        max_tokens=max_tokens,
                    )
                    done: AskDone | None = None
                    asked = time.perf_counter()
                    first: float | None = None
                    async for event in api.ask(request):
                        if isinstance(event, AskError):
                            raise RuntimeError(f"{q['id']}: {event.code}: {event.message}")
                        if isinstance(event, AskDelta) and first is None:
                            first = time.perf_counter() - asked
                        if isinstance(event, AskDone):
                            done = event
                    assert done is not None
                    cited = [(path_of[c.video_id], c.start, c.end) for c in done.citations]
                    row = score(q, cited)
                    found = await services.engine.search(
                        SearchRequest(
                            q["question"], mode="hybrid", limit=5, video_ids=request.video_ids
                        )
                    )
                    hits = [(path_of[h.video_id], h.start, h.end) for h in found.hits]
                    row["search_hit_at_5"] = score(q, hits)["answered"]
                    row.update(
                        id=q["id"],
                        videos=len(q["videos"]),
                        verified=sum(c.verified for c in done.citations),
                        cited=[[Path(p).name[:40], round(a, 1), round(b, 1)] for p, a, b in cited],
                        text=done.text,
                        prompt_tokens=int(done.usage.get("prompt_tokens") or 0),
                        first_token_s=first,
                    )
                    results.append(row)
                timings["ask_s"] = time.perf_counter() - started
                report = summarise(results, vector, embedder.info.id, dict(timings))
                report.update(model=model, source_tokens=spec)
                reports.append(report)
        finally:
            ask_service.FOCUS_POOL = focus_pool
            await api.aclose()
    return reports


def summarise(
    results: list[dict[str, Any]],
    vector: dict[str, Any],
    embedder: str,
    timings: dict[str, float],
) -> dict[str, Any]:
    n = len(results)
    citations = sum(r["citations"] for r in results)
    return {
        "questions": n,
        "embedder": embedder,
        "vector": vector,
        "timings": timings,
        "overall": {
            "answered": sum(r["answered"] for r in results) / n if n else 0.0,
            "first_near": sum(r["first_near"] for r in results) / n if n else 0.0,
            "citations_near": sum(r["near"] for r in results) / citations if citations else 0.0,
            "verified": sum(r["verified"] for r in results) / citations if citations else 1.0,
            "search_hit_at_5": sum(r["search_hit_at_5"] for r in results) / n if n else 0.0,
            "citations": citations,
        },
        "per_question": results,
    }


def _median(values: Sequence[float]) -> float | None:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else None


def run(questions: set[str] | None = None, *, corpus: Path | None = None) -> dict[str, Any]:
    """Ask every question (or those in `questions`) extractively and score the answers.

    Raises EvalUnavailable when the corpus is missing; any other failure propagates.
    """
    (report,) = run_reports(questions, corpus=corpus)
    return report


def run_reports(
    questions: set[str] | None = None,
    *,
    corpus: Path | None = None,
    model: str | None = None,
    caps: Sequence[int | str | None] = (None,),
    max_tokens: int = 768,
) -> list[dict[str, Any]]:
    """One report per source cap (`"p2500"`: whole passages, as before excerpts): the
    answers of `model` (extractive when None)."""
    corpus = corpus or default_corpus()
    if not (corpus / "transcripts" / "INDEX.json").exists():
        raise EvalUnavailable(f"../shared/corpus is not at {corpus}")
    return asyncio.run(_run(questions, corpus, model, caps, max_tokens))


def format_table(report: dict[str, Any]) -> str:
    lines = [
        "| Question | Videos | Citations | Near | Answered | First near | Search top 5 |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report["per_question"]:
        lines.append(
            f"| {r['id']} | {r['videos']} | {r['citations']} | {r['near']} | "
            f"{'yes' if r['answered'] else 'NO'} | {'yes' if r['first_near'] else 'no'} | "
            f"{'yes' if r['search_hit_at_5'] else 'no'} |"
        )
    o = report["overall"]
    if report.get("model"):
        firsts = [r["first_token_s"] for r in report["per_question"] if r["first_token_s"]]
        prompts = [r["prompt_tokens"] for r in report["per_question"]]
        first_median, prompt_median = _median(firsts), _median(prompts)
        cap = report["source_tokens"] or "the default"
        lines.append(
            f"\nmodel {report['model']}, sources capped at {cap}"
            f" tokens: median prompt {prompt_median} tokens, median first token "
            + (f"{first_median:.2f} s" if first_median is not None else "none")
        )
    lines.append(
        f"\n{report['questions']} questions, {o['citations']} citations, embedder "
        f"{report['embedder']}: answered {o['answered']:.3f}, first near {o['first_near']:.3f}, "
        f"citations near {o['citations_near']:.3f}, verified {o['verified']:.3f} "
        f"(hybrid search alone: support in the top 5 for {o['search_hit_at_5']:.3f})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", help="comma-separated question ids")
    parser.add_argument("--json", type=Path, help="also write the full report here")
    parser.add_argument("--show", action="store_true", help="print every answer's text")
    parser.add_argument("--model", help="answer with this chat model instead of extractively")
    parser.add_argument(
        "--source-tokens",
        help="comma-separated source caps, one run each (with --model); p2500: whole passages",
    )
    parser.add_argument("--max-tokens", type=int, default=768, help="answer length limit")
    args = parser.parse_args(argv)
    ids = set(args.questions.split(",")) if args.questions else None
    caps: list[int | str | None] = [None]
    if args.source_tokens:
        caps = [c if c.startswith("p") else int(c) for c in args.source_tokens.split(",")]
    try:
        reports = run_reports(ids, model=args.model, caps=caps, max_tokens=args.max_tokens)
    except EvalUnavailable as exc:
        print(f"cannot run the evaluation: {exc}", file=sys.stderr)
        return 2
    for report in reports:
        if args.show:
            for r in report["per_question"]:
                print(f"== {r['id']} {r['cited']}\n{r['text']}\n")
        print(format_table(report))
        print("timings: " + ", ".join(f"{k} {v:.1f}" for k, v in report["timings"].items()))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
