"""The summary, buyer-guide and tutorial-steps templates through the pipeline (scripted
model): each answer is filled from the template's own schema, every list of citable items
gets one item with real evidence and one whose evidence fails; only the first may stay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.events import Brief, BriefRequest
from v2c_desktop.core.briefs.render import markdown
from v2c_desktop.core.briefs.templates import template
from v2c_desktop.core.briefs.verify import TranscriptIndex, verify_quote

pytestmark = pytest.mark.corpus

#: the citable lists of each template, and the field its headline comes from
CITABLE = {
    "summary": (["key_points"], "summary"),
    "tutorial-steps": (["prerequisites", "steps", "pitfalls"], "goal"),
    "buyer-guide": (
        [
            "models",
            "years_to_seek",
            "years_to_consider",
            "years_to_avoid",
            "prices",
            "known_problems",
            "avoid",
            "mileage_advice",
            "seller_questions",
        ],
        "summary",
    ),
}


def brief_of(tmp_path: Path, name: str, window: int) -> tuple[Brief, dict[str, TranscriptIndex]]:
    async def go() -> tuple[Brief, dict[str, TranscriptIndex]]:
        api = await open_core(tmp_path, BriefWriter(context_window=window))
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            request = BriefRequest(QUESTION, collection="Memory", template=name)
            _, brief = await build(api, request)
            indexes = {}
            for video in await api.list_videos():
                record = await api.get_video(video.id)
                indexes[video.id] = TranscriptIndex(record.transcript.segments)
            return brief, indexes
        finally:
            await api.aclose()

    return run(go(), timeout=180)


def without_sources(schema: Any) -> Any:
    """The template's schema as its data looks once the evidence is resolved away."""
    if isinstance(schema, dict):
        out = {k: without_sources(v) for k, v in schema.items() if k != "sources"}
        if isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r != "sources"]
        if isinstance(out.get("properties"), dict):
            out["properties"].pop("sources", None)
        return out
    return schema


@pytest.mark.parametrize(
    ("name", "window"),
    [
        ("summary", 200_000),
        ("tutorial-steps", 200_000),
        ("buyer-guide", 200_000),
        ("tutorial-steps", 4096),  # map-reduce: evidence named by verified claim number
    ],
)
def test_a_template_keeps_its_cited_items_and_drops_the_rest(
    tmp_path: Path, name: str, window: int
) -> None:
    import jsonschema

    brief, indexes = brief_of(tmp_path, name, window)
    lists, headline = CITABLE[name]
    assert brief.template == name and brief.data is not None
    assert brief.pass_kind == ("single" if window > 100_000 else "map-reduce")
    schema = without_sources(template(name).data_schema({"type": "array"}))
    jsonschema.validate(brief.data, schema)  # still the template's shape
    assert brief.bottom_line == brief.data[headline] and brief.bottom_line
    kept = 0
    for field in lists:
        items = brief.data.get(field, [])
        assert len(items) <= 1, (field, items)  # the item whose evidence failed is gone
        for i in range(len(items)):
            assert f"/{field}/{i}" in brief.data_citations
        kept += len(items)
    assert kept >= 1
    assert any("left out because none of their quotes" in x for x in brief.limitations)
    assert brief.status == "partial"  # items removed: said, not hidden
    for citations in brief.data_citations.values():
        for c in citations:
            assert verify_quote(indexes[c.video_id], c.quote, c.start).ok, c
    if name == "tutorial-steps":
        step = brief.data["steps"][0]
        assert step["instruction"] and step["values"]  # exact values kept with the step
    if name == "buyer-guide" and brief.data.get("known_problems"):
        assert brief.data["known_problems"][0]["severity"] in {"minor", "moderate", "serious"}
    text = markdown(brief)
    assert "## Answer" in text and "sources" not in repr(brief.data)
