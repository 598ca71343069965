"""The query syntax, phrase matching and exclusions."""

from __future__ import annotations

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.search.query import (
    MAX_QUERY_CHARS,
    ParsedQuery,
    excluded,
    parse_query,
    phrase_matches,
    satisfies,
)


def test_plain_words_are_stemmed_keyword_terms() -> None:
    parsed = parse_query("timing chains")
    assert parsed == ParsedQuery(["time", "chain"], [], [], [], "timing chains")


def test_stop_words_are_not_terms_but_are_embedded() -> None:
    parsed = parse_query("does the engine use a cam chain or a belt")
    assert parsed.terms == ["engin", "use", "cam", "chain", "belt"]
    assert parsed.text_for_embedding == "does the engine use a cam chain or a belt"


def test_phrase_is_required_and_its_words_are_terms() -> None:
    parsed = parse_query('"Land Cruiser killer" review')
    assert parsed.phrases == ["Land Cruiser killer"]
    assert parsed.terms == ["land", "cruiser", "killer", "review"]
    assert parsed.text_for_embedding == "Land Cruiser killer review"


def test_excluded_word_and_phrase() -> None:
    parsed = parse_query('oil -coolers -"oil pan" leak')
    assert parsed.terms == ["oil", "leak"]
    assert parsed.excluded_terms == ["cooler"]
    assert parsed.excluded_phrases == ["oil pan"]
    assert parsed.phrases == []
    assert parsed.text_for_embedding == "oil leak"


def test_hyphen_inside_a_word_is_not_an_exclusion() -> None:
    parsed = parse_query("30-minute state-of-the-art")
    assert parsed.excluded_terms == [] and parsed.excluded_phrases == []
    assert parsed.terms == ["30", "minut", "state", "art"]


def test_hyphenated_exclusion_is_a_phrase() -> None:
    parsed = parse_query("drive -30-minute")
    assert parsed.excluded_terms == []
    assert parsed.excluded_phrases == ["30-minute"]


def test_lone_dash_is_ignored() -> None:
    parsed = parse_query("oil - cooler")
    assert parsed.terms == ["oil", "cooler"]
    assert parsed.excluded_terms == []


def test_excluded_model_code_is_the_whole_code() -> None:
    parsed = parse_query("engine -M113")
    assert parsed.excluded_terms == ["m113"]
    assert excluded(parsed, "the M113 engine")
    assert not excluded(parsed, "the 113 motor")


@pytest.mark.parametrize(
    ("query", "phrases", "text"),
    [
        ('"Land Cruiser killer', ["Land Cruiser killer"], "Land Cruiser killer"),
        ('engine "cam chain', ["cam chain"], "engine cam chain"),
        ('-"oil cooler', [], ""),
        ("“curly quotes” work", ["curly quotes"], "curly quotes work"),
    ],
)
def test_unbalanced_and_curly_quotes(query: str, phrases: list[str], text: str) -> None:
    if not text:
        with pytest.raises(V2CError):
            parse_query(query)
        return
    parsed = parse_query(query)
    assert parsed.phrases == phrases
    assert parsed.text_for_embedding == text


def test_unclosed_exclusion_phrase_runs_to_the_end() -> None:
    parsed = parse_query('engine -"oil cooler')
    assert parsed.excluded_phrases == ["oil cooler"]
    assert parsed.terms == ["engin"]


def test_quote_glued_to_a_word_starts_a_phrase() -> None:
    parsed = parse_query('engine"cam chain"belt')
    assert parsed.phrases == ["cam chain"]
    assert parsed.terms == ["engin", "cam", "chain", "belt"]


def test_phrase_whitespace_is_collapsed_and_duplicates_dropped() -> None:
    parsed = parse_query('"cam   chain" "cam chain" cam')
    assert parsed.phrases == ["cam chain"]
    assert parsed.terms == ["cam", "chain"]


@pytest.mark.parametrize("query", ["", "   ", "-oil", '-"oil cooler"', "-oil -cooler", '""', "?!"])
def test_nothing_to_look_for_is_a_bad_request(query: str) -> None:
    with pytest.raises(V2CError) as caught:
        parse_query(query)
    assert caught.value.code == "bad-request"
    assert caught.value.hint == "add at least one word to look for; -word only excludes"


