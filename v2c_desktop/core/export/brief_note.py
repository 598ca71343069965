"""The note of one brief: the bottom line first (with its citations), points with their consensus /
disagreement / single-source label, every citation twice (a timestamp URL that plays, and
a wikilink to the video note's line), template results as Markdown, and the appendix of
claims that failed verification."""

from __future__ import annotations

from typing import Any

from ..briefs.events import Brief, BriefCitation, BriefPoint
from ..briefs.render import _at as value_at
from ..briefs.render import _summary as value_text
from ..timecode import clock
from .frontmatter import Item, Link, Value, date_or_none
from .inert import inert
from .links import Anchor, safe_url, wikilink
from .note import Rendered

BRIEF_KEYS = (
    "title",
    "question",
    "template",
    "scope",
    "model",
    "status",
    "created",
    "videos",
)
BRIEF_TAG = "v2c/brief"
KIND_LABEL = {
    "consensus": "consensus",
    "disagreement": "disagreement",
    "single-source": "single source",
}


def cite(c: BriefCitation, anchors: dict[str, Anchor]) -> str:
    """`[Title @ 1:23](url) “quote” · [[v2c/Videos/Title#^t-83|1:23]]`."""
    url = safe_url(c.url)
    shown = f"{inert(c.title)} @ {clock(c.start)}"
    out = f"[{shown}]({url})" if url else shown
    if c.quote:
        out += f" “{inert(c.quote)}”"
    anchor = anchors.get(c.video_id)
    if anchor is not None:
        out += " · " + wikilink(anchor.target, anchor.block(c.start), clock(c.start))
    return out


def _point(point: BriefPoint, anchors: dict[str, Anchor]) -> list[str]:
    lines = [f"- {inert(point.text)} *({KIND_LABEL.get(point.kind, point.kind)})*"]
    lines += [f"  - {cite(c, anchors)}" for c in point.support]
    if point.oppose:
        counter = f": {inert(point.counter)}" if point.counter else ""
        lines.append(f"  - Against{counter}")
        lines += [f"    - {cite(c, anchors)}" for c in point.oppose]
    return lines


def _cites_under(brief: Brief, pointer: str) -> list[BriefCitation]:
    out: list[BriefCitation] = []
    for key, citations in sorted(brief.data_citations.items()):
        if key == pointer or key.startswith(pointer + "/"):
            out += citations
    return out


def _cell(text: Any) -> str:
    return inert(str(text or "")) or " "


def _comparison(brief: Brief, data: dict[str, Any], anchors: dict[str, Anchor]) -> list[str]:
    criteria = [str(c) for c in data.get("criteria") or [] if isinstance(c, str)]
    options = [o for o in data.get("options") or [] if isinstance(o, dict)]
    out = ["## Comparison", ""]
    if criteria and options:
        out.append("| Option | " + " | ".join(_cell(c) for c in criteria) + " |")
        out.append("|---" * (len(criteria) + 1) + "|")
        for option in options:
            cells = {
                str(c.get("criterion")): c.get("value")
                for c in option.get("cells") or []
                if isinstance(c, dict)
            }
            row = [_cell(option.get("name"))] + [_cell(cells.get(c)) for c in criteria]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
        for i, option in enumerate(options):
            cites = _cites_under(brief, f"/options/{i}")
            if cites:
                out.append(f"- {_cell(option.get('name'))}")
                out += [f"  - {cite(c, anchors)}" for c in cites]
        out.append("")
    verdict = data.get("verdict")
    if isinstance(verdict, dict) and verdict.get("text"):
        out += ["**Verdict:** " + inert(str(verdict["text"])), ""]
        out += [f"- {cite(c, anchors)}" for c in _cites_under(brief, "/verdict")]
        out.append("")
    return out


def _steps(brief: Brief, data: dict[str, Any], anchors: dict[str, Anchor]) -> list[str]:
    out = ["## Steps", ""]
    if data.get("goal"):
        out += [f"**Goal:** {inert(str(data['goal']))}", ""]
    for name, title in (("prerequisites", "Before you start"), ("pitfalls", "Pitfalls")):
        items = [x for x in data.get(name) or [] if isinstance(x, dict)]
        if not items:
            continue
        out += [f"### {title}", ""]
        for i, item in enumerate(items):
            out.append(f"- {inert(str(item.get('text') or ''))}")
            out += [f"  - {cite(c, anchors)}" for c in _cites_under(brief, f"/{name}/{i}")]
        out.append("")
    steps = [x for x in data.get("steps") or [] if isinstance(x, dict)]
    if steps:
        out += ["### Steps", ""]
    for i, step in enumerate(steps, start=1):
        out.append(f"{i}. {inert(str(step.get('instruction') or ''))}")
        values = [inert(str(v)) for v in step.get("values") or []]
        if values:
            out.append(f"    - Values: {'; '.join(values)}")
        out += [f"    - {cite(c, anchors)}" for c in _cites_under(brief, f"/steps/{i - 1}")]
    return [*out, ""]


