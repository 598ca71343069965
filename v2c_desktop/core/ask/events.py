"""What an ask request is and the events a streamed answer produces, in order.

`meta` (model, sources) → `reasoning` (when the model exposes it) → `delta`... → `done`
(text, citations, unverified, usage, attempts) or `error`. Every surface (CLI, MCP, GUI)
renders the same events, so a citation is always (video id, start, end, url, quote).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ErrorCode
from ..wire import wire

ELLIPSIS = "…"


def with_ellipses(quote: str, cut_start: bool, cut_end: bool) -> str:
    """The quote as a reader sees it: `…` where it was cut inside a sentence."""
    if not quote:
        return quote
    return f"{ELLIPSIS if cut_start else ''}{quote}{ELLIPSIS if cut_end else ''}"


@wire
@dataclass(frozen=True, slots=True)
class Citation:
    """A cited source narrowed to its supporting moment.

    `url` opens the video at `start` (built with `Source.url_at`). `quote` is at most ~160
    characters of the narrowed caption text, cut at word boundaries and never paraphrased;
    `verified` says it supports what cites it: the quote is found verbatim (whitespace
    aside) in the source's raw text and, for a model's sentence, the segment shares enough
    words with it (`matching.MIN_SUPPORT`). An unverified citation is listed with its
    `reason` and must never be shown as a link. `match_score` is the word overlap that
    chose the segment: 0 means nothing matched and the citation points at the source's
    first segment. `cut_start` / `cut_end` say the quote begins or ends inside a sentence;
    `shown_quote` marks those cuts with `…`.
    """

    n: int
    video_id: str
    title: str
    url: str
    start: float
    end: float
    quote: str
    verified: bool
    match_score: float = 0.0
    channel: str = ""
    cut_start: bool = False
    cut_end: bool = False
    reason: str = ""

    @property
    def shown_quote(self) -> str:
        """The quote as a reader should see it, with `…` where a sentence was cut."""
        return with_ellipses(self.quote, self.cut_start, self.cut_end)


@wire
@dataclass(frozen=True)
class AskRequest:
    """A question over one video, several, a collection, URLs not yet in the library, or
    (`library`) every video of the library, asked for explicitly: an empty scope is an
    error, never "everything".

    `chat_id` continues a saved chat (its turns become history); `model` names a chat model
    (`strict`: that model or an error); `extractive` skips generation entirely.
    `source_tokens` caps the sources a model reads (below the budget its window and speed
    allow): fewer tokens start the answer sooner; the ask evaluation measures what that
    costs in support.
    """

    question: str
    video_ids: tuple[str, ...] = ()
    collection: str | None = None
    urls: tuple[str, ...] = ()
    library: bool = False
    chat_id: str | None = None
    model: str | None = None
    strict: bool = False
    extractive: bool = False
    max_tokens: int = 768
    source_tokens: int | None = None


@wire
@dataclass(frozen=True)
class SourceInfo:
    """A numbered source as the answer's reader sees it (no raw segments)."""

    n: int
    video_id: str
    title: str
    url: str
    start: float
    end: float


@wire
@dataclass(frozen=True)
class ModelSuggestion:
    """The chat model to get for written answers: the smallest recommended one."""

    id: str
    label: str
    size_bytes: int


@wire
@dataclass(frozen=True)
class AskMeta:
    """`why_extractive` says, when no model writes the answer, why (in plain words, for
    any face); `suggestion` is the model to get, when one is not installed yet."""

    chat_id: str
    model: str | None
    extractive: bool
    sources: list[SourceInfo] = field(default_factory=list)
    retrieval: str = "all"  # "all" sources fit, "search" chose them, or "excerpts" of them
    why_extractive: str = ""
    suggestion: ModelSuggestion | None = None


@wire
@dataclass(frozen=True)
class AskReasoning:
    text: str


@wire
@dataclass(frozen=True)
class AskDelta:
    text: str


@wire
@dataclass(frozen=True)
class AskDone:
    chat_id: str
    text: str
    citations: list[Citation]
    unverified: list[int]
    extractive: bool
    model: str | None
    usage: dict[str, Any] = field(default_factory=dict)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    # why the model was stopped before it ended the answer: "repetition" (it looped) or
    # "length" (the token limit); None when it finished by itself
    cut: str | None = None


@wire
@dataclass(frozen=True)
class AskError:
    code: ErrorCode
    message: str
    hint: str
    attempts: list[dict[str, Any]] = field(default_factory=list)


AskEvent = AskMeta | AskReasoning | AskDelta | AskDone | AskError
