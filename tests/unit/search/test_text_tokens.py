"""The keyword tokenizer: stems, stop words, filler, folding, model codes, spans and speed."""

from __future__ import annotations

import json

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.search.text_tokens import (
    FILLER,
    STOP_WORDS,
    TermSpan,
    fold,
    match_spans,
    phrase_tokens,
    query_terms,
    snippet_terms,
    stem,
    tokenize,
)


@pytest.mark.parametrize(
    ("word", "term"),
    [
        ("chains", "chain"),
        ("running", "run"),
        ("studies", "study"),
        ("boxes", "box"),
        ("quickly", "quick"),
        ("used", "use"),
        ("stopped", "stop"),
        ("cars", "car"),
        ("easily", "easy"),
        ("really", "real"),
        ("agreed", "agree"),
        ("died", "die"),
        ("gpus", "gpu"),
        ("apis", "api"),
        ("potatoes", "potato"),
        ("classes", "class"),
        ("meetings", "meet"),
    ],
)
def test_stem_examples(word: str, term: str) -> None:
    assert stem(word) == term


@pytest.mark.parametrize(
    "word",
    [
        "bus", "this", "thing", "sing", "gas", "yes", "is", "bed", "red", "need", "speed",
        "string", "news", "lens", "series", "species", "focus", "virus", "status", "class",
        "analysis", "nothing", "morning", "evening", "family", "early", "only", "daily",
    ],
)  # fmt: skip
def test_stem_leaves_short_and_tricky_words_alone(word: str) -> None:
    assert stem(word) == word


@pytest.mark.parametrize(
    "family",
    [
        ["chain", "chains", "chained"],
        ["use", "uses", "used", "using"],
        ["make", "makes", "making"],
        ["hope", "hopes", "hoped", "hoping"],
        ["hop", "hops", "hopped", "hopping"],
        ["run", "runs", "running"],
        ["stop", "stops", "stopped", "stopping"],
        ["study", "studies", "studied", "studying"],
        ["compute", "computes", "computed", "computing"],
        ["house", "houses", "housing"],
        ["cause", "causes", "caused", "causing"],
        ["case", "cases"],
        ["size", "sizes", "sized", "sizing"],
        ["create", "creates", "created", "creating"],
        ["relate", "relates", "related", "relating"],
        ["edge", "edges", "edged", "edging"],
        ["add", "adds", "added", "adding"],
        ["miss", "misses", "missed", "missing"],
        ["control", "controls", "controlled", "controlling"],
        ["install", "installs", "installed", "installing"],
        ["box", "boxes", "boxed", "boxing"],
        ["match", "matches", "matched", "matching"],
        ["agree", "agrees", "agreed", "agreeing"],
        ["die", "dies", "died", "dying"],
        ["movie", "movies"],
        ["complete", "completes", "completed", "completely"],
        ["probable", "probably"],
        ["simple", "simply"],
        ["careful", "carefully"],
        ["quick", "quickly"],
        ["easy", "easily"],
        ["killer", "killers"],
        ["type", "types", "typed", "typing"],
        ["value", "values", "valued"],
    ],
)
def test_every_form_of_a_word_meets_on_one_term(family: list[str]) -> None:
    assert len({stem(word) for word in family}) == 1, {word: stem(word) for word in family}


def test_stem_leaves_non_english_letters_and_numbers_alone() -> None:
    assert stem("113") == "113"
    assert stem("straßes") == "straßes"  # not folded: only a-z words are stemmed


def test_tokenize_lowercases_drops_stop_words_and_stems() -> None:
    assert tokenize("The timing chains are running quickly!") == ["time", "chain", "run", "quick"]


def test_duplicates_are_kept_in_order() -> None:
    assert tokenize("chain, chains and a chain") == ["chain", "chain", "chain"]


def test_stop_word_list_is_a_standard_size_and_apostrophe_free() -> None:
    assert 150 <= len(STOP_WORDS) <= 220
    assert {"the", "and", "of", "dont", "its", "thats", "would"} <= STOP_WORDS
    assert not any("'" in w for w in STOP_WORDS)
    # words that look like contractions but carry meaning stay searchable
    assert {"like", "ill", "id", "well", "shed"}.isdisjoint(STOP_WORDS | FILLER)


def test_caption_filler_is_dropped_but_like_is_kept() -> None:
    text = "Um, uh, yeah, okay so I'd like, hmm, the erm cam chain, mm"
    assert tokenize(text) == ["id", "like", "cam", "chain"]


