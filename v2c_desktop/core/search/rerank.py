"""Optional rerank: the local-model chain scores the top 20 passages 0-10 as JSON.

On any failure the fused order stays and `meta.rerank` says why: a rerank is a refinement,
never a reason for a search to fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import V2CError
from ..models.chain import ChainRun, complete_json
from ..models.fence import fence
from ..models.types import ChatMessage, ChatModel, ChatOptions
from ..timecode import clock
from .request import SearchHit

RERANK_TOP = 20
PASSAGE_CHARS = 700


def scores_schema(count: int) -> dict[str, Any]:
    """The answer for `count` passages: one `{"n", "score"}` per passage, in passage order.

    Every bound is one a local model's grammar enforces (llama.cpp's converter ignores
    integer `minimum`/`maximum`, and cannot say "each n once"): without them SmolLM2
    numbered on past the last passage (`"n": 47`) until `max_tokens` cut the JSON, wrote
    `"n": 10` for 3 passages, or scored one passage twice and another not at all.
    """
    return {
        "type": "object",
        "properties": {
            "scores": {
                "type": "array",
                "prefixItems": [
                    {
                        "type": "object",
                        "properties": {
                            "n": {"type": "integer", "const": n},
                            "score": {"type": "integer", "enum": list(range(11))},
                        },
                        "required": ["n", "score"],
                    }
                    for n in range(1, count + 1)
                ],
                "items": False,
                "minItems": count,
            }
        },
        "required": ["scores"],
    }


async def rerank_hits(
    query: str, hits: list[SearchHit], chain: Sequence[ChatModel]
) -> tuple[list[SearchHit], dict[str, Any]]:
    head, tail = hits[:RERANK_TOP], hits[RERANK_TOP:]
    if not head:
        return hits, {"status": "skipped", "reason": "no hits"}
    if not chain:
        return hits, {"status": "failed", "reason": "no chat model is configured"}
    block = fence(
        [
            (f"[{i}] {h.title} @ {clock(h.start)}", h.text[:PASSAGE_CHARS])
            for i, h in enumerate(head, start=1)
        ]
    )
    messages = [
        ChatMessage(
            "system",
            "You rate how well passages answer a search query. "
            + block.instruction()
            + ' Reply with JSON {"scores": [{"n": passage number, "score": 0-10}]},'
            " one entry per passage, in passage order.",
        ),
        ChatMessage("user", f"Query: {query}\n\n{block.text}"),
    ]
    run = ChainRun(stage="rerank")
    try:
        result = await complete_json(
            chain, messages, scores_schema(len(head)), ChatOptions(max_tokens=600), run
        )
    except V2CError as error:
        return hits, {"status": "failed", "reason": error.message, "attempts": run.attempts_dicts()}
    scores = {
        int(s["n"]): float(s["score"])
        for s in result.get("scores", [])
        if 1 <= int(s["n"]) <= len(head)
    }
    if not scores:
        return hits, {
            "status": "failed",
            "reason": "the model scored no passage",
            "attempts": run.attempts_dicts(),
        }
    for i, hit in enumerate(head, start=1):
        hit.rerank_score = scores.get(i)
    order = sorted(range(len(head)), key=lambda i: (-(head[i].rerank_score or -1.0), i))
    return [head[i] for i in order] + tail, {
        "status": "ok",
        "model": run.served_by,
        "scored": len(scores),
        "attempts": run.attempts_dicts(),
    }
