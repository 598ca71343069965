"""A cited digest of videos written by a model the caller lends: an MCP client's own, through
sampling; or, without one, the plan an agent follows to write it itself.

Everything but the model is the brief's: the videos are numbered with copies counted once
(`sources.py`), cut at line (so segment) boundaries into pieces of at most `piece_tokens`
(`chunks_of`), fenced as untrusted text in the brief's own prompts, written in one request
when every video is one piece and together they fit `request_budget`, else read piece by
piece and then organised (`generate.py`, map and reduce): no request carries more than
`piece_tokens` of any one video. Every quote is checked against its transcript at the
time it names (`verify.py`) before it may appear; a quote that fails is kept with its
reason. The lent model is a `ChatModel` whose `complete_json` states the schema in the
prompt, reads the JSON object out of the answer and asks once for a repair
(`openai_compat.json_answers`): a client's model writes under no grammar.

This runs in the process that holds the lent model (the MCP server, owner of the library
or not): it needs the videos' records, never the store.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..domain.videos import VideoRecord
from ..models.openai_compat.json_answers import checked_object, repair_messages, with_schema
from ..models.types import (
    ChatDelta,
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatOptions,
    ModelCallFailed,
    ModelInfo,
    Usage,
)
from ..render.tokens import estimate_tokens
from .assemble import assemble_brief
from .events import Brief, BriefRequest, BriefStep
from .evidence import time_of
from .generate import MAX_SOURCE_TOKENS, Generated, MapKey, Spec, generate
from .sources import BriefSource, Chunk, chunks_of, number_sources
from .templates import template
from .verify import TranscriptIndex, verify_quote

__all__ = [  # what a face may use: the digest, its plan, the sampler it lends, the checks
    "DEFAULT_PIECE_TOKENS",
    "DEFAULT_QUESTION",
    "LENT_ID",
    "MAX_PIECE_TOKENS",
    "MIN_PIECE_TOKENS",
    "ChatMessage",
    "Digest",
    "DigestPlan",
    "ModelCallFailed",
    "Piece",
    "PlannedVideo",
    "QuoteCheck",
    "Sampled",
    "Sampler",
    "check_quotes",
    "plan_digest",
    "request_budget",
    "write_digest",
]

DEFAULT_PIECE_TOKENS = 2000
MIN_PIECE_TOKENS = 300
MAX_PIECE_TOKENS = MAX_SOURCE_TOKENS
#: Transcript tokens one request carries when everything is written in one pass.
REQUEST_TOKENS = 12_000
#: The least a request may answer with: a strong model's digest with quotes is long.
ANSWER_FLOOR = 2000
LENT_ID = "mcp-sampling"
#: The lent model's window is the client's and unknown; the budgets above bound requests.
LENT_WINDOW = 1_000_000
DEFAULT_QUESTION = "What do these videos say? Give their main points."

INSTRUCTIONS = (
    "Write a digest of the videos that answers the question: a bottom line of two or three "
    "sentences first, then the points that matter, each one sentence under a short topic "
    "name, with the quotes that show it under `support` (and evidence against it under "
    "`oppose`, with a one-sentence `counter` saying what the other side holds). Say only "
    "what the videos say."
)
#: The brief template with a digest's instructions: its schema and its points are the
#: brief's, so the brief's code organises and verifies them.
DIGEST = dataclasses.replace(template("brief"), title="Digest", instructions=INSTRUCTIONS)


def request_budget(piece_tokens: int) -> int:
    """Transcript tokens of the one-pass request: never less than a piece."""
    return max(REQUEST_TOKENS, piece_tokens)


# -- the plan ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Piece:
    """Consecutive transcript lines of one video, cut at segment boundaries.

    `until` is where the next piece starts (the video's end for the last one), so reading
    `start`..`until` of the transcript gives exactly this piece.
    """

    index: int
    start: float
    end: float
    until: float
    tokens: int
    text: str


@dataclass(frozen=True)
class PlannedVideo:
    source: BriefSource
    pieces: list[Piece]

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.pieces)


@dataclass(frozen=True)
class DigestPlan:
    """The videos (copies merged), their pieces, and how a digest of them would run."""

    videos: list[PlannedVideo]
    piece_tokens: int
    records: list[VideoRecord]

    @property
    def pieces(self) -> int:
        return sum(len(v.pieces) for v in self.videos)

    @property
    def tokens(self) -> int:
        return sum(v.tokens for v in self.videos)

    @property
    def single(self) -> bool:
        """Whether one request carries everything: each video is one piece, and all of them
        fit the one-pass budget."""
        budget = request_budget(self.piece_tokens)
        whole = all(len(v.pieces) <= 1 for v in self.videos)
        return whole and sum(v.source.tokens() for v in self.videos) <= budget

    @property
    def requests(self) -> int:
        """The sampling requests a digest makes, repairs aside: one, or a map request per
        piece and at least one to organise what they found."""
        return 1 if self.single else self.pieces + 1


def plan_digest(records: Sequence[VideoRecord], piece_tokens: int) -> DigestPlan:
    """Number the videos (copies counted once) and cut each into pieces."""
    return DigestPlan(
        [
            PlannedVideo(source, _pieces(source, chunks_of(source, piece_tokens)))
            for source in number_sources(records)
        ],
        piece_tokens,
        list(records),
    )


def _pieces(source: BriefSource, chunks: Sequence[Chunk]) -> list[Piece]:
    video_end = max(source.record.duration, *(c.lines[-1].end for c in chunks), 0.0)
    out: list[Piece] = []
    for n, chunk in enumerate(chunks):
        until = chunks[n + 1].lines[0].start if n + 1 < len(chunks) else video_end
        out.append(
            Piece(
                chunk.index,
                chunk.lines[0].start,
                chunk.lines[-1].end,
                until,
                sum(estimate_tokens(line.render()) + 1 for line in chunk.lines),
                chunk.text(),
            )
        )
    return out


# -- the lent model ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Sampled:
    """What the lender's model answered, and which model it was (when it says)."""

    text: str
    model: str = ""


class Sampler(Protocol):
    """One request to the lender's model: the messages (system ones first) and the most it
    may write. A refusal or failure raises `ModelCallFailed` with the reason."""

    async def __call__(self, messages: Sequence[ChatMessage], max_tokens: int) -> Sampled: ...


class LentModel:
    """A caller's model as the `ChatModel` the brief pipeline asks (only JSON answers)."""

    def __init__(self, sampler: Sampler, label: str = "the MCP client's model") -> None:
        self.info = ModelInfo(
            id=LENT_ID,
            kind="chat",
            runtime="mcp-sampling",
            label=label,
            context_window=LENT_WINDOW,
            local=False,
        )
        self._sampler = sampler
        self.requests = 0
        self.answered = 0
        self.models: list[str] = []
        self.failures: list[str] = []

    async def _ask(self, messages: Sequence[ChatMessage], max_tokens: int) -> str:
        self.requests += 1
        try:
            sampled = await self._sampler(messages, max(max_tokens, ANSWER_FLOOR))
        except ModelCallFailed as failure:
            self.failures.append(f"{failure.reason}: {failure.detail}".rstrip(": "))
            raise
        self.answered += 1
        if sampled.model and sampled.model not in self.models:
            self.models.append(sampled.model)
        return sampled.text

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = ChatOptions(),
    ) -> dict[str, Any]:
        conversation = with_schema(messages, json_schema)
        answer = await self._ask(conversation, options.max_tokens)
        value, problem = checked_object(answer, json_schema)
        if value is None:
            repaired = await self._ask(
                repair_messages(conversation, answer, problem), options.max_tokens
            )
            value, problem = checked_object(repaired, json_schema)
        if value is None:
            self.failures.append(f"bad-json: {problem}")
            raise ModelCallFailed(self.info.id, "bad-json", problem)
        return value

    async def chat(
        self, messages: Sequence[ChatMessage], options: ChatOptions = ChatOptions()
    ) -> AsyncIterator[ChatEvent]:
        started = time.perf_counter()
        text = await self._ask(messages, options.max_tokens)
        yield ChatDelta(text)
        usage = Usage(
            sum(estimate_tokens(m.content) for m in messages),
            estimate_tokens(text),
            (time.perf_counter() - started) * 1000,
        )
        yield ChatDone(self.info.id, usage)

    def count_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    async def aclose(self) -> None:
        return None


