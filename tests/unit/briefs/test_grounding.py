"""Evidence by line key: what a grammar-bound model may name, and what it becomes."""

from __future__ import annotations

from tests.conftest import corpus_path
from v2c_desktop.core.briefs.evidence import Evidence
from v2c_desktop.core.briefs.grounding import LineKeys
from v2c_desktop.core.briefs.sources import number_sources
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Transcript, Video, VideoRecord

HOMUNCULUS = (
    "transcripts/crashcourse-psychology/homunculus_crash_course_psychology_6_fxZWtc0mYpQ.en.srt"
)


def record() -> VideoRecord:
    path = corpus_path(HOMUNCULUS)
    segments = parse_captions(path.read_text(encoding="utf-8"), source_name=path.name)
    video = Video(
        id="youtube:fxZWtc0mYpQ",
        title="Homunculus",
        platform="youtube",
        native_id="fxZWtc0mYpQ",
        url="https://www.youtube.com/watch?v=fxZWtc0mYpQ",
    )
    return VideoRecord(video, Transcript("subtitle-file", "en", segments))


def test_every_line_has_one_key_and_a_named_line_becomes_a_verified_quote() -> None:
    (source,) = number_sources([record()])
    keys = LineKeys.of([(source, source.lines)])
    assert len(keys.lines) == len(source.lines)
    assert keys.schema()["enum"] == list(keys.lines)
    key, (_, line) = list(keys.lines.items())[5]
    assert key.startswith("1@") and f"[{key}] {line.text}" in keys.render(source)
    grounded = keys.ground({"points": [{"text": "x", "support": [{"line": key}]}]})
    cited = grounded["points"][0]["support"][0]
    assert cited == {"source": 1, "time": key[2:], "quote": line.text}
    citation = Evidence([source]).cite(cited)
    assert citation is not None and citation.start <= line.start + 1e-6


def test_an_unknown_key_is_left_for_verification_to_reject() -> None:
    (source,) = number_sources([record()])
    keys = LineKeys.of([(source, source.lines)])
    grounded = keys.ground([{"line": "9@99:99", "claim": "made up"}])
    evidence = Evidence([source])
    assert evidence.add_claims(grounded) == []
    assert [u.reason for u in evidence.unverified] == ["unknown-video"]
