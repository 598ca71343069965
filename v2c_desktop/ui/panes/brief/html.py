"""A brief as the rich text the result view shows: the bottom line first (with its own
citations when a model wrote it), points by topic with a badge, every citation a
`title @ m:ss` link that seeks the player (its quote shown under it), template answers as
what they are (a comparison as a table, tutorial steps as a numbered list), the claims left
out collapsed behind a link, and the footer facts last.

Titles, quotes and model text are untrusted: every piece is HTML-escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from v2c_desktop.core.briefs.events import Brief, BriefCitation, BriefPoint
from v2c_desktop.core.timecode import clock

from ...links import seek_href

TOGGLE_UNVERIFIED = "v2c-brief:unverified"
BADGE = {
    "consensus": ("consensus", "#2e7d32"),
    "disagreement": ("disagreement", "#c62828"),
    "single-source": ("single source", "#6d6d6d"),
}
REASON = {
    "quote-not-found": "the quote is not in the video's transcript",
    "quote-at-other-time": "the quote is in the video, but not at the time given",
    "unknown-video": "the claim cites a video that was not among the sources",
    "no-quote": "the claim came with no quote to check",
    "quote-too-short": "the quote is too short to check",
    "bad-timestamp": "the time given is not a time in the video",
}


def _flat(text: str) -> str:
    return " ".join(text.split()).strip('“”"… ')


def citation_link(c: BriefCitation, said: str = "") -> str:
    """`Title @ m:ss` as a seek link whose tooltip is the quote, the quote in italics
    beside it too (unless it is `said` already: an extractive point is its quote)."""
    label = f"{c.title} @ {clock(c.start)}"
    href, quote = escape(seek_href(c.video_id, c.start)), escape(_flat(c.quote))
    link = f'<a href="{href}" title="“{quote}”">{escape(label)}</a>'
    if said and _flat(c.quote) == _flat(said):
        return link
    return f"{link} <i>“{quote}”</i>"


def _citations(citations: list[BriefCitation], said: str = "") -> str:
    if not citations:
        return ""
    items = "".join(f"<li>{citation_link(c, said)}</li>" for c in citations)
    return f"<ul>{items}</ul>"


def _badge(point: BriefPoint, extractive: bool) -> str:
    text, colour = BADGE[point.kind]
    if extractive:
        videos = len({c.video_id for c in point.support})
        text = f"shared by {videos} videos" if videos > 1 else "one video"
    return f'<span style="color:{colour}; font-weight:600">[{escape(text)}]</span>'


def _point(point: BriefPoint, extractive: bool) -> str:
    out = f"<li>{escape(point.text)} {_badge(point, extractive)}"
    out += _citations(point.support, point.text)
    if point.oppose:
        counter = f": {escape(point.counter)}" if point.counter else ""
        out += f"<p><b>The other side</b>{counter}</p>{_citations(point.oppose)}"
    return out + "</li>"


def brief_html(brief: Brief, *, show_unverified: bool = False) -> str:
    parts = [f"<h2>{escape(brief.title or 'Brief')}</h2>"]
    parts.append(f"<p><b>Question:</b> {escape(brief.question)}</p>")
    if brief.status == "partial":
        missing = "; ".join(missing_parts(brief)) or "some of it could not be done"
        parts.append(f'<p style="color:#b26a00"><b>Partial:</b> {escape(missing)}</p>')
    if brief.bottom_line:
        parts.append(f"<h3>Bottom line</h3><p>{escape(brief.bottom_line)}</p>")
        parts.append(_citations(brief.bottom_line_citations))  # its evidence, as a point's
    if brief.reused_maps:
        parts.append(
            f"<p><i>Re-run: the reading of {brief.reused_maps} parts was reused from the last "
            "run; only new or changed videos were read again.</i></p>"
        )
    for topic in brief.topics:
        points = "".join(_point(p, brief.extractive) for p in topic.points)
        parts.append(f"<h3>{escape(topic.name)}</h3><ul>{points}</ul>")
    if brief.data is not None:
        parts.append(_data(brief))
    parts.append(_unverified(brief, show_unverified))
    parts.append(_footer(brief))
    return "".join(parts)


def missing_parts(brief: Brief) -> list[str]:
    """What a partial brief lacks, in words: its notes, the videos not read and why, the
    answer's values no verified quote supports."""
    out = list(brief.notes)
    for source in brief.coverage:
        if source.status == "not-read":
            why = f" ({source.reason})" if source.reason else ""
            said = f"{source.title} was not read{why}"
            if not any(source.title in note for note in out):
                out.append(said)
    if brief.uncited:
        count = len(brief.uncited)
        out.append(
            f"{count} value{'s' if count > 1 else ''} of the answer "
            f"{'have' if count > 1 else 'has'} no verified citation"
        )
    return out


# -- template answers -------------------------------------------------------------------------
def _cites_at(brief: Brief, pointer: str) -> str:
    citations = brief.data_citations.get(pointer) or []
    return "<br>".join(citation_link(c) for c in citations)


def _text(value: Any) -> str:
    return escape(str(value if value is not None else ""))


