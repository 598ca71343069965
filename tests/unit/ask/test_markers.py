"""Citation markers: the streaming filter, whole-text checks, and what counts as a marker."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from v2c_desktop.core.ask.citations import CitationFilter, check_text, cited_numbers
from v2c_desktop.core.ask.markers import MAX_MARKER_CHARS, marker_numbers
from v2c_desktop.core.ask.prompt import strip_citations

# Real answers: the first two are the spec's recorded answers (OVH Llama 3.3 70B and
# gpt-oss-120b); the others are written over the 3Blue1Brown bitcoin sources, with the
# mistakes models make (unknown numbers, list forms, brackets that are not citations).
G55 = (
    "The G55 AMG compressor engine makes 491 horsepower [5]. One known issue with this engine "
    'is that it "drinks a little oil" as it ages, with the example given being a truck with '
    "131,000 miles that drinks a quart and a half of oil between oil changes [5][6]."
)
DESIGNO = (
    "The video says the “designo” seats first appear on the 2012 G‑55 AMG and that the exact "
    "same seats are carried forward unchanged through the later models – they remain on every "
    "G‑Wagon from 2012 up through the 2018 model year (the 2013‑2018 interior generation)[7][13]."
)
BITCOIN = (
    "In the beginning the block reward was 50 bitcoin [2]. Every 210,000 blocks [about 4 "
    "years] the reward is cut in half [2, 9]; right now it is 12.5 bitcoin [12]. There will "
    "never be more than 21 million bitcoin [ 2 ]. Fees go to the miner 【2†L3-L5】 and blocks "
    "hold about 2400 transactions [9]. See [the explorer](https://blockexplorer.com) [[1]] "
    "or [abc] and [1,3]. The last claim is cited at the very end [1]"
)
ANSWERS = {"g55": (G55, {5, 6}), "designo": (DESIGNO, {7, 13}), "bitcoin": (BITCOIN, {1, 2, 3})}


def stream(text: str, valid: set[int], cuts: list[int]) -> tuple[list[str], CitationFilter]:
    """Feed `text` cut at `cuts`; the pieces shown (the last is `finish`) and the filter."""
    checker = CitationFilter(valid)
    bounds = [0, *sorted(cuts), len(text)]
    shown = [checker.feed(text[a:b]) for a, b in pairwise(bounds)]
    shown.append(checker.finish())
    return shown, checker


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_any_split_of_a_real_answer_streams_the_checked_text(name: str) -> None:
    text, valid = ANSWERS[name]
    expected, unverified = check_text(text, valid)
    rng = random.Random(name)
    for trial in range(300):
        if trial == 0:
            cuts = list(range(1, len(text)))  # one character at a time
        else:
            cuts = rng.sample(range(1, len(text)), rng.randint(1, min(60, len(text) - 1)))
        shown, checker = stream(text, valid, cuts)
        assert "".join(shown) == expected
        assert checker.unverified == unverified
        so_far = ""
        for piece in shown:  # nothing shown is ever taken back or names a bad source
            so_far += piece
            assert expected.startswith(so_far)
            assert set(cited_numbers(so_far)) <= valid


def test_real_answers_with_only_valid_numbers_pass_unchanged() -> None:
    assert check_text(G55, {5, 6}) == (G55, [])
    assert check_text(DESIGNO, {7, 13}) == (DESIGNO, [])


def test_the_bitcoin_answer_is_normalised_and_cleaned() -> None:
    text, unverified = check_text(BITCOIN, {1, 2, 3})
    assert text == (
        "In the beginning the block reward was 50 bitcoin [2]. Every 210,000 blocks [about 4 "
        "years] the reward is cut in half [2]; right now it is 12.5 bitcoin. There will "
        "never be more than 21 million bitcoin [2]. Fees go to the miner [2] and blocks "
        "hold about 2400 transactions. See [the explorer](https://blockexplorer.com) [[1]] "
        "or [abc] and [1][3]. The last claim is cited at the very end [1]"
    )
    assert unverified == [9, 12]
    assert cited_numbers(text) == [2, 1, 3]


def test_an_unfinished_marker_is_held_until_its_bracket_arrives() -> None:
    checker = CitationFilter({12})
    assert checker.feed("The reward halves [") == "The reward halves"
    assert checker.feed("1") == ""
    assert checker.feed("2") == ""
    assert checker.feed("]") == " [12]"
    assert checker.feed(".") == "."
    assert checker.finish() == ""
    assert checker.cited == [12]


def test_a_marker_of_unknown_numbers_vanishes_with_the_space_before_it() -> None:
    checker = CitationFilter({1})
    shown = [checker.feed(d) for d in ("491 horsepower ", "[", "4", "]", ".")]
    assert "".join(shown) + checker.finish() == "491 horsepower."
    assert checker.unverified == [4]


def test_text_in_brackets_is_released_at_its_first_letter() -> None:
    checker = CitationFilter({1})
    assert checker.feed("a list [") == "a list"
    assert checker.feed("a") == " [a"
    assert checker.feed("bc] [Music]") == "bc] [Music]"
    assert checker.unverified == []


def test_a_long_run_of_digits_is_not_held_forever() -> None:
    checker = CitationFilter({1})
    out = checker.feed("[")
    for _ in range(MAX_MARKER_CHARS):
        out += checker.feed("1")
    assert out == "[" + "1" * MAX_MARKER_CHARS  # released once it outgrew a marker
    assert checker.finish() == ""


def test_nested_and_mismatched_brackets() -> None:
    assert check_text("x [[1]] y", {1}) == ("x [[1]] y", [])
    assert check_text("x [[9]] y", {1}) == ("x [] y", [9])
    assert check_text("x [1[2]] y", {2}) == ("x [1[2]] y", [])
    assert check_text("x [1】 y", {1}) == ("x [1】 y", [])
    assert check_text("x ［1］ and 【2】 y", {1, 2}) == ("x [1] and [2] y", [])


@pytest.mark.parametrize(
    ("marker", "numbers"),
    [
        ("[3]", [3]),
        ("[1, 3]", [1, 3]),
        ("[1; 3, 3]", [1, 3]),
        ("[ 2 ]", [2]),
        ("[1，3]", [1, 3]),
        ("[1、3]", [1, 3]),
        ("［２］", [2]),
        ("【7†L0-L4】", [7]),
        ("[1 2]", None),
        ("[1,]", None),
        ("[]", None),
        ("[ ]", None),
        ("[abc]", None),
        ("[-1]", None),
        ("[1.5]", None),
        ("[" + "1, " * 10 + "1]", None),  # longer than MAX_MARKER_CHARS
    ],
)
def test_marker_forms(marker: str, numbers: list[int] | None) -> None:
    assert marker_numbers(marker) == numbers


def test_marker_at_the_very_end_and_unfinished_at_the_end() -> None:
    assert check_text("Cited at the end [2]", {2}) == ("Cited at the end [2]", [])
    assert check_text("Cut off [2", {2}) == ("Cut off [2", [])
    assert check_text("Trailing spaces stay  ", {2}) == ("Trailing spaces stay  ", [])
    assert check_text("[9] Starts with a bad marker.", {2}) == (" Starts with a bad marker.", [9])


def test_cited_numbers_in_order_of_first_appearance() -> None:
    assert cited_numbers(G55) == [5, 6]
    assert cited_numbers("a [3] b [1, 3] c [2][1] 【4†x】 [abc] [9") == [3, 1, 2, 4]


def test_strip_citations_removes_every_marker_and_its_space() -> None:
    assert strip_citations(G55) == (
        "The G55 AMG compressor engine makes 491 horsepower. One known issue with this engine "
        'is that it "drinks a little oil" as it ages, with the example given being a truck '
        "with 131,000 miles that drinks a quart and a half of oil between oil changes."
    )
    assert strip_citations("keeps [abc] and [about 4 years] [1, 2]") == (
        "keeps [abc] and [about 4 years]"
    )
