"""Topic names of extractive briefs: the concepts the passages share, not their asides."""

from __future__ import annotations

from tests.conftest import corpus_path
from v2c_desktop.core.briefs.topic_names import TALK_WORDS, TermStats, key_terms, topic_name
from v2c_desktop.core.captions import parse_captions

GRADIENT = "transcripts/3blue1brown/2017_gradient-descent/captions.en.srt"
BACKPROP = "transcripts/3blue1brown/2017_backpropagation/captions.en.srt"


def lines(*relative: str) -> list[str]:
    out: list[str] = []
    for r in relative:
        path = corpus_path(r)
        out += [
            s.text for s in parse_captions(path.read_text(encoding="utf-8"), source_name=path.name)
        ]
    return out


def test_a_recurring_concept_names_the_topic_and_an_aside_does_not() -> None:
    stats = TermStats(lines(GRADIENT, BACKPROP))
    passages = [
        "The cost function takes the weights and biases and spits out a single number.",
        "Anyway, the cost function is small when the network classifies images correctly.",
    ]
    name = topic_name(passages, ["How does a network learn?"], stats)
    assert name.split(", ")[0] == "cost function"
    assert "anyway" not in name


def test_the_question_words_in_any_form_and_taken_names_are_skipped() -> None:
    stats = TermStats(lines(GRADIENT))
    passages = ["Gradient descent nudges every weight downhill along the negative gradient."]
    name = topic_name(passages, ["What is gradient descent?"], stats).split(", ")
    assert "gradient descent" not in name and "gradient" not in name and "descent" not in name
    first = topic_name(passages, ["How do networks learn?"], stats)
    again = topic_name(passages, ["How do networks learn?"], stats, taken=[first])
    assert again != first


def test_key_terms_are_what_the_videos_keep_saying() -> None:
    terms = key_terms(TermStats(lines(GRADIENT, BACKPROP)), ["How do networks learn?"], 8)
    assert "cost function" in terms
    assert not set(" ".join(terms).split()) & TALK_WORDS
