"""Quote verification on real transcripts: what passes, what fails and why, where it snaps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.briefs.verify import TranscriptIndex, normalise, verify_quote
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Segment

BITCOIN = "transcripts/3blue1brown/2017_bitcoin/captions.en.srt"
AUTO = (
    "transcripts/woodenfish-2024-buddhism-ai-autocaptions/"
    "IZ6G50pqbIY__Bill-Duane-Buddha-and-the-Corporation-in-an-AI-world.reconstructed.vtt"
)


def index_of(relative: str) -> TranscriptIndex:
    path: Path = corpus_path(relative)
    return TranscriptIndex(parse_captions(path.read_text(encoding="utf-8"), source_name=path.name))


def spoken(index: TranscriptIndex, at: int, words: int) -> tuple[str, float]:
    """`words` consecutive words of the transcript from word `at`, and their segment's start."""
    text = " ".join(index.words[at : at + words])
    return text, index.segments[index.segment_of[at]].start


def test_normalisation_is_the_same_for_quote_and_captions() -> None:
    assert normalise("You're  RIGHT, it's café-au-lait!") == [
        "youre",
        "right",
        "its",
        "cafe",
        "au",
        "lait",
    ]
    assert normalise("") == [] and normalise("?!") == []


@pytest.mark.corpus
def test_an_exact_quote_passes_and_snaps_to_its_segments() -> None:
    index = index_of(BITCOIN)
    segment = next(s for s in index.segments if "ledger" in s.text.lower() and len(s.text) > 40)
    verdict = verify_quote(index, segment.text, segment.start + 12)  # a model's rough time
    assert verdict.ok and verdict.score == 1.0
    assert verdict.start == pytest.approx(segment.start)
    assert verdict.end >= segment.end - 1e-6


@pytest.mark.corpus
def test_one_word_in_five_misheard_still_passes_a_paraphrase_fails() -> None:
    index = index_of(BITCOIN)
    quote, start = spoken(index, 900, 15)
    words = quote.split()
    misheard = [("mumble" if i % 5 == 2 else w) for i, w in enumerate(words)]
    assert verify_quote(index, " ".join(misheard), start).ok
    paraphrase = "people all around the world share one public record of who paid whom"
    verdict = verify_quote(index, paraphrase, start)
    assert not verdict.ok and verdict.failure == "quote-not-found"


@pytest.mark.corpus
def test_a_quote_at_another_time_is_rejected_with_where_it_is() -> None:
    index = index_of(BITCOIN)
    quote, start = spoken(index, 2000, 12)
    verdict = verify_quote(index, quote, start + 300 if start < 900 else start - 300)
    assert not verdict.ok and verdict.failure == "quote-at-other-time"
    assert verdict.found_at == pytest.approx(start, abs=15)


@pytest.mark.corpus
def test_auto_captions_without_punctuation_verify_the_same_way() -> None:
    index = index_of(AUTO)
    quote, start = spoken(index, 1500, 10)
    dressed = quote.capitalize() + ", right? " + "And so on."  # a model adds case and stops
    verdict = verify_quote(index, quote.capitalize() + "!", start)
    assert verdict.ok and verdict.score == 1.0
    assert not verify_quote(index, dressed, start + 2000).ok


@pytest.mark.parametrize(
    ("quote", "start", "failure"),
    [
        ("", 5.0, "no-quote"),
        ("the ledger", 5.0, "quote-too-short"),
        ("a quote of enough words here", -3.0, "bad-timestamp"),
        ("a quote of enough words here", float("nan"), "bad-timestamp"),
        ("a quote of enough words here", None, "bad-timestamp"),
        ("a quote of enough words here", 9999.0, "bad-timestamp"),
    ],
)
def test_input_that_cannot_be_checked_says_why(
    quote: str, start: float | None, failure: str
) -> None:
    index = TranscriptIndex([Segment(0.0, 5.0, "a quote of enough words here and more")])
    verdict = verify_quote(index, quote, start)
    assert not verdict.ok and verdict.failure == failure
