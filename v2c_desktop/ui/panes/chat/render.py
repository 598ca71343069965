"""An answer's text as safe rich text (and as Markdown to copy), and its citations as cards.

The text is escaped first; then each `[n]` becomes a seek link, but only when `n` is a
known target: a source of the answer while it streams (`AskMeta`), a citation once it is
done (`AskDone`). Numbers listed as unverified are never linked, and neither is any other
bracket, so a link always leads to a moment the core vouched for.

Markers are shown numbered as the reader meets them: the first cited source reads `[1]`,
the next new one `[2]`, whatever numbers the model used (`display_numbers`); the link and
the card keep the real source. A marker of no known target is left out of the display, so
no gap (`[1] [3]`) is ever shown.

An extractive answer's bullets end `[n] (m:ss)`: the time is where that quote starts, which
for a source quoted twice is not its citation's start, so both the marker and the time link
there (`quote_times`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from v2c_desktop.core.ask.events import Citation, SourceInfo, with_ellipses
from v2c_desktop.core.ids import split_video_id
from v2c_desktop.core.timecode import clock

from ...links import seek_href
from ...rich_text import escape

MARKER = re.compile(r"\[(\d+)\]")
#: A marker as shown, with the spaces before it (dropped with a marker of no target).
_SPACED_MARKER = re.compile(r"[ \t]*\[(\d+)\]")
#: `[n] (m:ss)` at the end of an extractive bullet, its quote in “…” before it.
_QUOTE_TIME = re.compile(r"\[(\d+)\] \(((?:\d+:)?\d+:\d\d)\)")
_QUOTED = re.compile(r"“(.*)”\s*$")
_PARAGRAPHS = re.compile(r"\n\s*\n")
_BULLET = re.compile(r"^\s*[-*•]\s+")
_ELLIPSIS = "…"


@dataclass(frozen=True)
class Target:
    """Where a `[n]` link plays, and the quote it stands for ("" while it streams)."""

    video_id: str
    start: float
    quote: str = ""
    url: str = ""


@dataclass(frozen=True)
class CitationCard:
    """What a source card shows (from a live `Citation` or a saved chat's dict).

    `n` is the source's real number; `shown` the number the reader sees (see the module).
    `raw_quote` is the quote without the `…` marks, for a reader to find in the transcript.
    """

    n: int
    video_id: str
    title: str
    start: float
    end: float
    quote: str
    verified: bool
    raw_quote: str = ""
    url: str = ""
    shown: int = 0

    @property
    def time(self) -> str:
        return clock(self.start)

    @property
    def number(self) -> int:
        return self.shown or self.n


@dataclass(frozen=True)
class Rendered:
    """An answer as rich text, and what each of its seek links stands for."""

    html: str
    moments: dict[str, Target]
    numbers: dict[int, int]  # real source number -> the number shown


def targets_from_sources(sources: Iterable[SourceInfo]) -> dict[int, Target]:
    return {s.n: Target(s.video_id, s.start, "", s.url) for s in sources}


def cards_from_citations(
    citations: Iterable[Citation | Mapping[str, Any]], unverified: Iterable[int] = ()
) -> list[CitationCard]:
    """One card per cited number, in the order cited; unverified numbers and citations the
    core found unsupported (`reason` set) are left out, so they are never links."""
    skip = set(unverified)
    cards: dict[int, CitationCard] = {}
    for raw in citations:
        c = raw if isinstance(raw, Mapping) else _citation_dict(raw)
        n = int(c["n"])
        if n in skip or n in cards:
            continue
        if not c.get("verified", False) and c.get("reason"):
            continue  # the passage does not support its sentence: listed, never a link
        quote = str(c.get("quote") or "")
        cards[n] = CitationCard(
            n=n,
            video_id=str(c["video_id"]),
            title=str(c.get("title") or c["video_id"]),
            start=float(c["start"]),
            end=float(c.get("end") or c["start"]),
            quote=with_ellipses(
                quote, bool(c.get("cut_start", False)), bool(c.get("cut_end", False))
            ),
            verified=bool(c.get("verified", False)),
            raw_quote=quote,
            url=str(c.get("url") or ""),
        )
    return list(cards.values())


def targets_from_cards(cards: Iterable[CitationCard]) -> dict[int, Target]:
    return {c.n: Target(c.video_id, c.start, c.raw_quote, c.url) for c in cards}


def _citation_dict(c: Citation) -> dict[str, Any]:
    return {
        "n": c.n,
        "video_id": c.video_id,
        "title": c.title,
        "url": c.url,
        "start": c.start,
        "end": c.end,
        "quote": c.quote,
        "cut_start": c.cut_start,
        "cut_end": c.cut_end,
        "verified": c.verified,
    }


# -- numbering ----------------------------------------------------------------------------
def display_numbers(text: str, known: Iterable[int]) -> dict[int, int]:
    """Real source number -> the number shown: 1, 2, ... in order of first appearance of
    the known numbers in `text`."""
    valid = set(known)
    shown: dict[int, int] = {}
    for match in MARKER.finditer(text):
        n = int(match.group(1))
        if n in valid and n not in shown:
            shown[n] = len(shown) + 1
    return shown


def ordered_cards(text: str, cards: Iterable[CitationCard]) -> list[CitationCard]:
    """The cards in the order the text first cites them, each once, with the number shown;
    a card the text does not cite (an old saved chat) comes last."""
    first: dict[int, CitationCard] = {}
    for card in cards:
        first.setdefault(card.n, card)
    unique = list(first.values())
    numbers = display_numbers(text, [c.n for c in unique])
    cited = sorted((c for c in unique if c.n in numbers), key=lambda c: numbers[c.n])
    rest = [c for c in unique if c.n not in numbers]
    return [replace(c, shown=i) for i, c in enumerate([*cited, *rest], start=1)]


# -- rich text ----------------------------------------------------------------------------
def render_answer(
    text: str, targets: Mapping[int, Target], *, quote_times: bool = False
) -> Rendered:
    """Paragraphs (and `- ` bullet lists) of escaped text in which known `[n]` are links,
    numbered as read; with `quote_times`, a bullet's `[n] (m:ss)` both link to m:ss."""
    numbers = display_numbers(text, targets)
    moments: dict[str, Target] = {}
    out: list[str] = []
    for paragraph in _PARAGRAPHS.split(text.strip()):
        lines = [
            _line_html(line, targets, numbers, moments, quote_times)
            for line in paragraph.strip().split("\n")
        ]
        out += [_block(bullets, group) for bullets, group in _groups(lines) if group]
    return Rendered("".join(out), moments, numbers)


def answer_html(text: str, targets: Mapping[int, Target], *, quote_times: bool = False) -> str:
    return render_answer(text, targets, quote_times=quote_times).html


def _line_html(
    line: str,
    targets: Mapping[int, Target],
    numbers: Mapping[int, int],
    moments: dict[str, Target],
    quote_times: bool,
) -> str:
    own = _quote_moment(line, targets) if quote_times else None
    pieces: list[str] = []
    at = 0
    for match in _SPACED_MARKER.finditer(line):
        n = int(match.group(1))
        pieces.append(escape(line[at : match.start()]))
        at = match.end()
        target = targets.get(n)
        if target is None:
            continue  # no such source (or unverified): not shown, so no gap in the numbers
        if own is not None and own[0] == match.start(1) - 1:
            target = own[1]
        space = match.group(0)[: match.start(1) - 1 - match.start()]
        pieces.append(escape(space) + _link(f"[{numbers[n]}]", target, moments))
    rest = line[at:]
    if own is not None and rest.startswith(" (") and rest[2:].startswith(clock(own[1].start)):
        time_text = f"({clock(own[1].start)})"
        pieces.append("&nbsp;" + _link(time_text, own[1], moments))  # `[n] (m:ss)` stay one
        rest = rest[1 + len(time_text) :]
    pieces.append(escape(rest))
    return "".join(pieces)


def _quote_moment(line: str, targets: Mapping[int, Target]) -> tuple[int, Target] | None:
    """(where its marker starts, the moment) of a bullet ending `“quote” [n] (m:ss)`: its
    own time in the cited video, exactly the citation's start when the clocks agree."""
    found = list(_QUOTE_TIME.finditer(line))
    match = found[-1] if found else None
    if match is None or line[match.end() :].strip():
        return None
    target = targets.get(int(match.group(1)))
    if target is None:
        return None
    quoted = _QUOTED.search(line[: match.start()])
    quote = quoted.group(1).strip(_ELLIPSIS) if quoted else ""
    shown = match.group(2)
    if clock(target.start) == shown:
        return match.start(), replace(target, quote=quote or target.quote)
    seconds = float(sum(int(p) * 60**i for i, p in enumerate(reversed(shown.split(":")))))
    return match.start(), Target(target.video_id, seconds, quote, moment_url(target, seconds))


def _link(label: str, target: Target, moments: dict[str, Target]) -> str:
    href = seek_href(target.video_id, target.start)
    moments.setdefault(href, target)
    title = escape(clock(target.start))
    return f'<a href="{escape(href)}" title="{title}">{escape(label)}</a>'


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


# -- Markdown -----------------------------------------------------------------------------
def moment_url(target: Target, seconds: float) -> str:
    """A web link to `seconds` of the target's video: YouTube's own form, a `#t=` link moved
    to that second, else the citation's own link (its start)."""
    platform, native = split_video_id(target.video_id)
    if platform == "youtube":
        return f"https://www.youtube.com/watch?v={native}&t={max(0, int(seconds))}s"
    if "#t=" in target.url:
        return f"{target.url.split('#t=')[0]}#t={max(0.0, seconds):g}"
    return target.url


def answer_markdown(text: str, cards: Iterable[CitationCard], *, quote_times: bool = False) -> str:
    """The answer as a person would paste it: the text with each marker (numbered as
    shown) a timestamp link, then the sources cited, in that order."""
    ordered = ordered_cards(text, cards)
    targets = targets_from_cards(ordered)
    numbers = {c.n: c.number for c in ordered}
    lines: list[str] = []
    for line in text.strip().split("\n"):
        own = _quote_moment(line, targets) if quote_times else None

        def link(match: re.Match[str], own: tuple[int, Target] | None = own) -> str:
            n = int(match.group(1))
            target = targets.get(n)
            if target is None:
                return ""
            if own is not None and own[0] == match.start(1) - 1:
                target = own[1]
            label = f"[{numbers[n]}]"
            space = match.group(0)[: match.start(1) - 1 - match.start()]
            return f"{space}[{label}]({target.url})" if target.url else f"{space}{label}"

        lines.append(_SPACED_MARKER.sub(link, line))
    out = ["\n".join(lines).strip()]
    if ordered:
        out += ["", "Sources:", ""]
        for card in ordered:
            where = f"{card.title} @ {card.time}"
            head = f"[{where}]({card.url})" if card.url else where
            quote = card.quote.replace("\n", " ")
            out.append(f"- [{card.number}] {head}" + (f": “{quote}”" if quote else ""))
    return "\n".join(out).rstrip() + "\n"
