"""A brief's Markdown and JSON come from one object, at the length its request asked for."""

from __future__ import annotations

from v2c_desktop.core.briefs.events import Brief, BriefCitation, BriefPoint, BriefTopic
from v2c_desktop.core.briefs.render import as_json, markdown


def a_brief(max_words: int | None) -> Brief:
    cite = BriefCitation("v1", "Talk", 12.0, 15.0, "https://youtu.be/x?t=12", "a quote here")
    points = [
        BriefPoint(f"Point number {i} says a few words here.", "single-source", [cite])
        for i in range(8)
    ]
    return Brief(
        id="brief-1",
        title="T",
        question="Q?",
        template="brief",
        bottom_line="Short.",
        topics=[BriefTopic("Topic", points)],
        scope={"max_words": max_words} if max_words else {},
    )


def test_as_json_keeps_the_length_the_brief_was_asked_for() -> None:
    short = a_brief(20)
    assert "## More points" in as_json(short)["markdown"]  # 20 words: most points move on
    assert "## More points" not in markdown(short)  # at the default 400 they all fit
    assert as_json(short)["markdown"] == markdown(short, 20)
    assert as_json(short, 400)["markdown"] == markdown(short)  # a face may ask for another
    assert as_json(a_brief(None))["markdown"] == markdown(a_brief(None))
