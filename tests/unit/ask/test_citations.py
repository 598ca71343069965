"""Sentences and their citations, and narrowing a citation to the supporting caption line."""

from __future__ import annotations

import re

import pytest

from tests.unit.ask.conftest import BITCOIN, GPT
from v2c_desktop.core.ask.citations import build_citations, narrow, sentences_with_citations
from v2c_desktop.core.ask.matching import QUOTE_CHARS, normalise_space
from v2c_desktop.core.ask.sources import Source, SourceRange, number_sources, source_text
from v2c_desktop.core.domain.videos import Segment

pytestmark = pytest.mark.corpus


def test_sentences_and_the_numbers_each_cites() -> None:
    answer = (
        "The reward started at 50 bitcoin [2]. It is 12.5 now. [2] GPT means "
        "Generative Pretrained Transformer [1][3]!\nNo citation here\n"
        "Twice cited [1, 2]."
    )
    assert sentences_with_citations(answer) == [
        ("The reward started at 50 bitcoin.", [2]),
        ("It is 12.5 now.", [2]),
        ("GPT means Generative Pretrained Transformer!", [1, 3]),
        ("No citation here", []),
        ("Twice cited.", [1, 2]),
    ]


def test_sentences_of_the_spec_answer() -> None:
    answer = (
        "The G55 AMG compressor engine makes 491 horsepower [5]. One known issue is that it "
        '"drinks a little oil" as it ages [5][6].'
    )
    assert [n for _, n in sentences_with_citations(answer)] == [[5], [5, 6]]


def test_cjk_sentences() -> None:
    assert sentences_with_citations("比特币总量为2100万[2]。奖励减半[2]。") == [
        ("比特币总量为2100万。", [2]),
        ("奖励减半。", [2]),
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # numbers decide: "21 million" finds the one line that says it
        ("There will never be more than 21 million bitcoin.", "21 million Bitcoin"),
        ("Right now the reward stands at 12.5 bitcoin per block.", "12.5 Bitcoin per block"),
        ("Every 210,000 blocks, roughly 4 years, the reward halves.", "every 210,000 blocks"),
        # a paraphrase without numbers
        (
            "Besides the block reward, miners also collect transaction fees.",
            "miners can also pick up transaction fees",
        ),
        # a quote
        ("Many newer cryptocurrencies have much shorter block times than that.", "block times"),
    ],
)
def test_narrowing_finds_the_supporting_segment(
    sources: list[Source], sentence: str, expected: str
) -> None:
    reward = sources[1]
    citation = narrow(reward, sentence)
    assert expected.lower() in citation.quote.lower()
    assert citation.verified
    assert citation.match_score > 0
    segment = next(s for s in reward.segments if expected.lower() in s.text.lower())
    assert citation.start == segment.start
    assert citation.url == f"https://www.youtube.com/watch?v=bBC-nXj3Ng4&t={int(segment.start)}s"
    assert (citation.n, citation.video_id, citation.title) == (2, BITCOIN.id, BITCOIN.title)


def test_a_sentence_spanning_two_lines_cites_both(sources: list[Source]) -> None:
    citation = narrow(
        sources[1],
        "The money in bitcoin comes from the block reward, which began at 50 bitcoin a block.",
    )
    assert citation.start == pytest.approx(1348.58)
    assert citation.end == pytest.approx(1355.74)
    assert citation.quote == (
        "And all of the money in Bitcoin ultimately comes from some block reward. "
        "In the beginning, these rewards were 50 Bitcoin per block."
    )
    assert citation.verified


def test_no_overlap_falls_back_to_the_first_segment(sources: list[Source]) -> None:
    citation = narrow(sources[2], "Sourdough needs a long, slow fermentation.")
    assert citation.match_score == 0
    assert citation.start == sources[2].segments[0].start
    assert citation.quote == sources[2].segments[0].text
    # the quote is real, but it supports nothing the sentence says: listed, not verified
    assert not citation.verified
    assert citation.reason == "the cited passage shares no word with the sentence citing it"
    assert (citation.video_id, citation.channel) == (GPT.id, "3Blue1Brown")


def test_a_long_segment_is_quoted_around_the_matching_words(
    bitcoin_segments: list[Segment],
) -> None:
    minute = [s for s in bitcoin_segments if 1336 <= s.start < 1400]
    one_line = Segment(minute[0].start, minute[-1].end, source_text(minute))
    [source] = number_sources([SourceRange(BITCOIN, [one_line])])
    citation = narrow(source, "The supply stops at 21 million bitcoin.")
    assert len(citation.quote) <= QUOTE_CHARS
    assert "21 million" in citation.quote
    assert citation.verified
    text = source.text
    at = text.index(citation.quote)
    assert at == 0 or text[at - 1] == " "
    end = at + len(citation.quote)
    assert end == len(text) or text[end] == " "


def test_a_quote_not_in_the_source_text_is_not_verified(sources: list[Source]) -> None:
    reward = sources[1]
    edited = Source(
        reward.n,
        reward.video_id,
        reward.title,
        reward.url,
        reward.start,
        reward.end,
        "an edited text",
        reward.segments,
    )
    citation = narrow(edited, "There will never be more than 21 million bitcoin.")
    assert "21 million" in citation.quote
    assert not citation.verified
    assert citation.url == reward.url  # no Video: the source's own link


def test_build_citations_one_per_cited_source_in_order(sources: list[Source]) -> None:
    answer = (
        "GPT stands for Generative Pretrained Transformer [3]. Bitcoin's supply is capped: "
        "there will never be more than 21 million [2]. Miners also earn transaction fees "
        "[2][9]. Bitcoin is a fully digital currency [1]."
    )
    citations = build_citations(answer, sources)
    assert [c.n for c in citations] == [3, 2, 1]
    gpt, reward, intro = citations
    assert "Generative Pretrained Transformer" in gpt.quote
    assert "21 million" in reward.quote  # the best of the two sentences citing [2]
    assert "fully digital currency" in intro.quote
    assert all(c.verified for c in citations)
    assert all(re.search(r"&t=\d+s$", c.url) for c in citations)


def test_quotes_are_normalised_source_text(sources: list[Source]) -> None:
    for segment in sources[1].segments:
        citation = narrow(sources[1], segment.text)
        assert citation.start == segment.start
        assert normalise_space(citation.quote) in normalise_space(sources[1].text)