# -- the digest -------------------------------------------------------------------------------
@dataclass
class Digest:
    """A digest as a `Brief` (points by topic, verified citations, the quotes left out and
    why), with what the lent model was asked: `requests` made, `answered`, the `models`
    that answered and why the others failed."""

    brief: Brief
    requests: int
    answered: int
    models: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


async def write_digest(
    question: str, plan: DigestPlan, sampler: Sampler
) -> AsyncGenerator[BriefStep | Digest, None]:
    """Progress steps (`write`, or `map` then `reduce`), then one `Digest` of the plan's
    videos. Cancelling the consumer cancels the request in flight."""
    question = question.strip() or DEFAULT_QUESTION
    sources = [v.source for v in plan.videos]
    records = plan.records
    lent = LentModel(sampler)
    generated = Generated()
    async for event in generate(
        question,
        sources,
        Spec(DIGEST),
        [lent],
        cached=_never_cached,
        remember=_forget,
        budget=request_budget(plan.piece_tokens),
        piece_tokens=plan.piece_tokens,
        one_pass=plan.single,
    ):
        if isinstance(event, Generated):
            generated = event
        else:
            yield event
    request = BriefRequest(
        question=question, video_ids=tuple(r.video.id for r in records), template="digest"
    )
    brief = assemble_brief(request, "digest", sources, records, [lent], generated, [])
    brief = dataclasses.replace(
        brief,
        id="",
        title=generated.title or "Digest",
        model=", ".join(lent.models) or lent.info.label,
    )
    yield Digest(brief, lent.requests, lent.answered, lent.models, lent.failures)


