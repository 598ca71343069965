"""The extractive answer: real caption passages, cited and timed, labelled as not generated."""

from __future__ import annotations

import re

import pytest

from tests.unit.ask.conftest import BITCOIN
from v2c_desktop.core.ask.citations import check_text, cited_numbers
from v2c_desktop.core.ask.extractive import HEADER, NOT_COVERED, extractive_answer
from v2c_desktop.core.ask.matching import normalise_space
from v2c_desktop.core.ask.sources import Source, SourceRange, number_sources
from v2c_desktop.core.domain.videos import Segment

pytestmark = pytest.mark.corpus

BULLET = re.compile(r"^- “(?P<text>.+)” \[(?P<n>\d+)\] \((?P<time>\d+:\d\d)\)$")


def bullets(text: str) -> list[re.Match[str]]:
    lines = text.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == ""
    found = [BULLET.match(line) for line in lines[2:]]
    assert all(found), lines
    return [m for m in found if m]


def test_block_reward_question(sources: list[Source]) -> None:
    answer = extractive_answer("How big is the block reward?", sources)
    found = bullets(answer.text)
    assert 1 <= len(found) <= 5
    assert "block reward" in found[0]["text"]
    assert {m["n"] for m in found} == {"1"}  # the bitcoin video (source 2 of 3) is cited first
    assert [(s.n, s.video_id) for s in answer.sources] == [
        (1, sources[1].video_id),
        (2, sources[0].video_id),
        (3, sources[2].video_id),
    ]
    texts = [m["text"] for m in found]
    # whole sentences, alone or with the neighbours that belong with them
    quoted = " ".join(texts)
    assert "In the beginning, these rewards were 50 Bitcoin per block." in quoted
    assert "So right now, the reward is 12.5 Bitcoin per block." in quoted
    for match in found:  # verbatim caption text, never paraphrased
        assert match["text"] in normalise_space(sources[1].text)
    assert [c.n for c in answer.citations] == [1] * len(found)  # one citation per bullet
    assert all(c.video_id == sources[1].video_id and c.verified for c in answer.citations)
    assert "block reward" in answer.citations[0].quote


def test_a_fragment_is_widened_to_its_whole_sentence(sources: list[Source]) -> None:
    answer = extractive_answer("Is there a limit of 21 million?", sources)
    first = bullets(answer.text)[0]
    assert first["text"] == (
        "And because this reward decreases geometrically over time, "
        "it means there will never be more than 21 million Bitcoin in existence."
    )
    assert first["time"] == "23:00"  # the sentence's first line, 1380.72 s


def test_gpt_question_cites_the_gpt_video(sources: list[Source]) -> None:
    answer = extractive_answer("What does GPT stand for?", sources, max_points=2)
    found = bullets(answer.text)
    assert found[0]["text"] == "The initials GPT stand for Generative Pretrained Transformer."
    assert (found[0]["n"], found[0]["time"]) == ("1", "0:00")
    assert len(found) <= 2
    assert answer.citations[0].n == 1
    assert answer.citations[0].video_id == sources[2].video_id
    assert answer.citations[0].url == "https://www.youtube.com/watch?v=wjZofJX0v4M&t=0s"


def test_passages_never_overlap_and_markers_are_valid(sources: list[Source]) -> None:
    answer = extractive_answer("bitcoin block reward miners transaction fees", sources)
    found = bullets(answer.text)
    texts = [m["text"] for m in found]
    assert len(texts) == len(set(texts))
    for a in texts:
        for b in texts:
            assert a == b or a not in b
    valid = {s.n for s in answer.sources}
    assert check_text(answer.text, valid) == (answer.text, [])
    assert len(answer.citations) == len(found)  # one citation per bullet, in bullet order
    assert [c.n for c in answer.citations] == [int(m["n"]) for m in found]
    assert list(dict.fromkeys(c.n for c in answer.citations)) == cited_numbers(answer.text)
    first_seen = list(dict.fromkeys(cited_numbers(answer.text)))
    assert first_seen == list(range(1, len(first_seen) + 1))  # numbered as they are read


def test_nothing_matches_says_so_plainly(sources: list[Source]) -> None:
    answer = extractive_answer("How do I bake sourdough bread?", sources)
    assert answer.text == NOT_COVERED
    assert answer.citations == []
    assert extractive_answer("anything", []).text == NOT_COVERED


def test_caption_text_that_looks_like_a_marker_is_not_a_citation() -> None:
    segments = [Segment(0.0, 4.0, "The proof is in reference [2] of the paper.")]
    answer = extractive_answer(
        "Where is the proof?", number_sources([SourceRange(BITCOIN, segments)])
    )
    assert bullets(answer.text)[0]["text"] == "The proof is in reference of the paper."
    assert cited_numbers(answer.text) == [1]


def test_max_points_must_be_positive(sources: list[Source]) -> None:
    with pytest.raises(ValueError):
        extractive_answer("block reward", sources, max_points=0)


def test_a_passage_cut_inside_a_sentence_shows_ellipses() -> None:
    """Auto captions have no stops, so a passage is a fragment: marked `…` on both sides."""
    segments = [
        Segment(0.0, 3.0, "so the miners keep listening for new"),
        Segment(3.0, 6.0, "transactions and they build blocks out of"),
        Segment(6.0, 9.0, "them and broadcast those blocks"),
    ]
    answer = extractive_answer(
        "How do miners build blocks?", number_sources([SourceRange(BITCOIN, segments)])
    )
    shown = bullets(answer.text)[0]["text"]
    assert shown.startswith("…") and shown.endswith("…")
    citation = answer.citations[0]
    assert citation.cut_start and citation.cut_end
    assert citation.shown_quote == f"…{citation.quote}…"
    assert "…" not in citation.quote  # the quote itself stays verbatim for verification


def test_whole_sentences_show_no_ellipsis(sources: list[Source]) -> None:
    answer = extractive_answer("What does GPT stand for?", sources, max_points=1)
    citation = answer.citations[0]
    assert bullets(answer.text)[0]["text"] == (
        "The initials GPT stand for Generative Pretrained Transformer."
    )
    assert not citation.cut_start and not citation.cut_end
    assert citation.shown_quote == citation.quote
