"""A brief's note, section by section: labels on points, a comparison as a table, a tutorial
as numbered steps, a buyer guide's or a schema's values, the appendix of claims that
failed; every citation both a URL that plays and a link to the video note's line. Real
corpus captions, written into a real temporary vault and read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.briefs.test_pipeline import FORGET, MAKE, folder, open_core
from tests.unit.export.test_obsidian_export import NOTE, _front, _hostile, _intro, _vault
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.events import (
    Brief,
    BriefCitation,
    BriefPoint,
    BriefTopic,
    UnverifiedClaim,
)
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.export import export_obsidian
from v2c_desktop.core.export.events import ExportReport, ExportRequest
from v2c_desktop.core.wire_codec import encode

pytestmark = pytest.mark.corpus

TALK = "v2c/Videos/Talk.md"


def _cite(record: VideoRecord, index: int) -> BriefCitation:
    seg = record.transcript.segments[index]
    return BriefCitation(
        video_id=record.video.id,
        title=record.video.title,
        start=seg.start,
        end=seg.end,
        url=f"https://www.youtube.com/watch?v={record.video.native_id}&t={int(seg.start)}s",
        quote=seg.text,
    )


def _link(record: VideoRecord, note: str, index: int) -> str:
    """The wikilink a citation of line `index` of `record` must carry."""
    second = int(record.transcript.segments[index].start)
    return f"[[{note[:-3]}#^t-{second}|{second // 60}:{second % 60:02d}]]"


def _export(tmp_path: Path, brief: Brief, *records: VideoRecord) -> str:
    vault = _vault(tmp_path)
    export_obsidian(vault, list(records), [brief])
    (path,) = (vault / "v2c/Briefs").iterdir()
    return path.read_text(encoding="utf-8")


def _brief(template: str, data: dict[str, Any] | None = None, **fields: Any) -> Brief:
    fields.setdefault("bottom_line", "")
    return Brief(
        id=f"b-{template}",
        title=f"A {template}",
        question="What do they say?",
        template=template,
        status="complete",
        created_at="2026-03-02",
        data=data,
        **fields,
    )


def test_points_carry_their_label_and_both_sides_of_a_disagreement(tmp_path: Path) -> None:
    intro, talk = _intro(), _hostile("aaaaaaaaaaa", "Talk", "a claim")
    consensus = BriefPoint("Minds can be studied", "consensus", [_cite(intro, 3), _cite(talk, 0)])
    disagreement = BriefPoint(
        "Dreams mean something",
        "disagreement",
        support=[_cite(intro, 5)],
        oppose=[_cite(talk, 1)],
        counter="they are noise",
    )
    single = BriefPoint("Freud came first", "single-source", [_cite(intro, 20)])
    brief = _brief(
        "brief", topics=[BriefTopic("Mind", [consensus, disagreement]), BriefTopic("", [single])]
    )
    text = _export(tmp_path, brief, intro, talk)
    assert "- Minds can be studied *(consensus)*\n" in text
    assert "- Dreams mean something *(disagreement)*\n" in text
    assert "  - Against: they are noise\n" in text
    assert "- Freud came first *(single source)*\n" in text
    assert "### Mind\n" in text and "### Points\n" in text  # an unnamed topic still has a head
    against = text.split("  - Against: they are noise\n", 1)[1].split("\n", 1)[0]
    assert against.startswith(
        "    - [Talk @ 0:02](https://www.youtube.com/watch?v=aaaaaaaaaaa&t=2s)"
    )
    assert against.endswith(_link(talk, TALK, 1))
    assert _link(intro, NOTE, 3) in text and _link(intro, NOTE, 20) in text


def test_the_bottom_line_carries_its_citations_and_their_videos(tmp_path: Path) -> None:
    """A model's bottom line cites its own evidence: under it, each citation as a point's
    (the timestamp URL and the wikilink to the line), and a video it alone cites is one of
    the brief's videos."""
    intro, talk = _intro(), _hostile("aaaaaaaaaaa", "Talk", "a claim")
    point = BriefPoint("Minds can be studied", "single-source", [_cite(intro, 3)])
    brief = _brief(
        "brief",
        bottom_line="Psychology studies the mind.",
        bottom_line_citations=[_cite(talk, 1), _cite(intro, 3)],
        topics=[BriefTopic("Mind", [point])],
    )
    text = _export(tmp_path, brief, intro, talk)
    bottom = text.split("## Bottom line\n\nPsychology studies the mind.\n\n", 1)[1]
    first, second, *_ = bottom.split("\n")
    assert first == (
        "- [Talk @ 0:02](https://www.youtube.com/watch?v=aaaaaaaaaaa&t=2s) “plain words” · "
        + _link(talk, TALK, 1)
    )
    assert second.startswith("- [Intro to Psychology") and second.endswith(_link(intro, NOTE, 3))
    assert bottom.index(_link(talk, TALK, 1)) < bottom.index("## Points")
    # the bottom line cites it first, so it is the brief's first video
    assert _front(text)["videos"] == [f"[[{TALK[:-3]}]]", f"[[{NOTE[:-3]}]]"]