async def _never_cached(_key: MapKey) -> list[dict[str, Any]] | None:
    return None  # the lender's model is not known before it answers: nothing to reuse


async def _forget(_key: MapKey, _claims: list[dict[str, Any]]) -> None:
    return None


# -- checking an agent's own quotes -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuoteCheck:
    """One quote checked the briefs' way: where it really is (snapped to segments) when it
    holds, else why not (`quote-not-found`, `quote-at-other-time` with `found_at`, ...)."""

    ok: bool
    start: float | None
    end: float | None
    score: float
    reason: str = ""
    found_at: float | None = None


def check_quotes(
    records: Mapping[str, VideoRecord], quotes: Sequence[tuple[str, Any, str]]
) -> list[QuoteCheck]:
    """Check `(video id, time, quote)` triples against the videos in `records` (by id),
    with the verifier every brief and digest citation passes."""
    indexes: dict[str, TranscriptIndex] = {}
    out: list[QuoteCheck] = []
    for video_id, when, quote in quotes:
        record = records.get(video_id)
        if record is None:
            out.append(QuoteCheck(False, None, None, 0.0, "unknown-video"))
            continue
        if video_id not in indexes:
            indexes[video_id] = TranscriptIndex(record.transcript.segments)
        start = time_of(when)
        verdict = verify_quote(indexes[video_id], quote, start)
        if verdict.ok:
            out.append(QuoteCheck(True, verdict.start, verdict.end, round(verdict.score, 3)))
        else:
            reason = verdict.failure or "quote-not-found"
            score = round(verdict.score, 3)
            out.append(QuoteCheck(False, start, None, score, reason, verdict.found_at))
    return out