def _data(brief: Brief) -> str:
    data = brief.data or {}
    if brief.template == "comparison" and isinstance(data.get("options"), list):
        return _comparison(brief, data)
    if brief.template == "tutorial-steps" and isinstance(data.get("steps"), list):
        return _tutorial(brief, data)
    rows = "".join(
        f"<li><b>{escape(pointer)}</b>: {_text(_at(data, pointer))}<br>{_cites_at(brief, pointer)}"
        "</li>"
        for pointer in sorted(brief.data_citations)
    )
    uncited = "".join(f"<li>{escape(p)}</li>" for p in brief.uncited)
    out = f"<h3>Answer</h3><ul>{rows}</ul>"
    if uncited:
        out += f"<p>Values no verified citation supports:</p><ul>{uncited}</ul>"
    return out


def _comparison(brief: Brief, data: dict[str, Any]) -> str:
    criteria = [str(c) for c in data.get("criteria") or []]
    head = "".join(f"<th>{escape(c)}</th>" for c in criteria)
    rows = []
    for i, option in enumerate(data.get("options") or []):
        if not isinstance(option, dict):
            continue
        cells = {}
        for j, cell in enumerate(option.get("cells") or []):
            if isinstance(cell, dict):
                cites = _cites_at(brief, f"/options/{i}/cells/{j}")
                cells[str(cell.get("criterion"))] = f"{_text(cell.get('value'))}<br>{cites}"
        row = "".join(f"<td>{cells.get(c, '')}</td>" for c in criteria)
        rows.append(f"<tr><td><b>{_text(option.get('name'))}</b></td>{row}</tr>")
    table = (
        '<table border="1" cellspacing="0" cellpadding="4">'
        f"<tr><th></th>{head}</tr>{''.join(rows)}</table>"
    )
    verdict = data.get("verdict")
    out = f"<h3>Comparison</h3>{table}"
    if isinstance(verdict, dict) and verdict.get("text"):
        out += f"<p><b>Verdict:</b> {_text(verdict['text'])}<br>{_cites_at(brief, '/verdict')}</p>"
    return out


def _tutorial(brief: Brief, data: dict[str, Any]) -> str:
    out = "<h3>Steps</h3>"
    if data.get("goal"):
        out += f"<p><b>Goal:</b> {_text(data['goal'])}</p>"
    for key, title in (("prerequisites", "Before you start"),):
        items = [x for x in data.get(key) or [] if isinstance(x, dict)]
        if items:
            lis = "".join(
                f"<li>{_text(x.get('text'))}<br>{_cites_at(brief, f'/{key}/{i}')}</li>"
                for i, x in enumerate(items)
            )
            out += f"<p><b>{title}</b></p><ul>{lis}</ul>"
    steps = []
    for i, step in enumerate(data.get("steps") or []):
        if isinstance(step, dict):
            values = ", ".join(str(v) for v in step.get("values") or [])
            extra = f" <i>({escape(values)})</i>" if values else ""
            cites = _cites_at(brief, f"/steps/{i}")
            steps.append(f"<li>{_text(step.get('instruction'))}{extra}<br>{cites}</li>")
    out += f"<ol>{''.join(steps)}</ol>"
    pitfalls = [x for x in data.get("pitfalls") or [] if isinstance(x, dict)]
    if pitfalls:
        lis = "".join(
            f"<li>{_text(x.get('text'))}<br>{_cites_at(brief, f'/pitfalls/{i}')}</li>"
            for i, x in enumerate(pitfalls)
        )
        out += f"<p><b>Pitfalls</b></p><ul>{lis}</ul>"
    return out


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


# -- the end ----------------------------------------------------------------------------------
def _unverified(brief: Brief, shown: bool) -> str:
    if not brief.unverified:
        return ""
    count = len(brief.unverified)
    arrow = "▾" if shown else "▸"
    out = (
        f'<h3><a href="{TOGGLE_UNVERIFIED}">{arrow} Claims left out ({count})</a></h3>'
        "<p><i>Their quotes did not check out against the transcripts, so they are not in the "
        "brief.</i></p>"
    )
    if shown:
        items = []
        for claim in brief.unverified:
            why = REASON.get(claim.reason, claim.reason)
            if claim.found_at is not None:
                why += f" (it is said at {clock(claim.found_at)})"
            quote = f" <i>“{escape(claim.quote)}”</i>" if claim.quote else ""
            items.append(f"<li>{escape(claim.claim or '(no claim)')}{quote}: {escape(why)}</li>")
        out += f"<ul>{''.join(items)}</ul>"
    return out


def _footer(brief: Brief) -> str:
    out = ""
    if brief.coverage:
        rows = []
        for source in brief.coverage:
            if source.status == "read":
                what = f"read, {source.claims} cited"
            elif source.status == "duplicate":
                what = escape(source.reason or "a copy of another video, counted once")
            else:
                what = f"not read ({escape(source.reason)})"
            rows.append(f"<li>{escape(source.title)}: {what}</li>")
        out += f"<h3>Coverage</h3><ul>{''.join(rows)}</ul>"
    if brief.limitations:
        items = "".join(f"<li>{escape(x)}</li>" for x in brief.limitations)
        out += f"<h3>Limitations</h3><ul>{items}</ul>"
    if brief.notes:
        out += f"<h3>Notes</h3><ul>{''.join(f'<li>{escape(x)}</li>' for x in brief.notes)}</ul>"
    stages = ", ".join(
        f"{t.stage} {t.ms / 1000:.1f} s" + (f" ({t.model})" if t.model else "")
        for t in brief.timings
    )
    how = "extractive (no model)" if brief.extractive else f"model {brief.model or 'unknown'}"
    facts = [f"Status: {brief.status}", how, brief.pass_kind, stages]
    line = " · ".join(f for f in facts if f)
    return out + f'<p style="color:#6d6d6d">{escape(line)}</p>'
