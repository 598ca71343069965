"""An answer's text as safe rich text, and its citations as the cards under it.

The text is escaped first; then each `[n]` becomes a seek link, but only when `n` is a
known target: a source of the answer while it streams (`AskMeta`), a citation once it is
done (`AskDone`). Numbers listed as unverified are never linked, and neither is any other
bracket, so a link always leads to a moment the core vouched for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from v2c_desktop.core.ask.events import Citation, SourceInfo, with_ellipses
from v2c_desktop.core.timecode import clock

from ...links import seek_href
from ...rich_text import escape

MARKER = re.compile(r"\[(\d+)\]")
_PARAGRAPHS = re.compile(r"\n\s*\n")
_BULLET = re.compile(r"^\s*[-*•]\s+")


@dataclass(frozen=True)
class Target:
    """Where a `[n]` link plays."""

    video_id: str
    start: float


@dataclass(frozen=True)
class CitationCard:
    """What a source card shows (from a live `Citation` or a saved chat's dict)."""

    n: int
    video_id: str
    title: str
    start: float
    end: float
    quote: str
    verified: bool

    @property
    def time(self) -> str:
        return clock(self.start)


def targets_from_sources(sources: Iterable[SourceInfo]) -> dict[int, Target]:
    return {s.n: Target(s.video_id, s.start) for s in sources}


def cards_from_citations(
    citations: Iterable[Citation | Mapping[str, Any]], unverified: Iterable[int] = ()
) -> list[CitationCard]:
    """One card per cited number, in order; unverified numbers are left out."""
    skip = set(unverified)
    cards: dict[int, CitationCard] = {}
    for raw in citations:
        c = raw if isinstance(raw, Mapping) else _citation_dict(raw)
        n = int(c["n"])
        if n in skip or n in cards:
            continue
        cards[n] = CitationCard(
            n=n,
            video_id=str(c["video_id"]),
            title=str(c.get("title") or c["video_id"]),
            start=float(c["start"]),
            end=float(c.get("end") or c["start"]),
            quote=with_ellipses(
                str(c.get("quote") or ""),
                bool(c.get("cut_start", False)),
                bool(c.get("cut_end", False)),
            ),
            verified=bool(c.get("verified", False)),
        )
    return sorted(cards.values(), key=lambda card: card.n)


def targets_from_cards(cards: Iterable[CitationCard]) -> dict[int, Target]:
    return {c.n: Target(c.video_id, c.start) for c in cards}


def _citation_dict(c: Citation) -> dict[str, Any]:
    return {
        "n": c.n,
        "video_id": c.video_id,
        "title": c.title,
        "start": c.start,
        "end": c.end,
        "quote": c.quote,
        "cut_start": c.cut_start,
        "cut_end": c.cut_end,
        "verified": c.verified,
    }


def marker_link(n: int, target: Target) -> str:
    href = escape(seek_href(target.video_id, target.start))
    return f'<a href="{href}" title="{escape(clock(target.start))}">[{n}]</a>'


def answer_html(text: str, targets: Mapping[int, Target]) -> str:
    """Paragraphs (and `- ` bullet lists) of escaped text in which known `[n]` are links."""

    def link(match: re.Match[str]) -> str:
        n = int(match.group(1))
        target = targets.get(n)
        return marker_link(n, target) if target is not None else match.group(0)

    out: list[str] = []
    for paragraph in _PARAGRAPHS.split(text.strip()):
        lines = [MARKER.sub(link, escape(line)) for line in paragraph.strip().split("\n")]
        out += [_block(bullets, group) for bullets, group in _groups(lines) if group]
    return "".join(out)


def _groups(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """Runs of plain lines and of `- ` bullet lines (bullets stripped), in order."""
    groups: list[tuple[bool, list[str]]] = []
    for line in lines:
        bullet = _BULLET.match(line)
        if not groups or groups[-1][0] != bool(bullet):
            groups.append((bool(bullet), []))
        groups[-1][1].append(line[bullet.end() :] if bullet else line)
    return groups


def _block(bullets: bool, lines: list[str]) -> str:
    if bullets:
        return "<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul>"
    return "<p>" + "<br>".join(lines) + "</p>"


def linked_numbers(html: str) -> list[int]:
    """The numbers a rendered answer links (what tests and screenshots check)."""
    return [int(n) for n in re.findall(r'<a href="[^"]*"[^>]*>\[(\d+)\]</a>', html)]