def _data(brief: Brief, anchors: dict[str, Anchor]) -> list[str]:
    data = brief.data
    if not isinstance(data, dict):
        return []
    if brief.template == "comparison":
        out = _comparison(brief, data, anchors)
    elif brief.template == "tutorial-steps":
        out = _steps(brief, data, anchors)
    else:  # buyer-guide, summary, a user's schema: each cited value, as the CLI shows it
        out = ["## Answer", ""]
        for pointer, citations in sorted(brief.data_citations.items()):
            out.append(f"- {_valued(data, pointer)}")
            out += [f"  - {cite(c, anchors)}" for c in citations]
        out.append("")
    if brief.uncited:
        out += ["Values no verified citation supports:", ""]
        out += [f"- {_valued(data, p)}" for p in brief.uncited]
        out.append("")
    return out


def _valued(data: dict[str, Any], pointer: str) -> str:
    """`/models/0: name: Golf; years: 2015-2018` (the value at a JSON pointer, flattened
    by the same rules as `briefs.render`), or the pointer alone when nothing is there."""
    value = value_at(data, pointer)
    shown = inert(value_text(value)) if value is not None else ""
    return f"{inert(pointer)}: {shown}" if shown else inert(pointer)


def cited_videos(brief: Brief) -> list[str]:
    """Every video a brief cites, in first-cited order: in its bottom line, its points and
    its template results (comparison cells, tutorial steps, a schema's values). The export
    brings these videos' notes with the brief, since its citations link to their lines."""
    cited = [c.video_id for c in brief.bottom_line_citations]
    cited += [c.video_id for p in brief.points for c in [*p.support, *p.oppose]]
    cited += [c.video_id for _, cs in sorted(brief.data_citations.items()) for c in cs]
    return list(dict.fromkeys(cited))


def brief_title(brief: Brief) -> str:
    """The brief's title (its question when it has none): the `title` property and how
    the index lists it."""
    return brief.title or brief.question or "Brief"


def brief_body(brief: Brief, anchors: dict[str, Anchor]) -> str:
    out = [f"# {inert(brief.title) or 'Brief'}", "", f"**Question:** {inert(brief.question)}", ""]
    if brief.extractive:
        out += ["*Extractive brief: passages quoted from the videos, no model wrote it.*", ""]
    if brief.bottom_line:
        out += ["## Bottom line", "", inert(brief.bottom_line), ""]
        if brief.bottom_line_citations:  # its evidence, written as a point's
            out += [*[f"- {cite(c, anchors)}" for c in brief.bottom_line_citations], ""]
    if brief.topics:
        out += ["## Points", ""]
    for topic in brief.topics:
        lines = [line for point in topic.points for line in _point(point, anchors)]
        if lines:
            out += [f"### {inert(topic.name) or 'Points'}", "", *lines, ""]
    out += _data(brief, anchors)
    if brief.limitations:
        out += ["## Limitations", "", *[f"- {inert(x)}" for x in brief.limitations], ""]
    if brief.unverified:
        out += ["## Claims left out (their quotes did not check out)", ""]
        for claim in brief.unverified:
            where = f" (found at {clock(claim.found_at)})" if claim.found_at is not None else ""
            said = f": “{inert(claim.quote)}”" if claim.quote else ""
            out.append(
                f"- {inert(claim.claim) or '(no claim)'}{said} — {inert(claim.reason)}{where}"
            )
        out.append("")
    if brief.coverage:
        out += ["## Coverage", ""]
        for source in brief.coverage:
            target = anchors.get(source.video_id)
            name = wikilink(target.target, text=source.title) if target else inert(source.title)
            status = (
                f"{source.status}, {source.claims} cited"
                if source.status == "read"
                else (source.status + (f" ({inert(source.reason)})" if source.reason else ""))
            )
            out.append(f"- {name}: {status}")
        out.append("")
    return "\n".join(out)


def _scope(brief: Brief) -> str:
    parts = [f"{k}: {v}" for k, v in sorted(brief.scope.items()) if isinstance(v, str | int)]
    return "; ".join(parts)


def brief_properties(brief: Brief, anchors: dict[str, Anchor]) -> dict[str, Value]:
    props: dict[str, Value] = {
        "title": brief_title(brief),
        "question": brief.question,
        "template": brief.template,
    }
    scope = _scope(brief)
    if scope:
        props["scope"] = scope
    if brief.model:
        props["model"] = brief.model
    props["status"] = brief.status
    created = date_or_none(brief.created_at)
    if created is not None:
        props["created"] = created
    cited = cited_videos(brief) + [s.video_id for s in brief.coverage if s.status == "read"]
    videos: list[Item] = [Link(anchors[v].target) for v in dict.fromkeys(cited) if v in anchors]
    if videos:
        props["videos"] = videos
    return props


def render_brief(brief: Brief, anchors: dict[str, Anchor]) -> Rendered:
    """The note for `brief`; `anchors` are the exported video notes its citations link to."""
    return Rendered(
        kind="brief",
        subject_id=brief.id,
        id_key="v2c_brief_id",
        owned_keys=BRIEF_KEYS,
        props=brief_properties(brief, anchors),
        inside=brief_body(brief, anchors),
        tags=[BRIEF_TAG],
    )
