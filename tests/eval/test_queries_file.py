"""tests/eval/queries.json: its shape, its counts, and every range checked against the corpus."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from tests.eval.check_queries import (
    KINDS,
    Corpus,
    check,
    check_shape,
    load_queries,
    phrases_and_exclusions,
    summary,
    term_pattern,
)

QUERIES = load_queries()


def test_the_file_is_well_formed() -> None:
    assert check_shape(QUERIES) == []


def test_counts() -> None:
    s = summary(QUERIES)
    assert s["queries"] >= 80
    held_out = [q for q in QUERIES if q.get("split") == "held-out"]
    assert len(held_out) >= 30  # reported apart: never tuned on
    assert s["transcripts"] >= 15
    assert all(s["kinds"][kind] > 0 for kind in KINDS), s["kinds"]


def test_woodenfish_auto_captions_are_covered() -> None:
    woodenfish = [q for q in QUERIES if any("woodenfish" in r["path"] for r in q["expected"])]
    assert len(woodenfish) >= 2


def test_query_syntax_helpers() -> None:
    assert phrases_and_exclusions('"Bayes factor" -odds') == (["Bayes factor"], ["odds"])
    assert phrases_and_exclusions('oil -"oil cooler" x') == ([], ["oil cooler"])
    assert phrases_and_exclusions("Johnson-Lindenstrauss lemma") == ([], [])
    assert term_pattern("dream").search("what dreams may come")
    assert term_pattern("masking").search("the mask is applied")
    assert term_pattern("blind spot").search("lots of blind spots")
    assert not term_pattern("odds").search("the oddity")


def test_the_check_catches_a_wrong_range() -> None:
    corpus = Corpus(corpus_path("transcripts/INDEX.json").parents[1])
    bad = {
        "id": "bad",
        "query": "proof of work",
        "kind": "exact",
        "expected": [
            {
                "path": "transcripts/3blue1brown/2017_bitcoin/captions.en.srt",
                "start": 0.0,
                "end": 30.0,
                "evidence": "This is called a proof of work.",
            }
        ],
    }
    problems = check([bad], corpus)
    assert [p.query_id for p in problems] == ["bad"]
    assert "not found" in problems[0].message


@pytest.mark.corpus
def test_every_range_matches_its_transcript() -> None:
    corpus = Corpus(corpus_path("transcripts/INDEX.json").parents[1])
    problems = check(QUERIES, corpus)
    assert problems == [], "\n".join(str(p) for p in problems)
