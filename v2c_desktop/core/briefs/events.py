"""What a brief is asked for, the events a build streams, and the brief itself.

Every face shows the same objects: the CLI and MCP render them as Markdown or JSON
(`render.py`), the app's brief pane will show them as widgets. They cross the owner socket,
so they are `@wire` dataclasses of plain values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..wire import wire

PointKind = Literal["consensus", "disagreement", "single-source"]
Status = Literal["complete", "partial"]


@wire
@dataclass(frozen=True)
class BriefRequest:
    """A question over videos, a collection, or the videos a search finds.

    `template` names a built-in template (`brief`, `summary`, `buyer-guide`,
    `tutorial-steps`, `comparison`); `schema` is the user's own JSON Schema instead.
    `model` names a chat model (`strict`: that one or an error); `extractive` uses no model.
    `max_words` bounds the bottom line and points. `rerun` rebuilds a saved brief (reusing
    its cached per-video maps) under its id. `skip_sponsors` leaves out of the sources the
    caption lines wholly inside a SponsorBlock sponsor segment the library holds (fetched
    before; a brief never asks SponsorBlock), saying so in the limitations.
    """

    question: str
    video_ids: tuple[str, ...] = ()
    collection: str | None = None
    search: str | None = None
    template: str = "brief"
    schema: dict[str, Any] | None = None
    model: str | None = None
    strict: bool = False
    extractive: bool = False
    max_words: int = 400
    rerun: str | None = None
    title: str = ""
    skip_sponsors: bool = False


@wire
@dataclass(frozen=True)
class BriefCitation:
    """A verified quote: the video, the snapped moment, a link that opens it there."""

    video_id: str
    title: str
    start: float
    end: float
    url: str
    quote: str


@wire
@dataclass(frozen=True)
class BriefPoint:
    """One point and its evidence; `kind` is decided in code from the citations' videos."""

    text: str
    kind: PointKind
    support: list[BriefCitation] = field(default_factory=list)
    oppose: list[BriefCitation] = field(default_factory=list)
    counter: str = ""


@wire
@dataclass(frozen=True)
class BriefTopic:
    name: str
    points: list[BriefPoint] = field(default_factory=list)


@wire
@dataclass(frozen=True)
class UnverifiedClaim:
    """A claim left out, and why (the brief's appendix)."""

    claim: str
    quote: str
    video_id: str
    start: float | None
    reason: str
    found_at: float | None = None


@wire
@dataclass(frozen=True)
class SourceCoverage:
    """What became of one video: read (with how many verified claims), a duplicate of
    another (counted once), or not read and why."""

    video_id: str
    title: str
    status: Literal["read", "duplicate", "not-read"]
    claims: int = 0
    reason: str = ""
    copies: list[str] = field(default_factory=list)


@wire
@dataclass(frozen=True)
class StageTiming:
    stage: str
    ms: float
    model: str | None = None


@wire
@dataclass(frozen=True)
class Brief:
    """A finished brief (or a partial one, saying what is missing in `notes`).

    `bottom_line_citations` are the verified evidence of a model's bottom line (without
    any, the brief is partial). `data` and `data_citations` are a template's or a schema's
    answer: the JSON object and, per JSON pointer, the verified citations supporting it;
    `uncited` lists the pointers no verified citation covers.
    """

    id: str
    title: str
    question: str
    template: str
    bottom_line: str
    topics: list[BriefTopic] = field(default_factory=list)
    coverage: list[SourceCoverage] = field(default_factory=list)
    unverified: list[UnverifiedClaim] = field(default_factory=list)
    limitations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: Status = "partial"
    extractive: bool = False
    model: str | None = None
    pass_kind: Literal["single", "map-reduce", "extractive"] = "single"
    timings: list[StageTiming] = field(default_factory=list)
    data: dict[str, Any] | None = None
    data_citations: dict[str, list[BriefCitation]] = field(default_factory=dict)
    uncited: list[str] = field(default_factory=list)
    reused_maps: int = 0
    created_at: str = ""
    scope: dict[str, Any] = field(default_factory=dict)
    bottom_line_citations: list[BriefCitation] = field(default_factory=list)

    @property
    def points(self) -> list[BriefPoint]:
        return [p for topic in self.topics for p in topic.points]


@wire
@dataclass(frozen=True)
class BriefStep:
    """Progress of a build: `stage` (scope, map, write, extract, reduce, render), done of
    total, in words (`message`, what the CLI and MCP print) and in numbers for a face that
    shows its own words (the app's "reading video 4 of 12 (part 9/30)").

    `videos` is how many distinct videos the build reads (0 before it knows); `video` the
    1-based one being read now (0: none at this step); `part` of `parts` the map part being
    read now, counted over the whole build (a long video is read in several parts), and
    `reused` how many parts so far came back from the map cache instead of the model.
    """

    stage: str
    done: int
    total: int | None
    message: str = ""
    videos: int = 0
    video: int = 0
    part: int = 0
    parts: int = 0
    reused: int = 0


@wire
@dataclass(frozen=True)
class BriefDone:
    brief: Brief


BriefEvent = BriefStep | BriefDone


@wire
@dataclass(frozen=True)
class BriefSummary:
    """A saved brief as a list shows it."""

    id: str
    title: str
    question: str
    template: str
    status: Status
    model: str | None
    created_at: str
    updated_at: str
    scope: dict[str, Any] = field(default_factory=dict)


@wire
@dataclass(frozen=True)
class BriefEstimate:
    """What a build would read and do, before it starts.

    `videos` distinct videos (`duplicates` more are copies read once), `hours` of them,
    `tokens` of transcript; `pass_kind` single (everything fits one call), map-reduce or
    extractive (no model); `model` the model that would write first, `calls` how many model
    calls at most. `seconds` is a rough time from the model's measured (or estimated)
    speed, or None when nothing measured allows one; `basis` says which, in words.
    """

    videos: int
    duplicates: int
    hours: float
    tokens: int
    pass_kind: Literal["single", "map-reduce", "extractive"]
    model: str | None = None
    model_label: str = ""
    calls: int = 0
    seconds: float | None = None
    speed: Literal["measured", "estimated", ""] = ""
    basis: str = ""
    notes: list[str] = field(default_factory=list)