def test_sound_tags_are_skipped_but_bracketed_words_are_not() -> None:
    assert tokenize("[Music] hello back [APPLAUSE] (laughs)") == ["hello", "back"]
    assert tokenize("[INTERPOSING VOICES] fine") == ["fine"]
    assert tokenize("[? dystring ?] and (k+1)") == ["dystr", "k", "1"]
    assert tokenize("the music was loud") == ["music", "loud"]


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("café", "cafe"),
        ("CAFÉ Café cafe\u0301", "cafe cafe cafe"),  # precomposed and combining accents
        ("Ångström", "angstrom"),
        ("Straße", "strasse"),
        ("Søren Kierkegaard", "soren kierkegaard"),
        ("naïve résumé", "naive resume"),
        ("Œuvre Łódź", "oeuvre lodz"),
    ],
)
def test_diacritics_are_folded(text: str, plain: str) -> None:
    assert tokenize(text) == tokenize(plain)
    assert [fold(word) for word in text.split()] == plain.split()


def test_fold() -> None:
    assert fold("Don't") == "dont"
    assert fold("DON’T") == "dont"
    assert fold("Éclair") == "eclair"


def test_apostrophes_join_and_hyphens_split() -> None:
    assert tokenize("don't") == []  # "dont" is a stop word
    assert phrase_tokens("don't") == ["dont"]
    assert tokenize("the driver's cars, the drivers' car") == ["driver", "car", "driver", "car"]
    assert tokenize("a 30-minute drive") == ["30", "minut", "drive"]
    assert tokenize("rock ’n’ roll") == ["rock", "n", "roll"]


def test_model_codes_stay_whole_and_add_their_parts() -> None:
    assert tokenize("M113") == ["m113", "113"]
    assert tokenize("the W463 platform") == ["w463", "463", "platform"]
    assert tokenize("gpt4") == ["gpt4", "gpt", "4"]
    assert tokenize("3b1b") == ["3b1b", "3", "1"]
    assert tokenize("mp3") == ["mp3", "mp", "3"]
    assert tokenize("60fps") == ["60fps", "60", "fps"]
    assert tokenize("the 19th century") == ["19th", "19", "century"]  # no "th" term
    assert tokenize("M113s and the 1990s") == ["m113", "113", "1990"]


def test_m113_query_matches_a_speaker_saying_the_113_motor() -> None:
    document = set(tokenize("and that's the 113 motor, a great engine"))
    assert set(query_terms("M113")) & document == {"113"}
    # and a document saying the code matches a query for the bare number
    assert "113" in tokenize("the M113 is reliable")
    # GPT-4 and gpt4 meet too
    assert set(query_terms("GPT-4")) <= set(tokenize("gpt4"))


def test_query_terms_are_the_same_processing_each_once() -> None:
    assert query_terms("Chains chain CHAINED timing") == ["chain", "time"]
    text = "The timing chains of the M113 are running"
    assert query_terms(text) == list(dict.fromkeys(tokenize(text)))


def test_phrase_tokens_keep_stop_words_and_filler_but_not_hesitations() -> None:
    assert phrase_tokens("The cam chains, um, of it") == ["the", "cam", "chain", "of", "it"]
    assert phrase_tokens("okay Google") == ["okay", "googl"]
    assert phrase_tokens("M113 engine") == ["m113", "engin"]


def test_snippet_terms_point_into_the_original_text() -> None:
    text = "Ångström’s timing CHAINS — don't [Music] M113!"
    spans = snippet_terms(text)
    assert [text[s:e] for s, e, _ in spans] == ["Ångström’s", "timing", "CHAINS", "don't", "M113"]
    assert [t for _, _, t in spans] == ["angstrom", "time", "chain", "dont", "m113"]
    assert spans[0] == TermSpan(0, 10, "angstrom")


def test_snippet_terms_with_combining_marks_keep_original_offsets() -> None:
    text = "a cafe\u0301 here"
    [_, cafe, here] = snippet_terms(text)
    assert text[cafe.start : cafe.end] == "cafe\u0301" and cafe.term == "cafe"
    assert text[here.start : here.end] == "here"


def test_match_spans_bold_words_and_model_code_parts() -> None:
    text = "The M113 motor, like the 113, has chains."
    found = [text[s:e] for s, e in match_spans(text, {"113", "chain"})]
    assert found == ["M113", "113", "chains"]


def test_non_latin_scripts_are_words_too() -> None:
    assert tokenize("Привет мир") == ["привет", "мир"]
    assert tokenize("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]  # vowel signs are not diacritics
    assert tokenize("한국어") == ["한국어"]


@pytest.mark.corpus
def test_tokenizing_the_whole_corpus() -> None:
    index = json.loads(corpus_path("transcripts/INDEX.json").read_text(encoding="utf-8"))
    texts = [
        " ".join(s.text for s in parse_captions(corpus_path(entry["path"]).read_bytes()))
        for entry in index
    ]
    words = sum(len(t.split()) for t in texts)
    assert words > 250_000
    terms = sum(len(tokenize(t)) for t in texts)
    assert terms > 100_000
