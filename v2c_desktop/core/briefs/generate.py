"""A brief written by a model: one call when everything fits, else map, verify, reduce.

The budget per call comes from the first model the chain would try: 75% of its context
window, minus the answer and the prompt, capped at `MAX_SOURCE_TOKENS`. When every source
fits, one call returns the answer with its quotes inline; otherwise each video is cut at
line boundaries into chunks that fit, each chunk becomes claims (`map`), every claim's quote
is verified, and one call organises the verified claims, citing them by number (`reduce`).
A chunk's claims are cached by transcript, question, model and prompt version, so a re-run
after adding one video maps only that video. The question is part of the key because the
map prompt asks for the claims that bear on it (at most `prompts.MAX_CLAIMS` a chunk): a
map made for one question is a poor pick of claims for another. A step that fails does not
sink the brief: it is noted, and what was verified so far still makes a (partial) brief.
Checking quotes is pure computation and, over many claims, long: it runs in a worker thread
(nothing else touches the evidence meanwhile), so the event loop the app's window and the
owner's clients share never waits on it.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import V2CError
from ..models.chain import ChainRun, complete_json
from ..models.types import ChatModel, ChatOptions
from . import prompts
from .events import BriefCitation, BriefStep, BriefTopic, StageTiming
from .evidence import (
    Claim,
    Evidence,
    points_from_brief,
    resolve_items,
    single_source_topics,
    uncited_pointers,
)
from .grounding import LineKeys
from .schema_subset import leaf_pointers
from .sources import BriefSource, Chunk, chunks_of
from .templates import Template

MAX_SOURCE_TOKENS = 24_000
ANSWER_TOKENS = 1024
PROMPT_TOKENS = 700
MAP_ANSWER_TOKENS = 900
#: Reduce prompts carry claims, not transcripts: about this many tokens each.
CLAIM_TOKENS = 60

#: (video id, transcript hash, question key, model, prompt version, chunk budget, chunk index)
MapKey = tuple[str, str, str, str, str, int, int]
MapCache = Callable[[MapKey], Awaitable[list[dict[str, Any]] | None]]
MapStore = Callable[[MapKey, list[dict[str, Any]]], Awaitable[None]]


@dataclass
class Spec:
    """What to produce: a template, or the user's own schema (then `template` is None)."""

    template: Template | None
    schema: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.template.id if self.template is not None else "schema"

    def instructions(self) -> str:
        if self.template is not None:
            return self.template.instructions
        return (
            "Fill in the JSON object `data` that the schema describes, from what the videos "
            "say, and list under `citations` the evidence for each value you filled in, by "
            "the JSON pointer of that value (for example /items/0/name)."
        )

    def answer_schema(self, sources: dict[str, Any]) -> dict[str, Any]:
        if self.template is not None:
            return self.template.data_schema(sources)
        assert self.schema is not None
        return {
            "type": "object",
            "properties": {
                "data": self.schema,
                "citations": {
                    "type": "array",
                    "maxItems": 40,
                    "items": {
                        "type": "object",
                        "properties": {"pointer": {"type": "string"}, "sources": sources},
                        "required": ["pointer", "sources"],
                    },
                },
            },
            "required": ["data", "citations"],
        }


@dataclass
class Generated:
    """What the model path produced (the service turns it into a `Brief`)."""

    title: str = ""
    bottom_line: str = ""
    bottom_line_citations: list[BriefCitation] = field(default_factory=list)
    #: the bottom line is the model's own claim (a brief's), not a template's frame or
    #: the extractive path's description of itself: it must be cited for `complete`
    model_bottom_line: bool = False
    topics: list[BriefTopic] = field(default_factory=list)
    data: dict[str, Any] | None = None
    data_citations: dict[str, list[BriefCitation]] = field(default_factory=dict)
    uncited: list[str] = field(default_factory=list)
    evidence: Evidence | None = None
    notes: list[str] = field(default_factory=list)
    limitations: list[str] = field(default_factory=list)
    not_read: dict[str, str] = field(default_factory=dict)  # video id -> why
    timings: list[StageTiming] = field(default_factory=list)
    pass_kind: str = "single"
    reused_maps: int = 0
    removed_items: int = 0
    served_by: set[str] = field(default_factory=set)
    attempts: list[dict[str, Any]] = field(default_factory=list)


