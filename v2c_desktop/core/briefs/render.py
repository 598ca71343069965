"""A brief as Markdown (for people, files and agents) and as JSON, from the same object.

The Markdown leads with the bottom line, then the points by topic, each sentence followed
by its citations (`[Title @ m:ss](link)` with the quote), labelled consensus, disagreement
(both sides cited) or single-source. The main part stays within `max_words`; further points
move to a "More points" section, never away. Coverage, limitations, notes, the claims that
failed verification (with why) and timings close it. Titles and quotes are untrusted text:
they are flattened to one line and stripped of Markdown that could turn into links, code or
templates.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..timecode import clock
from .events import Brief, BriefCitation, BriefPoint

UNVERIFIED_SHOWN = 20
DEFAULT_WORDS = 400
KIND_LABEL = {
    "consensus": "consensus",
    "disagreement": "disagreement",
    "single-source": "single source",
}
_MARKUP = re.compile(r"([\\`*_\[\]<>{}|#~=$%])")


def inert(text: str) -> str:
    """Untrusted text as plain words on one line: every character Markdown (or a notes
    app's templates) could act on is escaped, so it shows as written and does nothing."""
    return _MARKUP.sub(r"\\\1", " ".join(str(text).split())).strip()


def cite(c: BriefCitation) -> str:
    return f"[{inert(c.title)} @ {clock(c.start)}]({c.url}) “{inert(c.quote)}”"


def _point_lines(point: BriefPoint, extractive: bool) -> list[str]:
    videos = len({c.video_id for c in point.support})
    if extractive:
        label = f"shared by {videos} videos" if videos > 1 else "one video"
    else:
        label = KIND_LABEL[point.kind]
    lines = [f"- {inert(point.text)} *({label})*"]
    lines += [f"  - {cite(c)}" for c in point.support]
    if point.oppose:
        counter = f": {inert(point.counter)}" if point.counter else ""
        lines.append(f"  - Against{counter}")
        lines += [f"    - {cite(c)}" for c in point.oppose]
    return lines


def _words(text: str) -> int:
    return len(text.split())


def markdown(brief: Brief, max_words: int = DEFAULT_WORDS) -> str:
    title = inert(brief.title) or "Brief"
    out = [f"# {title}", ""]
    if brief.extractive:
        out += [
            "*Extractive brief: no chat model wrote this; the passages that best match the "
            "question, quoted from the videos and grouped by topic.*",
            "",
        ]
    out += [f"**Question:** {inert(brief.question)}", ""]
    if brief.bottom_line:
        out += ["## Bottom line", "", inert(brief.bottom_line), ""]
        if brief.bottom_line_citations:
            out += [*[f"- {cite(c)}" for c in brief.bottom_line_citations], ""]
    if brief.data is not None:  # a template's answer leads; its other claims follow
        out += _data_section(brief)
    budget = max_words - _words(brief.bottom_line)
    more: list[tuple[str, BriefPoint]] = []
    if brief.topics:
        out += ["## Points", ""]
    for topic in brief.topics:
        shown: list[str] = []
        for point in topic.points:
            if budget - _words(point.text) < 0 and (shown or more):
                more.append((topic.name, point))
                continue
            budget -= _words(point.text)
            shown += _point_lines(point, brief.extractive)
        if shown:
            out += [f"### {inert(topic.name)}", "", *shown, ""]
    if more:
        out += ["## More points", ""]
        for name, point in more:
            out += [f"*{inert(name)}*", *_point_lines(point, brief.extractive), ""]
    out += _coverage(brief)
    if brief.limitations:
        out += ["## Limitations", "", *[f"- {inert(x)}" for x in brief.limitations], ""]
    if brief.notes:
        out += ["## Notes", "", *[f"- {inert(x)}" for x in brief.notes], ""]
    if brief.unverified:
        out += ["## Claims left out (their quotes did not check out)", ""]
        for claim in brief.unverified[:UNVERIFIED_SHOWN]:
            where = f" (found at {clock(claim.found_at)})" if claim.found_at is not None else ""
            out.append(f"- {inert(claim.claim) or '(no claim)'}: {claim.reason}{where}")
        if len(brief.unverified) > UNVERIFIED_SHOWN:
            hidden = len(brief.unverified) - UNVERIFIED_SHOWN
            out.append(f"- and {hidden} more (all of them are in the JSON form of this brief)")
        out.append("")
    out += _footer(brief)
    return "\n".join(out).rstrip() + "\n"


def _data_section(brief: Brief) -> list[str]:
    out = ["## Answer", ""]
    for pointer, citations in sorted(brief.data_citations.items()):
        value = _at(brief.data, pointer)
        out.append(f"- {inert(pointer)}: {inert(_summary(value))}")
        out += [f"  - {cite(c)}" for c in citations]
    if brief.uncited:
        out += ["", "Values no verified citation supports:", ""]
        out += [f"- {inert(p)}" for p in brief.uncited]
    return [*out, ""]


def _at(data: Any, pointer: str) -> Any:
    value = data
    for part in [p for p in pointer.split("/") if p]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def _summary(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items() if isinstance(v, str | int | float))
    return str(value)


def _coverage(brief: Brief) -> list[str]:
    if not brief.coverage:
        return []
    out = ["## Coverage", ""]
    for source in brief.coverage:
        if source.status == "read":
            copies = f"; copies counted once: {', '.join(source.copies)}" if source.copies else ""
            out.append(f"- {inert(source.title)}: read, {source.claims} cited{copies}")
        elif source.status == "duplicate":
            out.append(f"- {inert(source.title)}: a copy of another video, counted once")
        else:
            out.append(f"- {inert(source.title)}: not read ({inert(source.reason)})")
    return [*out, ""]


def _footer(brief: Brief) -> list[str]:
    stages = ", ".join(
        f"{t.stage} {t.ms / 1000:.1f} s" + (f" ({t.model})" if t.model else "")
        for t in brief.timings
    )
    how = "extractive" if brief.extractive else f"model {brief.model or 'unknown'}"
    return [
        "---",
        f"Status: {brief.status}; {how}; {brief.pass_kind}; {stages}.",
    ]


def words_of(brief: Brief) -> int:
    """The length the brief was asked for (`max_words`, kept in its scope), else the default."""
    try:
        return int(brief.scope.get("max_words") or DEFAULT_WORDS)
    except (TypeError, ValueError):
        return DEFAULT_WORDS


def as_json(brief: Brief, max_words: int | None = None) -> dict[str, Any]:
    """The brief as plain JSON (what `--json` and MCP `format: json` return); its Markdown
    at the length the request asked for (`max_words`, by default the one it was built with)."""
    out = dataclasses.asdict(brief)
    out["markdown"] = markdown(brief, max_words or words_of(brief))
    return out
