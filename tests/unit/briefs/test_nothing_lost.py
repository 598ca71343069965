"""Classification by distinct videos, and no verified evidence lost: a point whose support
fails keeps its verified other side; a template's claims beyond its one organising call
are listed, as its limitation says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.events import Brief, BriefCitation, BriefRequest
from v2c_desktop.core.briefs.evidence import kind_of
from v2c_desktop.core.briefs.render import markdown
from v2c_desktop.core.briefs.verify import TranscriptIndex, verify_quote
from v2c_desktop.core.timecode import parse_time


def cite(video: str, start: float) -> BriefCitation:
    return BriefCitation(video, video.upper(), start, start + 5, f"https://x/{video}", "q")


def test_consensus_counts_distinct_videos_not_citations() -> None:
    same = [cite("a", 10.0), cite("a", 95.0), cite("a", 300.0)]
    assert kind_of(same, []) == "single-source"
    assert kind_of([cite("a", 10.0), cite("b", 20.0)], []) == "consensus"
    assert kind_of([cite("a", 10.0), cite("b", 20.0)], [cite("c", 1.0)]) == "disagreement"
    assert kind_of([cite("a", 10.0)], [cite("a", 50.0)]) == "disagreement"


def shown(brief: Brief) -> list[BriefCitation]:
    return [c for p in brief.points for c in [*p.support, *p.oppose]]


async def _indexes(api) -> dict[str, TranscriptIndex]:  # type: ignore[no-untyped-def]
    out = {}
    for video in await api.list_videos():
        record = await api.get_video(video.id)
        out[record.video.title] = TranscriptIndex(record.transcript.segments)
    return out


def verified_claims(
    writer: BriefWriter, indexes: dict[str, TranscriptIndex]
) -> set[tuple[str, str]]:
    """(title, quote) of every mapped claim whose quote verifies, checked from scratch (the
    model sees a source as `title (channel)`)."""
    out = set()
    for label, claim in writer.mapped:
        title = next(t for t in indexes if label.startswith(t))
        if verify_quote(indexes[title], claim["quote"], parse_time(claim["time"])).ok:
            out.add((title, " ".join(claim["quote"].split())))
    return out


@pytest.mark.corpus
def test_map_reduce_loses_no_verified_claim_and_counts_videos(tmp_path: Path) -> None:
    async def go() -> tuple[Brief, BriefWriter, dict[str, TranscriptIndex]]:
        writer = BriefWriter(context_window=4096)
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            _, brief = await build(api, BriefRequest(QUESTION, collection="Memory"))
            return brief, writer, await _indexes(api)
        finally:
            await api.aclose()

    brief, writer, indexes = run(go(), timeout=120)
    by_text = {p.text: p for p in brief.points}
    twice = by_text["One video says it twice."]
    assert len(twice.support) == 2 and len({c.video_id for c in twice.support}) == 1
    assert twice.kind == "single-source"
    # the point's own support failed: it is gone, the verified evidence against it is not
    assert "Nothing is ever forgotten." not in by_text
    other_side = by_text["Forgetting is part of how memory works."]
    assert other_side.support and other_side.kind == "single-source" and not other_side.oppose
    # every claim the model mapped whose quote verifies is shown somewhere, exactly once
    cited = [(c.title, c.quote) for c in shown(brief)]
    verified = verified_claims(writer, indexes)
    assert verified and verified <= set(cited), verified - set(cited)


@pytest.mark.corpus
def test_one_pass_keeps_the_verified_side_of_a_point_whose_support_failed(
    tmp_path: Path,
) -> None:
    async def go() -> Brief:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))])
            ids = tuple(v.id for v in await api.list_videos())
            _, brief = await build(api, BriefRequest(QUESTION, video_ids=ids))
            return brief
        finally:
            await api.aclose()

    brief = run(go(), timeout=120)
    assert brief.pass_kind == "single"
    by_text = {p.text: p for p in brief.points}
    assert "Nothing is ever forgotten." not in by_text
    other_side = by_text["Forgetting is part of how memory works."]
    assert len(other_side.support) == 1 and other_side.kind == "single-source"
    assert any(u.quote == "we never forget a thing" for u in brief.unverified)


@pytest.mark.corpus
def test_a_template_lists_the_claims_beyond_its_organising_call(tmp_path: Path) -> None:
    async def go() -> tuple[Brief, BriefWriter, dict[str, TranscriptIndex]]:
        writer = BriefWriter(context_window=3000)  # small: more claims than one call holds
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            request = BriefRequest(QUESTION, collection="Memory", template="summary")
            _, brief = await build(api, request)
            return brief, writer, await _indexes(api)
        finally:
            await api.aclose()

    brief, writer, indexes = run(go(), timeout=120)
    assert brief.pass_kind == "map-reduce" and writer.calls.count("answer") == 1
    (said,) = [x for x in brief.limitations if "did not fit one organising call" in x]
    listed = int(said.split()[0])
    assert listed > 0 and "listed as single-source points" in said
    assert sum(len(t.points) for t in brief.topics) == listed  # the text is true
    assert all(p.kind == "single-source" and p.support for p in brief.points)
    # each listed point is a verified claim the summary's call never saw
    listed_quotes = {(c.title, c.quote) for c in shown(brief)}
    in_data = {(c.title, c.quote) for cs in brief.data_citations.values() for c in cs}
    assert in_data and listed_quotes <= verified_claims(writer, indexes)
    assert not listed_quotes & in_data
    text = markdown(brief)
    assert text.index("## Answer") < text.index("## Points")  # the answer leads
