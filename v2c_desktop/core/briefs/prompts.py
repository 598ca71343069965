"""The messages a brief is made from: read (map), organise (reduce), or both in one call.

Transcripts and titles are untrusted: every source sits in one block fenced with a random
boundary (`models.fence`), after the instructions, and the system prompt says never to
follow what is inside. Sources are numbered; a quote must be copied word for word, because
code checks it against the transcript before it may appear (`verify.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models.fence import fence
from ..models.types import ChatMessage
from .grounding import LINE_RULE, LineKeys
from .sources import BriefSource, Chunk

#: Bumped whenever the map prompt or schema changes: cached maps of older versions are
#: not reused (the cache key holds it).
MAP_PROMPT_VERSION = "map-2"
#: The same for maps whose evidence names lines (`grounding.py`).
MAP_LINES_PROMPT_VERSION = "map-lines-2"
MAX_CLAIMS = 10
#: A claim's optional stance on what the question asks (the spec's `stance?`): the reduce
#: step sees it beside the claim, to find the two sides of a disagreement. Only a hint to
#: the model: whether a point is a disagreement is still decided in code, from the claims
#: it cites on each side.
STANCES = ("for", "against", "neutral")
STANCE_SCHEMA: dict[str, Any] = {"type": "string", "enum": list(STANCES)}

QUOTE_RULE = (
    "Every quote must be copied word for word from one line of the transcript, at least six "
    "words long, with that line's time as `time` (m:ss) and its source number as `source`: "
    "quotes are checked against the transcripts, and any that is not found is thrown away."
)


def inline_sources_schema(max_items: int = 4, keys: LineKeys | None = None) -> dict[str, Any]:
    """Evidence quoted from the transcript: the single-pass form (by line with `keys`)."""
    if keys is not None:
        return {
            "type": "array",
            "maxItems": max_items,
            "items": {
                "type": "object",
                "properties": {"line": keys.schema()},
                "required": ["line"],
            },
        }
    return {
        "type": "array",
        "maxItems": max_items,
        "items": {
            "type": "object",
            "properties": {
                "source": {"type": "integer"},
                "time": {"type": "string", "maxLength": 10},
                "quote": {"type": "string", "maxLength": 400},
            },
            "required": ["source", "time", "quote"],
        },
    }


def claim_refs_schema(max_items: int = 6) -> dict[str, Any]:
    """Evidence named by verified claim number: the form after a map step."""
    return {"type": "array", "maxItems": max_items, "items": {"type": "integer"}}


MAP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "maxItems": MAX_CLAIMS,
            "items": {
                "type": "object",
                "properties": {
                    "claim": {"type": "string", "maxLength": 300},
                    "quote": {"type": "string", "maxLength": 400},
                    "source": {"type": "integer"},
                    "time": {"type": "string", "maxLength": 10},
                    "topic": {"type": "string", "maxLength": 60},
                    "stance": STANCE_SCHEMA,
                },
                "required": ["claim", "quote", "source", "time", "topic"],
            },
        }
    },
    "required": ["claims"],
}


def map_schema(keys: LineKeys | None = None) -> dict[str, Any]:
    """`MAP_SCHEMA`, or with `keys` its form that names lines instead of quoting them."""
    if keys is None:
        return MAP_SCHEMA
    return {
        "type": "object",
        "properties": {
            "claims": {
                "type": "array",
                "maxItems": MAX_CLAIMS,
                "items": {
                    "type": "object",
                    "properties": {
                        "claim": {"type": "string", "maxLength": 300},
                        "line": keys.schema(),
                        "topic": {"type": "string", "maxLength": 60},
                        "stance": STANCE_SCHEMA,
                    },
                    "required": ["claim", "line", "topic"],
                },
            }
        },
        "required": ["claims"],
    }


def _system(boundary_rule: str, task: str) -> str:
    return "\n".join(
        [
            "You read video transcripts and report only what they say, in the language of "
            "the question.",
            task,
            boundary_rule,
            "Answer with JSON only.",
        ]
    )


def source_label(source: BriefSource) -> str:
    video = source.record.video
    channel = f" ({video.channel})" if video.channel else ""
    return f"[{source.n}] {source.title}{channel}"


def map_messages(question: str, chunk: Chunk, keys: LineKeys | None = None) -> list[ChatMessage]:
    """Claims from one chunk of one video that bear on the question."""
    text = keys.render(chunk.source) if keys is not None else chunk.text()
    block = fence([(source_label(chunk.source), text)], structured=True)  # `[key]` lines
    rule = LINE_RULE if keys is not None else QUOTE_RULE
    shown = "the line that shows it" if keys is not None else "the quote that shows it"
    task = (
        f"From the transcript excerpt, list up to {MAX_CLAIMS} claims that bear on the "
        "question, each one sentence in your own words (`claim`), with a short `topic` name "
        f"and {shown}; `stance` may say whether the claim speaks for or against what the "
        f"question asks about, or neither. {rule}"
    )
    return [
        ChatMessage("system", _system(block.instruction(), task)),
        ChatMessage("user", f"Question: {question}\n\n{block.text}"),
    ]


def single_messages(
    question: str,
    sources: Sequence[BriefSource],
    instructions: str,
    keys: LineKeys | None = None,
) -> list[ChatMessage]:
    """Everything in one call, when every source fits the model's budget (the runtime adds
    the JSON Schema to the prompt and enforces it)."""
    block = fence(
        [
            (
                source_label(s),
                keys.render(s)
                if keys is not None
                else "\n".join(line.render() for line in s.lines),
            )
            for s in sources
        ],
        structured=True,  # each line starts with its own `[key]` or `[m:ss]`
    )
    task = f"{instructions} {LINE_RULE if keys is not None else QUOTE_RULE}"
    return [
        ChatMessage("system", _system(block.instruction(), task)),
        ChatMessage("user", f"Question: {question}\n\n{block.text}"),
    ]


def reduce_messages(
    question: str,
    claims: Sequence[tuple[int, str, str, str, str | None]],
    instructions: str,
) -> list[ChatMessage]:
    """Organise verified claims (number, video title, topic, claim, stance) into the answer.

    Evidence is named by claim number only: the claims' quotes were already checked.
    """
    items = [
        (f"claim {n} ({title}; topic: {topic}{f'; stance: {stance}' if stance else ''})", text)
        for n, title, topic, text, stance in claims
    ]
    block = fence(items)
    task = (
        f"{instructions} The evidence is the numbered claims below, each already checked "
        "against its video; cite claims only by their numbers. Merge topics that mean the "
        "same thing. A point several videos make cites all of their claims."
    )
    return [
        ChatMessage("system", _system(block.instruction(), task)),
        ChatMessage("user", f"Question: {question}\n\n{block.text}"),
    ]