def test_a_video_only_the_bottom_line_cites_is_exported_with_the_brief(tmp_path: Path) -> None:
    """Exporting a saved brief alone brings the notes of every video it cites, the one only
    its bottom line cites included: otherwise that citation's wikilink would lead nowhere."""
    vault = tmp_path / "Vault"
    vault.mkdir()

    async def go() -> tuple[Brief, ExportReport]:
        api = await open_core(tmp_path, None)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))])
            listed = {v.title: v.id for v in await api.list_videos()}
            made, forgot = [
                await api.get_video(next(i for t, i in listed.items() if word in t))
                for word in ("Make", "Forgetting")
            ]
            point = BriefPoint("Made", "single-source", [_cite(made, 5)])
            brief = _brief(
                "brief",
                bottom_line="Memories are made, then some fade.",
                bottom_line_citations=[_cite(forgot, 12)],
                topics=[BriefTopic("Memory", [point])],
            )
            store = api._s.store  # saved as the brief service saves a build
            await store.run(
                store.save_brief,
                brief.id,
                brief.title,
                brief.question,
                brief.template,
                {},
                None,
                brief.status,
                encode(brief),
            )
            report = await api.export_obsidian(ExportRequest(str(vault), brief_ids=(brief.id,)))
            return brief, report
        finally:
            await api.aclose()

    brief, report = run(go(), timeout=120)
    videos = {n.subject_id: n.path for n in report.notes if n.kind == "video"}
    (forgot,) = {c.video_id for c in brief.bottom_line_citations}
    assert set(videos) == {forgot, brief.topics[0].points[0].support[0].video_id}
    (note,) = [n for n in report.notes if n.kind == "brief"]
    text = (vault / note.path).read_text(encoding="utf-8")
    assert f"[[{videos[forgot][:-3]}#^t-" in text.split("## Points")[0]


def test_a_comparison_is_a_table_with_each_options_citations(tmp_path: Path) -> None:
    intro, talk = _intro(), _hostile("aaaaaaaaaaa", "Talk", "a claim")
    data = {
        "criteria": ["Method", "Cost | price"],
        "options": [
            {
                "name": "Introspection",
                "cells": [
                    {"criterion": "Method", "value": "look inward"},
                    {"criterion": "Cost | price", "value": "free"},
                ],
            },
            {"name": "Experiment", "cells": [{"criterion": "Method", "value": "measure"}]},
        ],
        "verdict": {"text": "Experiments win"},
    }
    citations = {
        "/options/0/cells/0": [_cite(intro, 30)],
        "/options/1/cells/0": [_cite(talk, 0)],
        "/verdict": [_cite(intro, 40)],
    }
    text = _export(tmp_path, _brief("comparison", data, data_citations=citations), intro, talk)
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert table == [
        "| Option | Method | Cost \\| price |",
        "|---|---|---|",
        "| Introspection | look inward | free |",
        "| Experiment | measure |   |",
    ]
    assert "- Introspection\n  - [Intro to Psychology" in text
    assert _link(intro, NOTE, 30) in text and _link(talk, TALK, 0) in text
    assert "**Verdict:** Experiments win\n" in text and _link(intro, NOTE, 40) in text
    # the template's citations alone make their videos the brief's videos
    assert _front(text)["videos"] == [f"[[{NOTE[:-3]}]]", f"[[{TALK[:-3]}]]"]


def test_a_tutorial_is_numbered_steps_with_values_and_citations(tmp_path: Path) -> None:
    intro = _intro()
    data = {
        "goal": "Study the mind",
        "prerequisites": [{"text": "Curiosity"}],
        "steps": [
            {"instruction": "Observe", "values": ["10 minutes", "daily"]},
            {"instruction": "Write it down"},
        ],
        "pitfalls": [{"text": "Trusting introspection"}],
    }
    citations = {
        "/prerequisites/0": [_cite(intro, 2)],
        "/steps/0": [_cite(intro, 12)],
        "/steps/1": [_cite(intro, 14)],
        "/pitfalls/0": [_cite(intro, 16)],
    }
    text = _export(tmp_path, _brief("tutorial-steps", data, data_citations=citations), intro)
    assert "**Goal:** Study the mind\n" in text
    assert "### Before you start\n\n- Curiosity\n  - [Intro" in text
    assert "### Steps\n\n1. Observe\n    - Values: 10 minutes; daily\n    - [Intro" in text
    assert "\n2. Write it down\n    - [Intro" in text
    assert "### Pitfalls\n\n- Trusting introspection\n  - [Intro" in text
    for index in (2, 12, 14, 16):
        assert _link(intro, NOTE, index) in text


def test_a_buyer_guide_or_a_schema_shows_its_values_not_only_pointers(tmp_path: Path) -> None:
    intro = _intro()
    data = {
        "product": "Golf [[x]]",
        "models": [{"name": "GTI", "years": "2015-2018", "verdict": "buy"}],
    }
    brief = _brief(
        "buyer-guide",
        data,
        data_citations={"/models/0": [_cite(intro, 7)]},
        uncited=["/product"],
    )
    text = _export(tmp_path, brief, intro)
    assert "- /models/0: name: GTI; years: 2015-2018; verdict: buy\n  - [Intro" in text
    assert _link(intro, NOTE, 7) in text
    assert "Values no verified citation supports:\n\n- /product: Golf \\[\\[x\\]\\]\n" in text


def test_the_appendix_lists_claims_left_out_and_why(tmp_path: Path) -> None:
    intro = _intro()
    claims = [
        UnverifiedClaim("Freud was right", "dreams are wishes", intro.video.id, 60.0, "no match"),
        UnverifiedClaim("", "", intro.video.id, None, "empty", found_at=83.0),
    ]
    text = _export(tmp_path, _brief("brief", unverified=claims, limitations=["one video"]), intro)
    appendix = text.split("## Claims left out (their quotes did not check out)\n\n", 1)[1]
    assert appendix.startswith(
        "- Freud was right: “dreams are wishes” — no match\n- (no claim) — empty (found at 1:23)\n"
    )
    assert "## Limitations\n\n- one video\n" in text