def test_only_exclusions_message_says_so() -> None:
    with pytest.raises(V2CError, match="only excludes"):
        parse_query("-oil")


def test_only_stop_words_is_still_a_query_for_the_vector_side() -> None:
    parsed = parse_query("what is it")
    assert parsed.terms == []
    assert parsed.text_for_embedding == "what is it"


def test_too_long_is_a_bad_request() -> None:
    assert parse_query("a" * MAX_QUERY_CHARS).terms == ["a" * MAX_QUERY_CHARS]
    with pytest.raises(V2CError) as caught:
        parse_query("chain " * 100)
    assert caught.value.code == "bad-request"
    assert "500" in caught.value.message


def test_to_dict_for_meta() -> None:
    parsed = parse_query('"cam chain" -belt timing')
    assert parsed.to_dict() == {
        "terms": ["cam", "chain", "time"],
        "phrases": ["cam chain"],
        "excluded_terms": ["belt"],
        "excluded_phrases": [],
        "text_for_embedding": "cam chain timing",
    }
    parsed.to_dict()["terms"].append("x")
    assert parsed.terms == ["cam", "chain", "time"]


# --- phrase matching ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "text"),
    [
        ("Land Cruiser killers", "it's a real land cruiser killer, honestly"),
        ("land cruiser killer", "These are LAND CRUISER KILLERS."),
        ("timing chain", "single overhead cam motor, it's timing chains"),
        ("running the engine", "we ran it after they're run... running the engines"),
        ("cafe racer", "a Café Racer build"),
        ("M113 engine", "the M113 engine"),
        ("land cruiser killer", "Land Cruiser, uh, killer"),  # a hesitation in between
        ("chain", "cam chains"),
        ("", "anything"),
    ],
)
def test_phrase_matches(phrase: str, text: str) -> None:
    assert phrase_matches(phrase, text)


@pytest.mark.parametrize(
    ("phrase", "text"),
    [
        ("land cruiser killer", "land cruiser, a killer"),  # not contiguous
        ("cruiser killer land", "land cruiser killer"),  # order matters
        ("the cam chain", "a cam chain"),  # stop words count in a phrase
        ("cam chain", "camchain"),
        ("113 engine", "the M113 engine"),  # a phrase is word for word: no code parts
        ("chain", "chainsaw"),
        ("kill", "killer"),  # -er is not stemmed
    ],
)
def test_phrase_does_not_match(phrase: str, text: str) -> None:
    assert not phrase_matches(phrase, text)


def test_phrase_may_span_joined_segments() -> None:
    chunk_text = " ".join(["and that is why we call it the Land", "Cruiser killer. Next up"])
    assert phrase_matches("Land Cruiser killer", chunk_text)


# --- exclusions ---------------------------------------------------------------------------


def test_excluded_word_also_excludes_its_plural() -> None:
    parsed = parse_query("oil -cooler")
    assert excluded(parsed, "the oil coolers leak")
    assert excluded(parsed, "an Oil Cooler")
    assert not excluded(parsed, "the oil is cool")
    assert not excluded(parsed, "oil pressure")


def test_excluded_phrase() -> None:
    parsed = parse_query('engine -"oil cooler"')
    assert excluded(parsed, "check the oil coolers first")
    assert not excluded(parsed, "the oil runs to a cooler")


def test_excluded_stop_word_is_taken_literally() -> None:
    parsed = parse_query("engine -the")
    assert parsed.excluded_terms == ["the"]
    assert excluded(parsed, "the engine")
    assert not excluded(parsed, "an engine")


def test_no_exclusions_exclude_nothing() -> None:
    assert not excluded(parse_query("oil"), "oil cooler")


def test_satisfies_needs_every_phrase_and_no_exclusion() -> None:
    parsed = parse_query('"cam chain" "timing belt" -noise')
    assert satisfies(parsed, "a cam chain, not a timing belt")
    assert not satisfies(parsed, "a cam chain only")
    assert not satisfies(parsed, "a cam chain and a timing belt make noise")
    assert satisfies(parse_query("anything"), "whatever")
