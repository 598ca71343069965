"""Runs the brief evaluation: tests/eval/brief_questions.json over real corpus transcripts.

For each question, imports its videos (read in place from ../shared/corpus) into a fresh
library, builds a brief (extractive, or with a chat model), and scores it against the key
points a good brief must cover, each supported by ranges someone checked by reading the
transcript:

* **key-point coverage**: the share of key points the brief cites, a point counting as
  cited when one of the brief's citations overlaps one of its support ranges (same video,
  within `SLACK` seconds);
* **citation precision**: the share of the brief's citations that land on some key point's
  support range (a citation elsewhere may still be relevant, so this is a lower bound);
* **verified**: the share of shown citations whose quote verifies against the transcript
  again, from scratch (it must be 1.0: no unverified quote is ever shown as cited).

    .venv/bin/python tests/eval/run_brief_eval.py [--model ID] [--questions a,b] [--json F]

Without `--model` the briefs are extractive (no chat model). Importable:
`run(model=None, questions=None) -> dict`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.eval` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.eval.check_queries import default_corpus

QUESTIONS = Path(__file__).with_name("brief_questions.json")
SLACK = 5.0


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8"))["questions"])


def _overlaps(start: float, end: float, support: dict[str, Any]) -> bool:
    return start <= float(support["end"]) + SLACK and end >= float(support["start"]) - SLACK


def score(question: dict[str, Any], citations: list[tuple[str, float, float]]) -> dict[str, Any]:
    """Coverage and precision of `citations` (corpus path, start, end) for one question."""
    covered = [
        point["id"]
        for point in question["key_points"]
        if any(
            path == s["path"] and _overlaps(start, end, s)
            for s in point["support"]
            for path, start, end in citations
        )
    ]
    supports = [s for point in question["key_points"] for s in point["support"]]
    on_point = sum(
        1
        for path, start, end in citations
        if any(path == s["path"] and _overlaps(start, end, s) for s in supports)
    )
    return {
        "key_points": len(question["key_points"]),
        "covered": covered,
        "coverage": len(covered) / len(question["key_points"]),
        "citations": len(citations),
        "precision": on_point / len(citations) if citations else 0.0,
    }


async def _one(question: dict[str, Any], corpus: Path, model: str | None, tmp: Path) -> Any:
    from v2c_desktop.core.api import CoreAPI
    from v2c_desktop.core.briefs.events import BriefDone, BriefRequest, BriefStep
    from v2c_desktop.core.briefs.verify import TranscriptIndex, verify_quote
    from v2c_desktop.core.services import Services
    from v2c_desktop.core.settings import Settings

    services = await asyncio.to_thread(
        Services.open, tmp / f"{question['id']}.duckdb", settings=Settings()
    )
    api = CoreAPI(services)
    try:
        path_of: dict[str, str] = {}
        for relative in question["videos"]:
            result = await api.add([str(corpus / relative)])
            (outcome,) = result.outcomes
            if outcome.video_id is None:
                raise RuntimeError(f"{relative} did not import: {outcome.reason}")
            path_of[outcome.video_id] = relative
        await api.index_pending()
        started = time.perf_counter()
        first_progress: float | None = None  # the acknowledgement, sent before any work
        first_work: float | None = None  # the videos read (the first event after work)
        brief = None
        async for event in api.build_brief(
            BriefRequest(
                question["question"],
                video_ids=tuple(path_of),
                model=model,
                strict=model is not None,
                extractive=model is None,
            )
        ):
            if isinstance(event, BriefStep):
                now = time.perf_counter() - started
                first_progress = now if first_progress is None else first_progress
                if first_work is None and event.stage == "scope" and event.done > 0:
                    first_work = now
            elif isinstance(event, BriefDone):
                brief = event.brief
        assert brief is not None
        elapsed = time.perf_counter() - started
        shown = [c for p in brief.points for c in [*p.support, *p.oppose]]
        shown += [c for cs in brief.data_citations.values() for c in cs]
        indexes = {
            vid: TranscriptIndex((await api.get_video(vid)).transcript.segments) for vid in path_of
        }
        verified = sum(1 for c in shown if verify_quote(indexes[c.video_id], c.quote, c.start).ok)
        out = score(question, [(path_of[c.video_id], c.start, c.end) for c in shown])
        out.update(
            id=question["id"],
            verified=verified / len(shown) if shown else 1.0,
            status=brief.status,
            pass_kind=brief.pass_kind,
            seconds=elapsed,
            first_progress_s=first_progress,
            first_work_s=first_work,
            timings={t.stage: t.ms for t in brief.timings},
            unverified=len(brief.unverified),
        )
        return out
    finally:
        await api.aclose()


async def _run(model: str | None, ids: set[str] | None, corpus: Path) -> dict[str, Any]:
    questions = [q for q in load_questions() if ids is None or q["id"] in ids]
    with tempfile.TemporaryDirectory(prefix="v2c-brief-eval-") as tmp:
        results = [await _one(q, corpus, model, Path(tmp)) for q in questions]
    n = len(results)
    return {
        "model": model or "extractive",
        "questions": results,
        "overall": {
            "coverage": sum(r["coverage"] for r in results) / n,
            "precision": sum(r["precision"] for r in results) / n,
            "verified": sum(r["verified"] for r in results) / n,
            "citations": sum(r["citations"] for r in results),
        },
    }


def run(model: str | None = None, questions: set[str] | None = None) -> dict[str, Any]:
    corpus = default_corpus()
    if not (corpus / "transcripts" / "INDEX.json").exists():
        raise FileNotFoundError(f"../shared/corpus is not at {corpus}")
    return asyncio.run(_run(model, questions, corpus))


def format_table(report: dict[str, Any]) -> str:
    lines = [
        f"brief evaluation: {report['model']}",
        "| Question | Key points | Covered | Coverage | Citations | Precision | Verified | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["questions"]:
        lines.append(
            f"| {r['id']} | {r['key_points']} | {len(r['covered'])} | {r['coverage']:.2f} | "
            f"{r['citations']} | {r['precision']:.2f} | {r['verified']:.2f} | "
            f"{r['seconds']:.1f} |"
        )
    o = report["overall"]
    lines.append(
        f"| all | | | {o['coverage']:.2f} | {o['citations']} | {o['precision']:.2f} | "
        f"{o['verified']:.2f} | |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="chat model id (default: extractive briefs)")
    parser.add_argument("--questions", help="comma-separated question ids")
    parser.add_argument("--json", type=Path, help="also write the full report here")
    args = parser.parse_args(argv)
    ids = set(args.questions.split(",")) if args.questions else None
    report = run(args.model, ids)
    print(format_table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