def question_key(question: str) -> str:
    """The question as the map cache knows it: the same words in any case or spacing."""
    words = " ".join(question.lower().split())
    return hashlib.sha256(words.encode("utf-8")).hexdigest()[:16]


def grounded(chain: Sequence[ChatModel]) -> bool:
    """Whether evidence names lines (`grounding.py`): when the first model writes under a
    grammar (llama.cpp), which holds it to the lines that exist."""
    return bool(chain) and chain[0].info.runtime == "llamacpp"


def source_budget(model: ChatModel) -> int:
    """Tokens of transcript one call may carry for `model`."""
    window = model.info.context_window
    return max(1000, min(MAX_SOURCE_TOKENS, int(0.75 * window) - ANSWER_TOKENS - PROMPT_TOKENS))


async def generate(
    question: str,
    sources: Sequence[BriefSource],
    spec: Spec,
    chain: Sequence[ChatModel],
    *,
    cached: MapCache,
    remember: MapStore,
    budget: int | None = None,
    piece_tokens: int | None = None,
    one_pass: bool | None = None,
) -> AsyncGenerator[BriefStep | Generated, None]:
    """Progress steps, then one `Generated` last.

    `budget` (tokens of transcript one call carries), `piece_tokens` (the size of a map
    chunk) and `one_pass` (everything in one call; by default when it fits `budget`) follow
    from the first model's window; a caller whose model's window is unknown (an MCP
    client's, through sampling) decides them.
    """
    result = Generated(evidence=Evidence(sources))
    budget = budget or source_budget(chain[0])
    if one_pass is None:
        one_pass = sum(s.tokens() for s in sources) <= budget
    if one_pass:
        videos = len(sources)
        yield BriefStep("write", 0, 1, f"one pass over {videos} videos", videos=videos)
        await _single(question, sources, spec, chain, result)
        yield BriefStep("write", 1, 1, "verified", videos=videos)
    else:
        result.pass_kind = "map-reduce"
        async for step in _map_reduce(
            question, sources, spec, chain, budget, result, cached, remember, piece_tokens
        ):
            yield step
    yield result


async def _single(
    question: str,
    sources: Sequence[BriefSource],
    spec: Spec,
    chain: Sequence[ChatModel],
    result: Generated,
) -> None:
    assert result.evidence is not None
    keys = LineKeys.of((s, s.lines) for s in sources) if grounded(chain) else None
    messages = prompts.single_messages(question, sources, spec.instructions(), keys)
    schema = spec.answer_schema(prompts.inline_sources_schema(keys=keys))
    started = time.perf_counter()
    run = ChainRun(stage="write")
    try:
        answer = await complete_json(chain, messages, schema, _options(ANSWER_TOKENS), run)
    except V2CError as error:
        result.notes.append(f"writing the brief failed: {error.message}")
        for source in sources:
            result.not_read[source.video_id] = "the model could not write the brief"
        return
    finally:
        result.attempts += run.attempts_dicts()
        result.timings.append(StageTiming("write", _ms(started), run.served_by))
        if run.served_by:
            result.served_by.add(run.served_by)
    if keys is not None:
        answer = keys.ground(answer)
    started = time.perf_counter()
    await asyncio.to_thread(_organise, answer, spec, result, inline=True)  # every quote checked
    result.timings.append(StageTiming("verify", _ms(started)))


