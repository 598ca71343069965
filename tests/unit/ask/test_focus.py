"""A local model's sources: the excerpts that answer, best first, within a small budget."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from v2c_desktop.core.ask.focus import focused_sources, scope_fingerprint
from v2c_desktop.core.ask.retrieval import segments_tokens
from v2c_desktop.core.ask.service import (
    LOCAL_MIN_SOURCE_TOKENS,
    LOCAL_SOURCE_TOKENS,
    local_source_tokens,
)
from v2c_desktop.core.ask.sources import Source
from v2c_desktop.core.domain.videos import Segment, Transcript, VideoRecord
from v2c_desktop.core.lru import LRU
from v2c_desktop.core.models.llamacpp.prefill_speed import FILE, PrefillSpeed

pytestmark = pytest.mark.corpus


def test_excerpts_answer_first_are_renumbered_and_lie_on_their_segments(
    sources: list[Source],
) -> None:
    focused = asyncio.run(focused_sources("How big is the block reward?", sources, None, [], 300))
    assert focused and [s.n for s in focused] == list(range(1, len(focused) + 1))
    best = focused[0]
    assert "block reward" in best.text.lower()
    assert best.video_id == sources[1].video_id  # the bitcoin minute that answers
    # each excerpt is exactly the segments it lies on, inside the passage it came from
    for source in focused:
        original = next(
            s for s in sources if s.video_id == source.video_id and s.start <= source.start <= s.end
        )
        assert all(seg in original.segments for seg in source.segments)
        assert source.start == source.segments[0].start and source.end == source.segments[-1].end
        assert source.text == " ".join(seg.text.strip() for seg in source.segments)
    assert sum(segments_tokens(s.segments) for s in focused) <= 300 or len(focused) == 1
    assert sum(len(s.text) for s in focused) < sum(len(s.text) for s in sources) / 2


def test_the_best_excerpt_is_kept_even_over_a_tiny_budget(sources: list[Source]) -> None:
    focused = asyncio.run(focused_sources("How big is the block reward?", sources, None, [], 1))
    assert len(focused) == 1 and "block reward" in focused[0].text.lower()


def test_a_question_the_sources_do_not_cover_gets_no_excerpts(sources: list[Source]) -> None:
    assert asyncio.run(focused_sources("xylophone zebra quokka", sources, None, [], 600)) == []


def _record(text: str) -> VideoRecord:
    from tests.unit.ask.conftest import BITCOIN

    transcript = Transcript(origin="subtitle-file", language="en", segments=[Segment(0, 5, text)])
    return VideoRecord(video=BITCOIN, transcript=transcript)


def test_the_scope_fingerprint_changes_with_any_segment() -> None:
    assert scope_fingerprint([_record("one")]) == scope_fingerprint([_record("one")])
    assert scope_fingerprint([_record("one")]) != scope_fingerprint([_record("two")])


def test_the_lru_forgets_the_least_recently_used() -> None:
    cache: LRU[str, int] = LRU(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1  # a is now the most recent
    cache["c"] = 3
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3


class Rated:
    def __init__(self, rate: float) -> None:
        self.rate = rate

    def prefill_rate(self) -> float:
        return self.rate


@pytest.mark.parametrize(
    ("rate", "budget"),
    [
        (7.0, LOCAL_MIN_SOURCE_TOKENS),  # a 3B model on two cores: the floor, not less
        (150.0, 300),  # the test model's estimate: 150 * 2.5 - 80 = 295, the floor
        (200.0, 400),  # 420 in steps of 50
        (5000.0, LOCAL_SOURCE_TOKENS),  # a fast machine: the old ceiling
    ],
)
def test_the_local_budget_follows_the_measured_prompt_speed(rate: float, budget: int) -> None:
    assert local_source_tokens(Rated(rate)) == budget  # type: ignore[arg-type]


def test_prefill_speed_is_measured_persisted_and_steady_within_a_run(tmp_path: Path) -> None:
    speed = PrefillSpeed(tmp_path, "model-a", 98_000_000)
    assert not speed.measured and speed.rate() == pytest.approx(150.0)
    assert PrefillSpeed(tmp_path, "model-b", 2_000_000_000).rate() < 10  # a 3B file: slow
    speed.record(30, 0.1)  # a follow-up's few new tokens measure overhead, not speed
    assert speed.latest() is None
    speed.record(600, 3.0)
    speed.record(600, 2.0)
    assert speed.latest() == pytest.approx(0.7 * 200 + 0.3 * 300)
    assert speed.rate() == pytest.approx(150.0)  # this run's budget stays as it started
    again = PrefillSpeed(tmp_path, "model-a", 98_000_000)
    assert again.measured and again.rate() == pytest.approx(230.0, abs=0.01)
    assert json.loads((tmp_path / FILE).read_text())["model-a"] == pytest.approx(230.0)


def test_a_broken_speed_file_falls_back_to_the_estimate(tmp_path: Path) -> None:
    (tmp_path / FILE).write_text("{not json", encoding="utf-8")
    speed = PrefillSpeed(tmp_path, "model-a", 98_000_000)
    assert speed.rate() == pytest.approx(150.0)
    speed.record(600, 2.0)  # and the next measurement replaces it with good JSON
    assert json.loads((tmp_path / FILE).read_text()) == {"model-a": 300.0}
