"""Reciprocal rank fusion and range merging: the order a user sees."""

from __future__ import annotations

from v2c_desktop.core.search.fusion import FusionSettings, fused_score, rrf
from v2c_desktop.core.search.hits import ChunkHit, merge_ranges

SETTINGS = FusionSettings()


def chunk(chunk_id: int, first_seg: int, last_seg: int, ranks: dict[str, int]) -> ChunkHit:
    return ChunkHit(
        chunk_id,
        "vid",
        first_seg * 10.0,
        (last_seg + 1) * 10.0,
        first_seg,
        last_seg,
        None,
        fused_score(ranks, SETTINGS),
        ranks,
    )


def test_rrf_sums_weight_over_k_plus_rank() -> None:
    fused = rrf({"keyword": [7, 8], "vector": [8, 9]}, FusionSettings(k=60, weights={}))
    assert [f.chunk_id for f in fused] == [8, 7, 9]
    assert fused[0].score == 1 / 62 + 1 / 61
    assert fused[0].ranks == {"keyword": 2, "vector": 1}
    weighted = rrf({"keyword": [7], "vector": [9]}, FusionSettings(weights={"vector": 2.0}))
    assert [f.chunk_id for f in weighted] == [9, 7]


def test_a_passage_both_sides_found_through_neighbouring_chunks_outranks_a_weak_one() -> None:
    # chunk 1 (keyword's best) and chunk 2 (vector's best) overlap: one passage.
    # chunk 3, far away, is found by both sides but only at rank 10.
    hits = [
        chunk(1, 0, 4, {"keyword": 1}),
        chunk(2, 4, 8, {"vector": 1}),
        chunk(3, 40, 44, {"keyword": 10, "vector": 10}),
    ]
    assert hits[2].score > hits[0].score  # chunk by chunk, the weak one would win
    by_best_chunk = merge_ranges(hits)
    assert by_best_chunk[0].chunk_ids == [3]
    fused = merge_ranges(hits, rescore=lambda ranks: fused_score(ranks, SETTINGS))
    assert fused[0].chunk_ids == [1, 2]
    assert fused[0].ranks == {"keyword": 1, "vector": 1}
    assert fused[0].score == 2 / 61


def test_a_long_range_gains_nothing_from_holding_many_chunks() -> None:
    many = [chunk(i, 4 * i, 4 * i + 4, {"keyword": 5 + i}) for i in range(3)]
    (merged,) = merge_ranges(many, rescore=lambda ranks: fused_score(ranks, SETTINGS))
    assert merged.score == 1 / 65  # its best keyword rank, counted once


def test_a_tie_goes_to_the_words_whatever_the_import_order() -> None:
    """While videos are being embedded, the passage that holds the query's words (keyword
    rank 1, no vector yet) ties with a vector-only neighbour (vector rank 1): it comes first
    even when the neighbour was imported first (a lower chunk id)."""
    from v2c_desktop.core.search.fusion import FusionSettings, rrf

    fused = rrf({"vector": [3], "keyword": [7]}, FusionSettings())
    assert [f.chunk_id for f in fused] == [7, 3]


def test_a_keyword_hit_counts_by_its_coverage_when_weights_are_given() -> None:
    """Hybrid search weights each keyword hit by the share of the query's IDF mass it holds:
    a keyword first that holds a fifth of it no longer ties with the vector side's first."""
    per_rank = {"keyword": [0.2, 1.0]}
    fused = rrf({"keyword": [7, 8], "vector": [9]}, SETTINGS, per_rank)
    assert [f.chunk_id for f in fused] == [9, 8, 7]
    assert fused[2].score == 0.2 / 61 and fused[1].score == 1 / 62
    assert fused_score({"keyword": 1}, SETTINGS, per_rank) == 0.2 / 61
    assert fused_score({"keyword": 3}, SETTINGS, per_rank) == 1 / 63  # past the list: 1
    plain = rrf({"keyword": [7, 8], "vector": [9]}, SETTINGS)
    assert [f.chunk_id for f in plain] == [7, 9, 8]


def test_a_merged_range_is_rescored_with_the_weight_of_its_best_keyword_chunk() -> None:
    per_rank = {"keyword": [0.5, 0.1]}
    hits = [
        chunk(1, 0, 4, {"keyword": 2}),
        chunk(2, 4, 8, {"keyword": 1, "vector": 3}),
    ]
    (merged,) = merge_ranges(hits, rescore=lambda ranks: fused_score(ranks, SETTINGS, per_rank))
    assert merged.ranks == {"keyword": 1, "vector": 3}
    assert merged.score == 0.5 / 61 + 1 / 63