async def _map_reduce(
    question: str,
    sources: Sequence[BriefSource],
    spec: Spec,
    chain: Sequence[ChatModel],
    budget: int,
    result: Generated,
    cached: MapCache,
    remember: MapStore,
    piece_tokens: int | None = None,
) -> AsyncGenerator[BriefStep, None]:
    evidence = result.evidence
    assert evidence is not None
    model_id = chain[0].info.id
    map_budget = piece_tokens or max(800, budget - MAP_ANSWER_TOKENS)
    work = [chunk for source in sources for chunk in chunks_of(source, map_budget)]
    videos, parts = len(sources), len(work)
    number = {source.video_id: n for n, source in enumerate(sources, start=1)}
    asked = question_key(question)
    started = time.perf_counter()
    verify_ms = 0.0
    served: str | None = None
    for done, chunk in enumerate(work):
        yield BriefStep(
            "map",
            done,
            parts,
            f"{chunk.source.title} (part {chunk.index + 1})",
            videos=videos,
            video=number[chunk.source.video_id],
            part=done + 1,
            parts=parts,
            reused=result.reused_maps,
        )
        key: MapKey = (
            chunk.source.video_id,
            chunk.source.transcript_key(),
            asked,
            model_id,
            prompts.MAP_LINES_PROMPT_VERSION if grounded(chain) else prompts.MAP_PROMPT_VERSION,
            map_budget,
            chunk.index,
        )
        raw = await cached(key)
        if raw is not None:
            result.reused_maps += 1
        else:
            raw, by = await _map_chunk(question, chunk, chain, result)
            if raw is None:
                continue
            served = served or by  # the model that served the first part read
            await remember(key, raw)
        t = time.perf_counter()
        await asyncio.to_thread(evidence.add_claims, raw)  # pure work; nothing else touches it
        verify_ms += _ms(t)
    yield BriefStep(
        "map",
        parts,
        parts,
        f"{len(evidence.claims)} claims verified",
        videos=videos,
        parts=parts,
        reused=result.reused_maps,
    )
    result.timings.append(StageTiming("map", _ms(started) - verify_ms, served))
    result.timings.append(StageTiming("verify", verify_ms))
    yield BriefStep("reduce", 0, 1, f"{len(evidence.claims)} claims", videos=videos)
    started = time.perf_counter()
    answer, left = await _reduce(question, evidence.claims, spec, chain, budget, result)
    result.timings.append(StageTiming("reduce", _ms(started), _last_served(result)))
    await asyncio.to_thread(_organise, answer or {}, spec, result, inline=False)
    if spec.template is None or spec.template.id != "brief":
        # a brief lists every claim no point used itself; a template's answer holds only
        # what fitted its call, so the claims left out are listed here: none is lost
        result.topics = single_source_topics(left)
    yield BriefStep("reduce", 1, 1, "done", videos=videos)


