"""Per-stage timings of a brief over a 6-video collection, and the time to its first progress.

Six real 3Blue1Brown transcripts in one collection; one extractive brief (no model) and one
written by SmolLM2-135M under llama.cpp's grammar (map each video, verify, reduce). Prints
every progress step with its time, the brief's own per-stage timings, and three times to
progress (the target is under 1 s: a person sees the job start at once):

* first event: the acknowledgement a build sends before it does anything (so it only
  shows nothing blocks the stream from starting);
* scope read: the first event that reflects work, the videos read, indexed and merged;
* first stage step: the first step of the stage that does the brief's work (`map` or
  `write` with a model, `extract` without) that reports something done, e.g. `map 1/12`.

    .venv/bin/python bench/brief_bench.py [--skip-model] [--videos N]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.api import CoreAPI  # noqa: E402
from v2c_desktop.core.briefs.events import BriefDone, BriefRequest, BriefStep  # noqa: E402
from v2c_desktop.core.services import Services  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts" / "3blue1brown"
MODEL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
VIDEOS = [
    "2017_neural-networks",
    "2017_gradient-descent",
    "2017_backpropagation",
    "2017_backpropagation-calculus",
    "2024_gpt",
    "2024_attention",
]
QUESTION = "How do neural networks learn, and what changes in transformers?"


WORK_STAGES = ("map", "write", "extract")


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds is not None else "never"


async def one(api: CoreAPI, label: str, request: BriefRequest) -> None:
    started = time.perf_counter()
    first: float | None = None  # any event
    scoped: float | None = None  # the videos read
    working: float | None = None  # the first step of the work stage with something done
    print(f"\n{label}")
    async for event in api.build_brief(request):
        now = time.perf_counter() - started
        if isinstance(event, BriefStep):
            first = now if first is None else first
            if scoped is None and event.stage == "scope" and event.done > 0:
                scoped = now
            if working is None and event.stage in WORK_STAGES and event.done > 0:
                working = now
            total = f"/{event.total}" if event.total is not None else ""
            print(f"  {now:7.2f} s  {event.stage} {event.done}{total} {event.message}")
        elif isinstance(event, BriefDone):
            brief = event.brief
            cited = sum(len(p.support) + len(p.oppose) for p in brief.points)
            print(f"  first event (acknowledgement): {_ms(first)}")
            print(f"  first work progress (scope read): {_ms(scoped)}")
            print(f"  first stage step done (map/write/extract): {_ms(working)}")
            print(f"  total: {now:.1f} s; {brief.pass_kind}; status {brief.status}")
            print(
                f"  {len(brief.points)} points, {cited} verified citations, "
                f"{len(brief.unverified)} claims left out"
            )
            for t in brief.timings:
                model = f" ({t.model})" if t.model else ""
                print(f"    {t.stage:9} {t.ms / 1000:8.2f} s{model}")


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-model", action="store_true", help="only the extractive brief")
    parser.add_argument("--videos", type=int, default=len(VIDEOS))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="v2c-brief-bench-") as tmp:
        api = CoreAPI(await asyncio.to_thread(Services.open, Path(tmp) / "bench.duckdb"))
        try:
            paths = [str(CORPUS / v / "captions.en.srt") for v in VIDEOS[: args.videos]]
            started = time.perf_counter()
            await api.add(paths, collection="Networks")
            await api.index_pending()
            print(
                f"imported and indexed {len(paths)} videos in {time.perf_counter() - started:.1f} s"
            )
            await one(
                api,
                "extractive brief",
                BriefRequest(QUESTION, collection="Networks", extractive=True),
            )
            if not args.skip_model:
                await one(
                    api,
                    f"brief by {MODEL}",
                    BriefRequest(QUESTION, collection="Networks", model=MODEL, strict=True),
                )
        finally:
            await api.aclose()


if __name__ == "__main__":
    asyncio.run(main())
