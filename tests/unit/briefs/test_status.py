"""A brief calls itself complete only when what it claims is cited: its points and, when a
model wrote it, its bottom line (every citation checked against the transcript)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.events import Brief, BriefRequest
from v2c_desktop.core.briefs.render import markdown

pytestmark = pytest.mark.corpus


def brief_by(tmp_path: Path, writer: BriefWriter) -> Brief:
    async def go() -> Brief:
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            _, brief = await build(api, BriefRequest(QUESTION, collection="Memory"))
            return brief
        finally:
            await api.aclose()

    return run(go(), timeout=120)


@pytest.mark.parametrize("window", [4096, 200_000], ids=["map-reduce", "one-pass"])
def test_an_uncited_bottom_line_makes_the_brief_partial(tmp_path: Path, window: int) -> None:
    brief = brief_by(tmp_path, BriefWriter(context_window=window, cite_bottom_line=False))
    assert brief.bottom_line and not brief.bottom_line_citations
    assert brief.points and all(p.support for p in brief.points)  # every point is cited
    assert not brief.notes  # nothing failed: it is the bottom line alone
    assert brief.status == "partial"
    assert any("bottom line cites no evidence" in x for x in brief.limitations)


@pytest.mark.parametrize("window", [4096, 200_000], ids=["map-reduce", "one-pass"])
def test_a_cited_bottom_line_shows_its_evidence(tmp_path: Path, window: int) -> None:
    brief = brief_by(tmp_path, BriefWriter(context_window=window))
    assert brief.bottom_line_citations and brief.status == "complete"
    text = markdown(brief)
    bottom = text[text.index("## Bottom line") : text.index("## Points")]
    for c in brief.bottom_line_citations:
        assert c.url in bottom


def test_coverage_counts_the_bottom_lines_citations_too(tmp_path: Path) -> None:
    """ "read, N cited" counts every citation of a video, the bottom line's included: a
    video only the bottom line cites contributed to the brief, and says so."""
    brief = brief_by(tmp_path, BriefWriter(context_window=4096))
    assert brief.bottom_line_citations
    cited = [*brief.bottom_line_citations]
    cited += [c for p in brief.points for c in [*p.support, *p.oppose]]
    read = {s.video_id: s.claims for s in brief.coverage if s.status == "read"}
    assert read == {v: sum(1 for c in cited if c.video_id == v) for v in read}