async def _map_chunk(
    question: str, chunk: Chunk, chain: Sequence[ChatModel], result: Generated
) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The chunk's claims (None when no model could read it), and the model that did."""
    run = ChainRun(stage="map")
    keys = LineKeys.of([(chunk.source, chunk.lines)]) if grounded(chain) else None
    try:
        answer = await complete_json(
            chain,
            prompts.map_messages(question, chunk, keys),
            prompts.map_schema(keys),
            _options(MAP_ANSWER_TOKENS),
            run,
        )
    except V2CError as error:
        result.notes.append(
            f"reading {chunk.source.title} (part {chunk.index + 1}) failed: {error.message}"
        )
        result.not_read.setdefault(
            chunk.source.video_id, f"a part could not be read: {error.message}"
        )
        return None, None
    finally:
        result.attempts += run.attempts_dicts()
        if run.served_by:
            result.served_by.add(run.served_by)
    if keys is not None:
        answer = keys.ground(answer)
    claims = answer.get("claims")
    found = [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
    return found, run.served_by


async def _reduce(
    question: str,
    claims: Sequence[Claim],
    spec: Spec,
    chain: Sequence[ChatModel],
    budget: int,
    result: Generated,
) -> tuple[dict[str, Any] | None, list[Claim]]:
    """Organise the verified claims, in as many calls as they need (each call fits): the
    answer, and the claims no call organised (a failed call's; a template's beyond its one
    call), which the caller lists as single-source points.

    A brief's points from several calls are put together (the first call's bottom line
    leads); a template or schema is filled from one call's claims only, so that the values
    of one answer never mix two calls.
    """
    if not claims:
        return None, []
    size = max(1, budget // CLAIM_TOKENS)
    mixed = _round_robin(claims)  # every call sees every video: agreement needs two
    batches = [mixed[i : i + size] for i in range(0, len(mixed), size)]
    is_brief = spec.template is not None and spec.template.id == "brief"
    left: list[Claim] = []
    if not is_brief and len(batches) > 1:
        left = [c for batch in batches[1:] for c in batch]
        result.limitations.append(
            f"{len(left)} verified claims did not fit one organising call; they are "
            "listed as single-source points"
        )
        batches = batches[:1]
    merged: dict[str, Any] | None = None
    for batch in batches:
        numbered = [(c.n, c.citation.title, c.topic, c.text, c.stance) for c in batch]
        messages = prompts.reduce_messages(question, numbered, spec.instructions())
        schema = spec.answer_schema(prompts.claim_refs_schema())
        run = ChainRun(stage="reduce")
        try:
            answer = await complete_json(chain, messages, schema, _options(ANSWER_TOKENS), run)
        except V2CError as error:
            result.notes.append(
                f"organising {len(batch)} claims failed ({error.message}): each of them is "
                "shown as its own point"
            )
            left.extend(batch)
            continue
        finally:
            result.attempts += run.attempts_dicts()
            if run.served_by:
                result.served_by.add(run.served_by)
        if merged is None:
            merged = answer
        elif is_brief:
            merged["points"] = [*(merged.get("points") or []), *(answer.get("points") or [])]
    return merged, left


def _round_robin(claims: Sequence[Claim]) -> list[Claim]:
    """Claims taken one video at a time in turn, each video's in their own order."""
    by_video: dict[str, list[Claim]] = {}
    for claim in claims:
        by_video.setdefault(claim.citation.video_id, []).append(claim)
    queues = list(by_video.values())
    out: list[Claim] = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop(0))
    return out


def _last_served(result: Generated) -> str | None:
    for attempt in reversed(result.attempts):
        if attempt.get("outcome") == "ok":
            return str(attempt.get("id"))
    return None


def _organise(answer: dict[str, Any], spec: Spec, result: Generated, *, inline: bool) -> None:
    """The answer's evidence resolved to verified citations, in the spec's shape."""
    evidence = result.evidence
    assert evidence is not None
    if spec.template is not None and spec.template.id == "brief":
        organised = points_from_brief(answer, evidence, inline=inline)
        result.bottom_line, result.topics = organised.bottom_line, organised.topics
        result.bottom_line_citations = organised.bottom_line_citations
        result.model_bottom_line = True
        result.title = " ".join(str(answer.get("title") or "").split())
        return
    if spec.template is not None:
        data, citations, removed = resolve_items(answer, evidence, inline=inline)
        result.data = data if isinstance(data, dict) else {}
        result.data_citations = citations
        result.removed_items = removed
        result.bottom_line = spec.template.headline(result.data)
        return
    data = answer.get("data") if isinstance(answer.get("data"), dict) else {}
    by_pointer: dict[str, list[BriefCitation]] = {}
    for entry in answer.get("citations") or []:
        if not isinstance(entry, dict):
            continue
        pointer = str(entry.get("pointer") or "")
        wrapped = {"sources": entry.get("sources"), "pointer": pointer}
        _, found, _ = resolve_items({"item": wrapped}, evidence, inline=inline)
        for cites in found.values():
            by_pointer.setdefault(pointer, []).extend(cites)
    result.data = data
    result.data_citations = by_pointer
    result.uncited = uncited_pointers(leaf_pointers(data), by_pointer)


def _options(max_tokens: int) -> ChatOptions:
    return ChatOptions(max_tokens=max_tokens, temperature=0.1, seed=7)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)
