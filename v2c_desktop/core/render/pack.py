"""The context pack: several transcripts in one Markdown document that fits a token budget.

An agent asked about a set of videos wants one read, not twenty calls, but its context is
finite. The budget is shared out fairly ("water-filling": short videos are included whole,
the rest split what is left), and each transcript that does not fit whole is cut on a
caption boundary with the cursor to read on, so nothing is silently lost. Inputs that could
not be read are listed under "Not included" with the reason, never dropped quietly.

This is text only; what a pack holds (the videos read, what was left out) is gathered by
`core.gather.pack`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.videos import VideoRecord
from ..timecode import clock
from .formats import render
from .header import context_header
from .paging import paginate
from .tokens import estimate_tokens

# Below this many tokens for the transcript itself a cut-down video is not worth including.
MIN_BODY_TOKENS = 120
# Headings and the contents line of each video, budgeted up front.
PER_VIDEO_OVERHEAD = 40


@dataclass(frozen=True, slots=True)
class Omitted:
    """An input left out of the pack, and why (an error code, or `budget` / `limit`)."""

    input: str
    code: str
    message: str
    hint: str = ""

    def line(self) -> str:
        hint = f" ({self.hint})" if self.hint else ""
        return f"- {self.input}: {self.code}: {self.message}{hint}"


def share_budget(sizes: Sequence[int], budget: int) -> list[int]:
    """Tokens for each item: whole when it fits an equal share, else an equal share of the rest."""
    allotted = [0] * len(sizes)
    left, remaining = budget, len(sizes)
    for index in sorted(range(len(sizes)), key=lambda i: sizes[i]):
        share = left // remaining if remaining else 0
        allotted[index] = min(sizes[index], share)
        left -= allotted[index]
        remaining -= 1
    return allotted


def render_pack(
    title: str, records: Sequence[VideoRecord], omitted: Sequence[Omitted], max_tokens: int
) -> str:
    """The pack: intro, contents, one section per video, then "Not included"."""
    omitted = list(omitted)
    intro = [
        f"# Context pack: {title}",
        "",
        "Transcripts with [m:ss] times. Cite every claim as [Video title @ m:ss](timestamp "
        "link); a video's link opens it at any second (see its URL line).",
    ]
    fixed = estimate_tokens("\n".join(intro)) + 60 + sum(estimate_tokens(o.line()) for o in omitted)
    budget = max(0, max_tokens - fixed - PER_VIDEO_OVERHEAD * len(records))
    headers = [estimate_tokens(context_header(r)) for r in records]
    # the whole page as paginate renders it: header, [m:ss] lines and the trailer line
    sizes = [estimate_tokens(render(r, "text")) + 20 for r in records]
    allotted = share_budget(sizes, budget)
    contents: list[str] = []
    sections: list[str] = []
    used = 0
    for record, header, size, allot in zip(records, headers, sizes, allotted, strict=True):
        label = record.video.title or record.video.id
        if allot < size and allot - header < MIN_BODY_TOKENS:
            omitted.append(
                Omitted(
                    record.video.id,
                    "budget",
                    f"no room left in maxTokens for {label!r}",
                    "raise maxTokens, pass fewer videos, or read it with get_transcript",
                )
            )
            continue
        page = paginate(record, "text", max_tokens=max(allot, 1))
        number = len(sections) + 1
        if page.next_cursor is None:
            extent = "whole"
        else:
            cut = record.transcript.segments[page.last_segment].end
            extent = (
                f"first {clock(cut)} of {clock(record.duration)}; read on with get_transcript "
                f'{{"url": "{record.video.id}", "maxTokens": ..., "cursor": "{page.next_cursor}"}}'
            )
        contents.append(f"{number}. {label} ({clock(record.duration)}, {extent})")
        sections.append(f"## {number}. {label}\n\n{page.text.rstrip()}")
        used += page.tokens
    lines = [*intro, "", f"{len(sections)} videos, about {used:,} tokens of transcript.", ""]
    if contents:
        lines += ["## Contents", "", *contents, ""]
    body = "\n".join(lines)
    parts = [body.rstrip(), *sections]
    if omitted:
        parts.append("## Not included\n\n" + "\n".join(o.line() for o in omitted))
    return "\n\n".join(parts) + "\n"
