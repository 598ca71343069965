"""What a search asks for and what it gives back."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..wire import wire

Mode = Literal["hybrid", "keyword", "vector"]
MODES: tuple[Mode, ...] = ("hybrid", "keyword", "vector")


@wire
@dataclass(frozen=True)
class SearchRequest:
    """A query and its filters.

    Dates are ISO `YYYY-MM-DD`; a date filter excludes videos without a publish date, since
    nobody can say they fall in the range, unless `include_undated` keeps them (the result's
    `meta["undated_left_out"]` says how many it left out). `cutoff` leaves out passages far
    weaker than each side's best (`search/cutoff.py`), so a short page means "no more good
    matches" rather than being padded with unrelated ones.
    """

    query: str
    mode: Mode = "hybrid"
    limit: int = 10
    collection: str | None = None
    video_ids: tuple[str, ...] | None = None
    channel: str | None = None
    origins: tuple[str, ...] | None = None
    published_after: str | None = None
    published_before: str | None = None
    rerank: bool = False
    include_undated: bool = False
    cutoff: bool = False
    plain_fusion: bool = False
    """Plain RRF, every keyword hit at full weight, instead of the engine's coverage
    weighting (`fusion.FusionSettings.keyword_coverage`). Ask's passages use it: its
    extractive choice among them was fit to plain ranks, and on its eval (33 questions)
    coverage-weighted ranks cited support for 27 where plain ranks did for 30, although the
    support was in the top 5 as often (32 of 33) either way."""


@wire
@dataclass
class SearchHit:
    video_id: str
    title: str
    channel: str
    start: float
    end: float
    url: str
    snippet: str
    text: str
    chapter: str | None
    sources: list[str]
    score: float
    ranks: dict[str, int]
    rerank_score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["start"] = round(self.start, 3)
        out["end"] = round(self.end, 3)
        out["score"] = round(self.score, 6)
        if self.rerank_score is None:
            out.pop("rerank_score")
        return out


@wire
@dataclass
class SearchResult:
    hits: list[SearchHit]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"hits": [h.to_dict() for h in self.hits], "meta": self.meta}
