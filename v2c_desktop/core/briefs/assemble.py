"""A finished `Brief` from what the model path (or the extractive path) produced.

Says what became of every video (read with how many citations, a copy counted once, not
read and why), whether the brief is complete or partial (complete only when what it claims
is cited: every point, a model's bottom line, every item of a template, every value of your
schema), and the notes a reader needs when nothing could be cited. Pure over its inputs:
the brief service uses it before saving, and a digest written by an MCP client's model
(`digest.py`) uses it as it is.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from ..domain.videos import VideoRecord
from ..models.types import ChatModel
from .events import Brief, BriefRequest, SourceCoverage, StageTiming
from .evidence import Evidence
from .generate import Generated
from .sources import BriefSource


def assemble_brief(
    request: BriefRequest,
    spec_name: str,
    sources: Sequence[BriefSource],
    records: Sequence[VideoRecord],
    chain: Sequence[ChatModel],
    generated: Generated,
    timings: Sequence[StageTiming],
) -> Brief:
    cited: dict[str, int] = {}
    for c in generated.bottom_line_citations:  # a video may be cited by the bottom line only
        cited[c.video_id] = cited.get(c.video_id, 0) + 1
    for topic in generated.topics:
        for point in topic.points:
            for c in [*point.support, *point.oppose]:
                cited[c.video_id] = cited.get(c.video_id, 0) + 1
    for citations in generated.data_citations.values():
        for c in citations:
            cited[c.video_id] = cited.get(c.video_id, 0) + 1
    coverage: list[SourceCoverage] = []
    copies = {copy: s for s in sources for copy in s.copies}
    by_id = {r.video.id: r for r in records}
    for source in sources:
        reason = generated.not_read.get(source.video_id, "")
        coverage.append(
            SourceCoverage(
                source.video_id,
                source.title,
                "not-read" if reason else "read",
                cited.get(source.video_id, 0),
                reason,
                list(source.copies),
            )
        )
    for copy, original in copies.items():
        title = by_id[copy].video.title or copy
        coverage.append(
            SourceCoverage(copy, title, "duplicate", reason=f"a copy of {original.title}")
        )
    limitations: list[str] = list(generated.limitations)
    if chain and not chain[0].info.capable:
        limitations.append(
            f"{chain[0].info.label or chain[0].info.id} is a small test model: expect few "
            "points and weak wording (every quote shown was still checked)"
        )
    if generated.removed_items:
        limitations.append(
            f"{generated.removed_items} items were left out because none of their quotes "
            "checked out"
        )
    not_read = [c for c in coverage if c.status == "not-read"]
    has_content = bool(generated.topics) or bool(generated.data)
    bottom_uncited = generated.model_bottom_line and not generated.bottom_line_citations
    if bottom_uncited and has_content:
        limitations.append(
            "the bottom line cites no evidence that checked out: read it as the model's "
            "summary of the points, not as a cited finding"
            if generated.bottom_line
            else "the model wrote no bottom line"
        )
    complete = (
        has_content
        and not bottom_uncited
        and not generated.notes
        and not not_read
        and not generated.removed_items
        and not generated.uncited
    )
    evidence = generated.evidence or Evidence(sources)
    notes = list(generated.notes)
    if not has_content and not notes and not chain:
        notes.append("no passage of these videos matches the question")
    elif not has_content and not notes:
        rejected = len(evidence.unverified)
        notes.append(
            f"nothing could be cited: none of the model's {rejected} quotes checked out "
            "against the transcripts (they are listed under the claims left out)"
            if rejected
            else "nothing could be cited: the model quoted nothing from the videos"
        )
    served = sorted(generated.served_by)
    brief_id = request.rerun or f"brief-{secrets.token_hex(6)}"
    title = request.title or generated.title or request.question.strip()[:80]
    return Brief(
        id=brief_id,
        title=title,
        question=request.question,
        template=spec_name,
        bottom_line=generated.bottom_line,
        bottom_line_citations=generated.bottom_line_citations,
        topics=generated.topics,
        coverage=coverage,
        unverified=list(evidence.unverified),
        limitations=limitations,
        notes=notes,
        status="complete" if complete else "partial",
        extractive=not chain,
        model=", ".join(served) if served else None,
        pass_kind="extractive" if not chain else generated.pass_kind,  # type: ignore[arg-type]
        timings=[*timings, *generated.timings],
        data=generated.data,
        data_citations=generated.data_citations,
        uncited=generated.uncited,
        reused_maps=generated.reused_maps,
        scope=scope_of(request),
    )


def scope_of(request: BriefRequest) -> dict[str, Any]:
    return {
        "video_ids": list(request.video_ids),
        "collection": request.collection,
        "search": request.search,
        "template": request.template,
        "schema": request.schema,
        "model": request.model,
        "strict": request.strict,
        "extractive": request.extractive,
        "max_words": request.max_words,
        "skip_sponsors": request.skip_sponsors,
    }
