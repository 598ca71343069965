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


@pytest.mark.corpus
@pytest.mark.parametrize("words", [4, 6, 8, 12, 20])
def test_a_quote_of_the_transcripts_last_words_passes_whole(words: int) -> None:
    index = index_of(BITCOIN)
    quote, start = spoken(index, len(index.words) - words, words)
    verdict = verify_quote(index, quote, start)
    assert verdict.ok and verdict.score == 1.0, verdict
    assert verdict.end == pytest.approx(index.segments[-1].end)


@pytest.mark.corpus
def test_the_last_line_of_a_real_transcript_verifies_at_its_own_time() -> None:
    index = index_of(BITCOIN)
    last = index.segments[-1]
    verdict = verify_quote(index, last.text, last.start)
    assert verdict.ok and verdict.score == 1.0
    assert (verdict.start, verdict.end) == (last.start, last.end)


def test_a_tiny_transcript_finds_a_quote_that_starts_after_its_first_word() -> None:
    index = TranscriptIndex([Segment(0.0, 3.0, "so the ledger is public")])
    verdict = verify_quote(index, "the ledger is public", 1.0)
    assert verdict.ok and verdict.score == 1.0
    assert verify_quote(index, "the ledger is", 1.0).failure == "quote-too-short"


# -- the constants, pinned: a changed rule fails one of these ----------------------------------

FILLER = "alpha bravo charlie delta echo foxtrot golf"


def seconds(*texts: tuple[float, str]) -> TranscriptIndex:
    """One-second segments from (start, text) pairs."""
    return TranscriptIndex([Segment(start, start + 1.0, text) for start, text in texts])


def timeline(target_at: float, target: str, *, after: bool) -> TranscriptIndex:
    """A segment a second of filler words from 0 to 120 s, and `target` in the segment at
    `target_at`, on its side away from `start` (`after`: behind a filler line, else before
    one), so the window's extension by the quote's length in words reaches only filler."""
    text = f"{FILLER} {target}" if after else f"{target} {FILLER}"
    pairs = [(float(t), FILLER) for t in range(120) if float(t) != target_at]
    return seconds(*sorted([*pairs, (target_at, text)]))


QUOTE = "merkle roots hash every transaction"
START = 60.0


@pytest.mark.parametrize(
    ("at", "after"),
    [(START + 30.0, True), (START - 31.0, False)],  # starts at +30 s; ends at -30 s
    ids=["after", "before"],
)
def test_the_window_reaches_a_segment_touching_30_s_away(at: float, after: bool) -> None:
    verdict = verify_quote(timeline(at, QUOTE, after=after), QUOTE, START)
    assert verdict.ok and verdict.start == at


@pytest.mark.parametrize(
    ("at", "after"),
    [(START + 31.0, True), (START - 32.0, False)],  # a second further out on each side
    ids=["after", "before"],
)
def test_the_window_stops_one_segment_past_30_s(at: float, after: bool) -> None:
    verdict = verify_quote(timeline(at, QUOTE, after=after), QUOTE, START)
    assert not verdict.ok and verdict.failure == "quote-at-other-time"
    assert verdict.found_at == at


def test_the_span_is_ceil_1_25_times_the_quote_words() -> None:
    quote = "one two three four five six seven eight"  # 8 words: a span of 10
    # the 8 words spread over exactly 10 transcript words: all of them in one span
    fits = seconds((0.0, "one two x three four y five six seven eight"))
    assert verify_quote(fits, quote, 0.0).score == 1.0
    # over 11 words: the best span of 10 holds 7 of them
    wider = seconds((0.0, "one two x three four y five six z seven eight"))
    assert verify_quote(wider, quote, 0.0).score == pytest.approx(7 / 8)


def test_the_pass_mark_is_0_8() -> None:
    index = seconds((0.0, "the miners race to find a nonce for each block they build"))
    at_mark = verify_quote(index, "miners race to zzz a", 0.0)  # 4 of 5 words: 0.8
    assert at_mark.ok and at_mark.score == pytest.approx(0.8)
    over = verify_quote(index, "the miners race to find a nonce for zzz yyy qqq", 0.0)
    assert not over.ok  # 8 of 11: 0.727
    just_over = verify_quote(index, "the miners race to find a nonce for each zzz", 0.0)
    assert just_over.ok and just_over.score == pytest.approx(0.9)
    under = verify_quote(index, "the miners race to find a nonce zzz yyy", 0.0)
    assert not under.ok and under.score == pytest.approx(7 / 9)
    assert under.failure == "quote-not-found"
