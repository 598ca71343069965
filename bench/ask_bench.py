"""Time to first token of cited answers with the llama.cpp test model, cold and warm.

Real corpus transcripts (3Blue1Brown) answered by SmolLM2-135M through the whole ask
pipeline (retrieval, fenced prompt, grammar, streaming citation checks, narrowing), for 1
and 5 videos:

- cold: the first question of a new chat (the model loaded, nothing of this scope cached;
  the system rules every answer shares were saved by the warm-up question, as they are
  after a user's first question: that very first one reads ~200 tokens more);
- follow-up: a second question in the same chat (the chat's source block is kept in the
  llama.cpp context, so only the new tokens are evaluated);
- restart: a new CoreAPI on the same library (a new process would do the same), then a
  follow-up in the saved chat: the source block's state comes back from the disk cache.

Prefill speed is the prompt tokens evaluated over the time to first token, and the 3B figure
scales it by the parameter ratio (prefill is compute-bound: ~linear in parameters).
Run: .venv/bin/python bench/ask_bench.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.api import CoreAPI  # noqa: E402
from v2c_desktop.core.ask.events import (  # noqa: E402
    AskDelta,
    AskDone,
    AskError,
    AskMeta,
    AskRequest,
)
from v2c_desktop.core.services import Services  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts" / "3blue1brown"
MODEL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
PARAMS_TEST, PARAMS_3B = 135e6, 3.0e9
VIDEOS = [
    "2017_neural-networks",
    "2017_gradient-descent",
    "2017_backpropagation",
    "2017_backpropagation-calculus",
    "2024_gpt",
]
FIRST = "How does a neural network learn from its mistakes?"
FOLLOW = "And what does the cost function measure?"


@dataclass
class Figures:
    meta_s: float
    first_s: float
    total_s: float
    prompt: int
    evaluated: int
    cites: int
    cut: str | None
    chat_id: str

    def line(self, label: str) -> str:
        speed = self.evaluated / self.first_s if self.first_s else 0.0
        return (
            f"{label:<22} meta {self.meta_s:5.2f} s  first token {self.first_s:5.2f} s  "
            f"total {self.total_s:5.2f} s  prompt {self.prompt:5d} tok, evaluated "
            f"{self.evaluated:5d} ({speed:4.0f} tok/s incl. overhead)  {self.cites} cites"
            f"  cut={self.cut}"
        )


async def one(api: CoreAPI, videos: list[str], question: str, chat_id: str | None) -> Figures:
    started = time.perf_counter()
    meta: float | None = None
    first: float | None = None
    async for event in api.ask(
        AskRequest(question, video_ids=tuple(videos), model=MODEL, max_tokens=128, chat_id=chat_id)
    ):
        now = time.perf_counter() - started
        if isinstance(event, AskMeta) and meta is None:
            meta = now
        if isinstance(event, AskDelta) and first is None:
            first = now
        if isinstance(event, AskError):
            raise SystemExit(f"ask failed: {event.message}")
        if isinstance(event, AskDone):
            usage = event.usage
            prompt = int(usage.get("prompt_tokens") or 0)
            return Figures(
                meta or now,
                first or now,
                now,
                prompt,
                prompt - int(usage.get("cached_tokens") or 0),
                len(event.citations),
                getattr(event, "cut", None),
                event.chat_id,
            )
    raise SystemExit("no answer")


async def main() -> None:
    if not CORPUS.exists():
        raise SystemExit("../shared/corpus is not beside this checkout")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("V2C_HOME", str(Path(tmp) / "home"))  # an empty disk cache
        library = Path(tmp) / "bench.duckdb"
        api = CoreAPI(Services.open(library))
        chats: dict[str, str] = {}
        speeds: list[float] = []
        try:
            result = await api.add([str(CORPUS / v / "captions.en.srt") for v in VIDEOS])
            ids = [o.video_id for o in result.outcomes if o.video_id]
            # load the model and save the shared rules once, outside the figures
            await one(api, ids[1:2], "What is a gradient?", None)
            for label, videos in (("1 video", ids[:1]), ("5 videos", ids)):
                cold = await one(api, videos, FIRST, None)
                print(cold.line(f"{label} cold"))
                follow = await one(api, videos, FOLLOW, cold.chat_id)
                print(follow.line(f"{label} follow-up"))
                chats[label] = follow.chat_id
                speeds.append(cold.evaluated / cold.first_s)
        finally:
            await api.aclose()
        api = CoreAPI(Services.open(library))
        try:
            await one(api, ids[1:2], "What is a gradient?", None)
            for label, videos in (("1 video", ids[:1]), ("5 videos", ids)):
                again = await one(api, videos, "Why is it called gradient descent?", chats[label])
                print(again.line(f"{label} after restart"))
        finally:
            await api.aclose()
    speed = min(speeds)
    print(
        f"prefill ~{speed:.0f} tokens/s with SmolLM2-135M; a 3B model at the same settings "
        f"~{speed * PARAMS_TEST / PARAMS_3B:.1f} tokens/s (parameter ratio)"
    )


if __name__ == "__main__":
    asyncio.run(main())
