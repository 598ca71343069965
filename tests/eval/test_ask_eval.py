"""The ask evaluation: extractive answers (no chat model) must cite where the answer is.

tests/eval/ask_questions.json holds 33 paraphrased questions over real corpus transcripts
(MIT lectures, a Whisper-transcribed PyCon talk, creator captions), three of them over
several videos, each with the ranges where the answer is said (checked by
tests/eval/check_ask_questions.py). Issue 17's targets are a citation within 15 s of
support for 90% of the questions, the first citation near support for 75%, and 60% of all
citations near support. Measured on this build: 0.909 / 0.758 / 0.621 (before the ranked
excerpts: 0.576 / 0.333 / 0.256).

The gates sit one question below those figures, not at the targets: with every vector moved
as far as another CPU's float kernels were measured to move one (`bench/cpu_margin.py`, three
seeds), the figures were 0.909 / 0.727-0.758 / 0.612: a gate at the 0.75 target failed for
one seed, so it would hold only on some CPUs. A change to retrieval or ranking that costs two
questions fails here; the targets are reported by `run_ask_eval.py` and the closing notes.

Skipped only when the corpus is absent; a missing or broken embedder fails the gate.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import corpus_path

pytestmark = [pytest.mark.corpus, pytest.mark.slow, pytest.mark.timeout(1800)]

MIN_ANSWERED = 0.87  # 29 of 33: one question below the 30 answered on every CPU measured
MIN_FIRST_NEAR = 0.69  # 23 of 33: one below the 24 of the worst move (25 here)
MIN_CITATIONS_NEAR = 0.57  # pooled over ~66 citations: three below the worst move's 0.612


def test_the_questions_file_checks_out_against_the_transcripts() -> None:
    corpus_path("transcripts/INDEX.json")  # skips without the corpus
    from tests.eval.check_ask_questions import check

    assert check() == []


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    corpus = corpus_path("transcripts/INDEX.json").parents[1]
    from tests.eval.run_ask_eval import format_table, run

    result = run(corpus=corpus)  # EvalUnavailable cannot happen here: the corpus is present
    print("\n" + format_table(result))  # shown with -s or on failure
    return result


def test_the_embedder_really_ran(report: dict[str, Any]) -> None:
    """The figures are hybrid figures only if the embedder worked for every video."""
    from tests.eval.run_ask_eval import EMBEDDER

    vector = report["vector"]
    assert vector.get("status") == "ok" and vector["covered"] == vector["videos"], vector
    assert report["embedder"] == EMBEDDER


def test_nearly_every_question_gets_a_citation_near_its_answer(report: dict[str, Any]) -> None:
    missed = [r["id"] for r in report["per_question"] if not r["answered"]]
    assert report["overall"]["answered"] >= MIN_ANSWERED, missed


def test_the_first_citation_is_near_the_answer(report: dict[str, Any]) -> None:
    wrong = [r["id"] for r in report["per_question"] if not r["first_near"]]
    assert report["overall"]["first_near"] >= MIN_FIRST_NEAR, wrong


def test_most_citations_are_near_the_answer(report: dict[str, Any]) -> None:
    assert report["overall"]["citations_near"] >= MIN_CITATIONS_NEAR, report["overall"]


def test_every_citation_quotes_its_source(report: dict[str, Any]) -> None:
    assert report["overall"]["verified"] == 1.0
    assert all(r["citations"] > 0 for r in report["per_question"]), report["per_question"]
