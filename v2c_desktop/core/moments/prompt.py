"""The one call that asks a model for a video's key moments: transcript, schema, budget.

The transcript is untrusted text (anyone can upload a video that says "ignore previous
instructions"): it goes in one block fenced with a random boundary (`models.fence`), its
words neutralised, after the instructions, and the system prompt says never to follow what
is inside. It is shown as `[m:ss] words` lines of about 10 s (`briefs.sources.lines_of`),
each starting at a real segment, cut to the first model's budget: a transcript too long
for it is sampled evenly across the whole video (runs of lines from every part of it, the
gaps marked), never just its beginning.

For llama.cpp, which enforces the JSON Schema as a grammar, `start` is an `enum` of the
times shown, so the model can only name a line that exists; other runtimes get a plain
string.
Either way every time is verified afterwards (`verify.py`): the grammar is a help, never a
reason to trust.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ask.checked_stream import LOCAL_REPEAT_PENALTY
from ..briefs.sources import Line, lines_of
from ..domain.videos import Segment
from ..models.fence import fence, neutral
from ..models.types import ChatMessage, ChatModel, ChatOptions
from ..render.tokens import estimate_tokens
from ..timecode import clock
from .verify import MIN_GAP_S, TITLE_CHARS, WHY_CHARS

#: Bumped whenever the prompt or the schema changes: cached moments of older versions are
#: not reused (the cache key holds it).
PROMPT_VERSION = "moments-1"
MAX_SOURCE_TOKENS = 16_000
#: A CPU reads prompts at about 100-200 tokens a second: a local model reads a sample.
LOCAL_SOURCE_TOKENS = 3_000
PROMPT_TOKENS = 400
GAP_LINE = "(… part of the transcript left out here …)"


def answer_tokens(count: int) -> int:
    """Room for `count` moments of JSON, a title and a sentence each (about 230 characters
    at most under the grammar: a cut answer is no JSON at all)."""
    return 80 + 90 * count


def source_budget(model: ChatModel, count: int) -> int:
    """Tokens of transcript the call may carry for `model` (the chain's first)."""
    window = model.info.context_window
    budget = int(0.75 * window) - answer_tokens(count) - PROMPT_TOKENS
    cap = LOCAL_SOURCE_TOKENS if model.info.runtime == "llamacpp" else MAX_SOURCE_TOKENS
    return max(500, min(cap, budget))


def _cost(line: Line) -> int:
    return estimate_tokens(line.render()) + 1


def sampled_lines(
    segments: Sequence[Segment], budget: int, pieces: int = 16
) -> tuple[list[Line | None], bool]:
    """The transcript's lines within `budget` tokens, and whether it was sampled.

    When everything does not fit, the lines are split into `pieces` equal runs and each
    run gives its first lines up to its share of the budget, so every part of the video is
    seen; `None` stands where lines were left out.
    """
    lines = lines_of(segments)
    if sum(_cost(line) for line in lines) <= budget:
        return list(lines), False
    pieces = max(1, min(pieces, len(lines)))
    gap_cost = estimate_tokens(GAP_LINE) + 1
    share = max(1, budget // pieces - gap_cost)
    out: list[Line | None] = []
    for k in range(pieces):
        block = lines[k * len(lines) // pieces : (k + 1) * len(lines) // pieces]
        used = 0
        taken = 0
        for line in block:
            if taken and used + _cost(line) > share:
                break
            out.append(line)
            used += _cost(line)
            taken += 1
        if taken < len(block):
            out.append(None)
    return out, True


def shown_times(lines: Sequence[Line | None]) -> list[str]:
    """The `m:ss` of every line shown, once each, in order (the grammar's choices)."""
    return list(dict.fromkeys(clock(line.start) for line in lines if line is not None))


def moments_schema(count: int, times: Sequence[str] | None) -> dict[str, Any]:
    """`{moments: [{start, title, why}]}`.

    With `times` (a model writing under a grammar), `start` must be one of them and the
    texts are bounded, so even a small model cannot ramble; without, the schema stays loose
    (a server that missed a bound would fail its validation instead of having the extra
    dropped): `verify.py` checks and
    cuts every field either way.
    """
    start: dict[str, Any] = {"type": "string"}
    title: dict[str, Any] = {"type": "string"}
    why: dict[str, Any] = {"type": "string"}
    moments: dict[str, Any] = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"start": start, "title": title, "why": why},
            "required": ["start", "title", "why"],
        },
    }
    if times:
        start["enum"] = list(times)
        title["maxLength"] = TITLE_CHARS
        why["maxLength"] = WHY_CHARS
        moments.update(minItems=1, maxItems=count)
    return {"type": "object", "properties": {"moments": moments}, "required": ["moments"]}


def moments_messages(
    title: str, lines: Sequence[Line | None], count: int, sampled: bool
) -> list[ChatMessage]:
    """System rules with the fence's instruction, then the task and the fenced transcript."""
    body = "\n".join(
        GAP_LINE if line is None else f"[{clock(line.start)}] {neutral(line.text)}"
        for line in lines
    )
    # `structured`: the `[m:ss]` brackets are ours; the words between them are neutralised
    block = fence([(title, body)], structured=True)
    sample = (
        " The transcript is long, so you see evenly spaced parts of it; pick moments from "
        "the whole video."
        if sampled
        else ""
    )
    system = "\n".join(
        [
            "You find the key moments of one video from its transcript: the points where a "
            "new topic, a key idea, an important example or a conclusion begins.",
            block.instruction(),
            "Each transcript line starts with its time in square brackets.",
            "Answer with JSON only.",
        ]
    )
    task = (
        f"Choose up to {count} key moments of this video, in time order and at least "
        f"{MIN_GAP_S:.0f} seconds apart.{sample} For each moment give `start`: the time of "
        "the transcript line where it begins, exactly as written in its brackets (m:ss); "
        "`title`: a short plain-text title of at most 8 words; `why`: one plain sentence "
        "saying why the moment matters. Times that are not the start of a line are thrown "
        "away."
    )
    return [ChatMessage("system", system), ChatMessage("user", f"{task}\n\n{block.text}")]


def moments_options(model: ChatModel, count: int) -> ChatOptions:
    """Low temperature; a mild repeat penalty for local models (small ones loop)."""
    penalty = LOCAL_REPEAT_PENALTY if model.info.runtime == "llamacpp" else 1.0
    return ChatOptions(
        max_tokens=answer_tokens(count), temperature=0.1, seed=7, repeat_penalty=penalty
    )
