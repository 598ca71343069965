"""Time to first token and total time of a cited answer with the llama.cpp test model.

A 1-video and a 5-video question over real corpus transcripts (3Blue1Brown), answered by
SmolLM2-135M through the whole ask pipeline (retrieval, fenced prompt, grammar, streaming
citation checks, narrowing). Run: .venv/bin/python bench/ask_bench.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.api import CoreAPI  # noqa: E402
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskError, AskRequest  # noqa: E402
from v2c_desktop.core.services import Services  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts" / "3blue1brown"
MODEL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
VIDEOS = [
    "2017_neural-networks",
    "2017_gradient-descent",
    "2017_backpropagation",
    "2017_backpropagation-calculus",
    "2024_gpt",
]


async def one(api: CoreAPI, videos: list[str], question: str) -> tuple[float, float, int, int]:
    started = time.perf_counter()
    first: float | None = None
    async for event in api.ask(
        AskRequest(question, video_ids=tuple(videos), model=MODEL, max_tokens=128)
    ):
        if isinstance(event, AskDelta) and first is None:
            first = time.perf_counter() - started
        if isinstance(event, AskError):
            raise SystemExit(f"ask failed: {event.message}")
        if isinstance(event, AskDone):
            total = time.perf_counter() - started
            return first or total, total, len(event.citations), len(event.text)
    raise SystemExit("no answer")


async def main() -> None:
    if not CORPUS.exists():
        raise SystemExit("../shared/corpus is not beside this checkout")
    with tempfile.TemporaryDirectory() as tmp:
        api = CoreAPI(Services.open(Path(tmp) / "bench.duckdb"))
        try:
            await api.add([str(CORPUS / v / "captions.en.srt") for v in VIDEOS])
            await one(api, VIDEOS[:1], "warm up")  # load the model once, outside the figures
            for label, videos in (("1 video", VIDEOS[:1]), ("5 videos", VIDEOS)):
                ttft, total, cites, chars = await one(
                    api, videos, "How does a neural network learn from its mistakes?"
                )
                print(
                    f"{label}: first token {ttft:.2f} s, total {total:.2f} s, "
                    f"{cites} citations, {chars} characters (SmolLM2-135M, 128 tokens max)"
                )
        finally:
            await api.aclose()


if __name__ == "__main__":
    asyncio.run(main())
