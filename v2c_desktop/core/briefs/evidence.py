"""From what a model wrote to what a brief may show: verified citations, points, their kind.

Every quote goes through `verify.verify_quote` before it may be shown as a citation; what
fails is kept, with its reason, for the brief's appendix. Whether a point is a consensus, a
disagreement or single-source is decided here, in code, from which distinct videos its
citations come from, never by the model. Verified claims no point used become
single-source points of their own: nothing verified is lost.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..search.text_tokens import tokenize
from ..timecode import parse_time
from .events import BriefCitation, BriefPoint, BriefTopic, PointKind, UnverifiedClaim
from .prompts import STANCES
from .sources import BriefSource
from .verify import verify_quote


@dataclass(frozen=True, slots=True)
class Claim:
    """A verified claim: its number (for the reduce step), topic, and citation."""

    n: int
    text: str
    topic: str
    citation: BriefCitation
    stance: str | None = None  # for / against / neutral, when the map step said


def kind_of(support: Sequence[BriefCitation], oppose: Sequence[BriefCitation]) -> PointKind:
    """Consensus: support from 2+ distinct videos and nothing against; disagreement: cited
    evidence on both sides; anything else is single-source."""
    if support and oppose:
        return "disagreement"
    if not oppose and len({c.video_id for c in support}) >= 2:
        return "consensus"
    return "single-source"


def topic_key(name: str) -> str:
    """Topics that differ only in case, stop words or plurals are one topic."""
    terms = tokenize(name)
    return " ".join(sorted(set(terms))) or name.strip().lower()


@dataclass
class Evidence:
    """The sources of one brief, and every claim checked against them so far."""

    sources: Sequence[BriefSource]
    claims: list[Claim] = field(default_factory=list)
    unverified: list[UnverifiedClaim] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_n = {s.n: s for s in self.sources}

    def source(self, n: Any) -> BriefSource | None:
        return self._by_n.get(n) if isinstance(n, int) else None

    def cite(self, entry: Any, claim: str = "") -> BriefCitation | None:
        """A verified citation for `{source, time, quote}`, else None (and the reason kept)."""
        if not isinstance(entry, dict):
            return None
        quote = str(entry.get("quote") or "").strip()
        source = self.source(entry.get("source"))
        if source is None:
            self._reject(claim, quote, str(entry.get("source")), None, "unknown-video")
            return None
        start = time_of(entry.get("time"))
        verdict = verify_quote(source.index, quote, start)
        if not verdict.ok:
            reason = verdict.failure or "quote-not-found"
            self._reject(claim, quote, source.video_id, start, reason, verdict.found_at)
            return None
        return BriefCitation(
            video_id=source.video_id,
            title=source.title,
            start=verdict.start,
            end=verdict.end,
            url=source.url_at(verdict.start),
            quote=" ".join(quote.split()),
        )

    def add_claims(self, raw: Iterable[Any]) -> list[Claim]:
        """Verify mapped claims (`{claim, quote, source, time, topic, stance?}`); the
        verified ones."""
        added: list[Claim] = []
        for item in raw:
            if not isinstance(item, dict):
                continue
            text = " ".join(str(item.get("claim") or "").split())
            citation = self.cite(item, text)
            if citation is None or not text:
                continue
            stance = item.get("stance")
            claim = Claim(
                len(self.claims) + 1,
                text,
                _topic(item.get("topic")),
                citation,
                stance if stance in STANCES else None,
            )
            self.claims.append(claim)
            added.append(claim)
        return added

    def claim(self, n: Any) -> Claim | None:
        if isinstance(n, int) and 1 <= n <= len(self.claims):
            return self.claims[n - 1]
        return None

    def _reject(
        self,
        claim: str,
        quote: str,
        video_id: str,
        start: float | None,
        reason: str,
        found_at: float | None = None,
    ) -> None:
        self.unverified.append(UnverifiedClaim(claim, quote, video_id, start, reason, found_at))


def time_of(value: Any) -> float | None:
    """Seconds from a cited time: a number, or text such as `4:05` (None when it is neither)."""
    if isinstance(value, int | float):
        return float(value)
    try:
        return parse_time(str(value).strip())
    except (ValueError, TypeError, AttributeError):
        return None
    except Exception:  # a V2CError for text that is no time at all
        return None


def _topic(value: Any) -> str:
    return " ".join(str(value or "").split())[:60] or "Other"


@dataclass
class Organised:
    """A `brief` answer with its evidence resolved: the bottom line and its verified
    citations, and the points by topic."""

    bottom_line: str
    bottom_line_citations: list[BriefCitation]
    topics: list[BriefTopic]


def points_from_brief(data: dict[str, Any], evidence: Evidence, *, inline: bool) -> Organised:
    """The bottom line and the points of a `brief` answer; evidence inline or by number.

    The bottom line keeps only its verified evidence (the claims it cites are not "used":
    a claim only the bottom line cites still becomes a point of its own).

    A point keeps only its verified evidence. A point with no verified support is never
    shown, but verified evidence against it is not lost: the opposing side becomes a point
    of its own (the model's `counter` sentence, else what that evidence says), classified
    like any other. Verified claims no point cited become single-source points under their
    own topic.
    """
    used: set[int] = set()
    topics: dict[str, BriefTopic] = {}
    order: list[str] = []
    for point in data.get("points") or []:
        if not isinstance(point, dict):
            continue
        text = " ".join(str(point.get("text") or "").split())
        name = _topic(point.get("topic"))
        counter = " ".join(str(point.get("counter") or "").split())
        support = _evidence(point.get("support"), evidence, text, inline)
        oppose = _evidence(point.get("oppose"), evidence, counter or text, inline)
        if support:
            used.update(n for _, n in [*support, *oppose] if n is not None)
            against = [c for c, _ in oppose]
            shown = BriefPoint(
                text,
                kind_of([c for c, _ in support], against),
                [c for c, _ in support],
                against,
                counter if against else "",
            )
        elif oppose:  # the point fell; the verified other side stands on its own
            used.update(n for _, n in oppose if n is not None)
            found = [c for c, _ in oppose]
            first = evidence.claim(oppose[0][1]) if oppose[0][1] is not None else None
            said = counter or (first.text if first is not None else f"“{found[0].quote}”")
            shown = BriefPoint(said, kind_of(found, []), found)
        else:
            continue  # an uncited point is never shown; its rejected quotes are listed
        _put(topics, order, name, shown)
    for topic in single_source_topics(c for c in evidence.claims if c.n not in used):
        for shown in topic.points:
            _put(topics, order, topic.name, shown)
    bottom = " ".join(str(data.get("bottom_line") or "").split())
    cited = _evidence(data.get("bottom_line_support"), evidence, bottom, inline) if bottom else []
    return Organised(bottom, [c for c, _ in cited], [topics[key] for key in order])


def single_source_topics(claims: Iterable[Claim]) -> list[BriefTopic]:
    """Each claim as a single-source point under its topic (topics in first-seen order)."""
    topics: dict[str, BriefTopic] = {}
    order: list[str] = []
    for claim in claims:
        _put(topics, order, claim.topic, BriefPoint(claim.text, "single-source", [claim.citation]))
    return [topics[key] for key in order]


def _put(topics: dict[str, BriefTopic], order: list[str], name: str, point: BriefPoint) -> None:
    key = topic_key(name)
    if key not in topics:
        topics[key] = BriefTopic(name, [])
        order.append(key)
    topics[key].points.append(point)


def _evidence(
    entries: Any, evidence: Evidence, text: str, inline: bool
) -> list[tuple[BriefCitation, int | None]]:
    """The verified citations among `entries`, each with its claim number (None inline)."""
    out: list[tuple[BriefCitation, int | None]] = []
    for entry in entries if isinstance(entries, list) else []:
        number: int | None = None
        if inline:
            citation = evidence.cite(entry, text)
        else:
            claim = evidence.claim(entry)
            citation = claim.citation if claim is not None else None
            number = claim.n if claim is not None else None
        if citation is not None and all(citation != c for c, _ in out):
            out.append((citation, number))
    return out


_SOURCES = "sources"


def resolve_items(
    data: Any, evidence: Evidence, *, inline: bool
) -> tuple[Any, dict[str, list[BriefCitation]], int]:
    """A template answer with every `sources` list resolved: (the data without them, the
    verified citations by JSON pointer of their item, how many items were removed because
    none of their evidence held)."""
    citations: dict[str, list[BriefCitation]] = {}
    removed = 0

    def walk(value: Any, pointer: str) -> tuple[Any, bool]:
        nonlocal removed
        if isinstance(value, dict):
            keep = True
            out: dict[str, Any] = {}
            if _SOURCES in value:
                label = " ".join(str(v) for v in value.values() if isinstance(v, str))[:200]
                found = _evidence(value.get(_SOURCES), evidence, label, inline)
                if found:
                    citations[pointer] = [c for c, _ in found]
                else:
                    keep = False
            for key, item in value.items():
                if key == _SOURCES:
                    continue
                out[key], _ = walk(item, f"{pointer}/{_escape(key)}")
            return out, keep
        if isinstance(value, list):
            kept: list[Any] = []
            for item in value:
                new, keep = walk(item, f"{pointer}/{len(kept)}")
                if keep:
                    kept.append(new)
                else:
                    removed += 1
                    for key in [k for k in citations if k.startswith(f"{pointer}/{len(kept)}/")]:
                        citations.pop(key)
            return kept, True
        return value, True

    cleaned, _ = walk(copy.deepcopy(data), "")
    return cleaned, citations, removed


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def uncited_pointers(leaves: Sequence[str], cited: Iterable[str]) -> list[str]:
    """Leaf pointers that no cited pointer covers (a citation covers everything below it)."""
    covers = sorted(set(cited))
    return [
        leaf for leaf in leaves if not any(leaf == c or leaf.startswith(c + "/") for c in covers)
    ]
