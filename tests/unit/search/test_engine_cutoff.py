"""The relevance cut-off and the undated videos a date filter leaves out, on real parts.

Three Crash Course episodes (dated) and two 3Blue1Brown talks imported as bare SRT files
(undated), indexed with the real ONNX embedder.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import corpus_path
from tests.unit.search.test_engine import HOMUNCULUS, LibraryUnderTest, crashcourse_files
from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder
from v2c_desktop.core.search.cutoff import Cutoff, keyword_cut, vector_cut

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(600)]

TALKS = [
    "transcripts/3blue1brown/2019_bayes-theorem/captions.en.srt",
    "transcripts/3blue1brown/2017_gradient-descent/captions.en.srt",
]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LibraryUnderTest]:
    library = LibraryUnderTest(tmp_path_factory.mktemp("cutoff") / "lib.duckdb", OnnxEmbedder())
    try:
        library.add(*crashcourse_files("homunculus", "to_sleep", "how_we_make"))
        library.add(*[corpus_path(p) for p in TALKS])
        yield library
    finally:
        library.close()


def test_the_cuts_keep_what_is_close_to_the_best() -> None:
    scores = {1: 0.64, 2: 0.57, 3: 0.25, 4: 0.2}
    assert vector_cut([1, 2, 3, 4], scores, Cutoff()) == [1, 2]
    assert vector_cut([3, 4], scores, Cutoff()) == []  # nothing close enough to the query
    assert vector_cut([], scores, Cutoff()) == []
    bm25 = {1: 10.0, 2: 4.0, 3: 2.9}
    assert keyword_cut([1, 2, 3], bm25, Cutoff()) == [1, 2]


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_a_rare_word_is_not_padded_with_unrelated_passages(
    lib: LibraryUnderTest, mode: str
) -> None:
    padded = lib.search("homunculus", mode=mode, limit=10)
    assert len(padded.hits) == 10  # without the cut-off: a full page, most of it unrelated
    assert {h.video_id for h in padded.hits} != {HOMUNCULUS}
    assert "cutoff" not in padded.meta
    good = lib.search("homunculus", mode=mode, limit=10, cutoff=True)
    assert good.hits and len(good.hits) < 10
    assert {h.video_id for h in good.hits} == {HOMUNCULUS}
    assert good.meta["cutoff"]["vector"] > 0  # it says what it left out


def test_a_broad_query_keeps_its_many_good_passages(lib: LibraryUnderTest) -> None:
    result = lib.search("memory and remembering", limit=10, cutoff=True)
    assert len(result.hits) >= 5
    assert set(result.meta["cutoff"]) == {"keyword", "vector"}


def test_a_date_filter_says_how_many_undated_videos_it_left_out(lib: LibraryUnderTest) -> None:
    dated = lib.search("gradient descent", published_after="2000-01-01", limit=20)
    assert dated.meta["undated_left_out"] == 2
    assert all(h.channel == "CrashCourse" for h in dated.hits)
    kept = lib.search(
        "gradient descent", published_after="2000-01-01", include_undated=True, limit=20
    )
    assert "undated_left_out" not in kept.meta
    assert any(h.channel != "CrashCourse" for h in kept.hits)
    none = lib.search("gradient descent", limit=20)
    assert "undated_left_out" not in none.meta  # no date filter, nothing left out for it
    later = lib.search("sleep", published_after="2099-01-01", limit=20)
    assert later.hits == [] and later.meta["undated_left_out"] == 2
