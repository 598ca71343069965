"""The evaluation metrics on small hand-made cases (no engine, no corpus)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.eval.metrics import (
    QueryOutcome,
    Span,
    distinct_precision_at_k,
    evaluate,
    forbidden_at_k,
    hit_at_k,
    overlaps,
    raw_precision_at_k,
    reciprocal_rank,
)

A1 = ("a", 100.0, 130.0)  # expected passage 1 in video a
A2 = ("a", 300.0, 340.0)  # expected passage 2 in video a
B1 = ("b", 10.0, 50.0)  # expected passage in video b


def test_overlap_needs_the_same_video_and_shared_time() -> None:
    assert overlaps(("a", 120, 200), A1)
    assert overlaps(("a", 90, 101), A1)
    assert overlaps(("a", 110, 120), A1)  # inside
    assert overlaps(("a", 0, 1000), A1)  # around
    assert not overlaps(("b", 110, 120), A1)  # other video
    assert not overlaps(("a", 130, 160), A1)  # touching is not overlapping
    assert not overlaps(("a", 50, 100), A1)
    assert overlaps(("a", 115, 115), A1)  # a point inside counts


def test_span_of_accepts_tuples_and_hit_objects() -> None:
    hit = SimpleNamespace(video_id="a", start=1, end=2.5)
    assert Span.of(hit) == Span("a", 1.0, 2.5)
    assert Span.of(["a", 1, 2]) == Span("a", 1.0, 2.0)
    assert Span.of(Span("x", 0, 1)) == Span("x", 0, 1)


def test_reciprocal_rank_is_one_over_the_first_relevant_rank() -> None:
    miss = ("a", 0, 10)
    assert reciprocal_rank([A1], [A1]) == 1.0
    assert reciprocal_rank([miss, ("a", 125, 160)], [A1]) == 0.5
    assert reciprocal_rank([miss, miss, miss, B1], [A1, B1]) == 0.25
    assert reciprocal_rank([miss], [A1]) == 0.0
    assert reciprocal_rank([], [A1]) == 0.0
    assert reciprocal_rank([miss] * 5 + [A1], [A1], k=5) == 0.0
    assert reciprocal_rank([miss] * 5 + [A1], [A1]) == pytest.approx(1 / 6)


def test_hit_at_k_looks_only_at_the_top_k() -> None:
    miss = ("b", 500, 560)
    assert hit_at_k([miss, miss, A1], [A1]) == 1.0
    assert hit_at_k([miss] * 5 + [A1], [A1]) == 0.0
    assert hit_at_k([miss] * 5 + [A1], [A1], k=6) == 1.0
    assert hit_at_k([], [A1]) == 0.0


def test_raw_precision_counts_every_relevant_hit_and_divides_by_k() -> None:
    same_passage = [("a", 100, 110), ("a", 110, 120), ("a", 120, 130)]
    assert raw_precision_at_k(same_passage, [A1]) == pytest.approx(3 / 5)
    # fewer than k hits: still divided by k
    assert raw_precision_at_k([A1], [A1]) == pytest.approx(1 / 5)
    assert raw_precision_at_k([A1], [A1], k=1) == 1.0
    assert raw_precision_at_k([], [A1]) == 0.0


def test_distinct_precision_credits_each_expected_range_once() -> None:
    same_passage = [("a", 100, 110), ("a", 110, 120), ("a", 120, 130)]
    assert distinct_precision_at_k(same_passage, [A1]) == pytest.approx(1 / 5)
    assert distinct_precision_at_k([A1, A2, B1], [A1, A2, B1]) == pytest.approx(3 / 5)
    assert distinct_precision_at_k([A1, ("a", 0, 5)], [A1]) == pytest.approx(1 / 5)
    assert distinct_precision_at_k([], [A1]) == 0.0


def test_distinct_precision_uses_the_best_matching() -> None:
    # hit 1 spans both passages, hit 2 only the first: the best pairing credits both hits
    spanning = ("a", 120, 310)
    first_only = ("a", 100, 105)
    assert distinct_precision_at_k([spanning, first_only], [A1, A2]) == pytest.approx(2 / 5)
    # one hit over two passages is still one relevant hit
    assert distinct_precision_at_k([spanning], [A1, A2]) == pytest.approx(1 / 5)


def test_distinct_never_exceeds_raw() -> None:
    hits = [("a", 100, 120), ("a", 305, 320), ("a", 125, 129), ("b", 0, 15), ("a", 600, 700)]
    expected = [A1, A2, B1]
    assert distinct_precision_at_k(hits, expected) <= raw_precision_at_k(hits, expected)
    assert raw_precision_at_k(hits, expected) == pytest.approx(4 / 5)
    assert distinct_precision_at_k(hits, expected) == pytest.approx(3 / 5)


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError):
        raw_precision_at_k([A1], [A1], k=0)
    with pytest.raises(ValueError):
        distinct_precision_at_k([A1], [A1], k=0)


def test_forbidden_counts_hits_on_excluded_passages() -> None:
    forbidden = [("a", 200, 210)]
    assert forbidden_at_k([A1, ("a", 205, 260)], forbidden) == 1
    assert forbidden_at_k([A1, A2], forbidden) == 0
    assert forbidden_at_k([("a", 0, 5)] * 5 + [("a", 200, 201)], forbidden) == 0  # below top 5


def test_evaluate_averages_by_kind_and_overall() -> None:
    miss = ("c", 0, 10)
    results = {
        "q1": QueryOutcome("exact", [A1, miss], [A1]),  # rr 1, hit 1, p .2/.2
        "q2": QueryOutcome("exact", [miss, miss, A2, A2], [A2]),  # rr 1/3, hit 1, d .2, raw .4
        "q3": QueryOutcome("paraphrase", [miss] * 5, [B1]),  # all zero
        "q4": QueryOutcome("exclusion", [A1, ("a", 200, 205)], [A1], [("a", 199, 201)]),
    }
    report = evaluate(results)
    assert report["k"] == 5
    exact = report["by_kind"]["exact"]
    assert exact["n"] == 2
    assert exact["mrr"] == pytest.approx((1 + 1 / 3) / 2)
    assert exact["hit_at_k"] == 1.0
    assert exact["distinct_p_at_k"] == pytest.approx(0.2)
    assert exact["raw_p_at_k"] == pytest.approx(0.3)
    assert report["by_kind"]["paraphrase"]["mrr"] == 0.0
    assert report["by_kind"]["exclusion"]["forbidden"] == 1
    overall = report["overall"]
    assert overall["n"] == 4
    assert overall["mrr"] == pytest.approx((1 + 1 / 3 + 0 + 1) / 4)
    assert overall["hit_at_k"] == pytest.approx(3 / 4)
    assert overall["raw_p_at_k"] == pytest.approx((0.2 + 0.4 + 0 + 0.2) / 4)
    assert overall["forbidden"] == 1
    assert report["per_query"]["q2"]["raw_p_at_k"] == pytest.approx(0.4)


def test_evaluate_of_nothing_is_empty() -> None:
    report = evaluate({})
    assert report["overall"]["n"] == 0
    assert report["by_kind"] == {}
