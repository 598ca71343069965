"""Real WebVTT and SRT files: creator, professional, Whisper and reconstructed auto-captions."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.captions import parse_captions

from .helpers import FIXTURES, assert_clean

WOODENFISH = (
    "transcripts/woodenfish-2024-buddhism-ai-autocaptions/"
    "IZ6G50pqbIY__Bill-Duane-Buddha-and-the-Corporation-in-an-AI-world.reconstructed.vtt"
)
MIT_BAYES = (
    "transcripts/mit-ocw/bayes-probabilistic-inference/"
    "res-6-012-introduction-to-probability-spring-2018__the-bayesian-inference-framework.vtt"
)
CRASHCOURSE = (
    "transcripts/crashcourse-psychology/"
    "intro_to_psychology_crash_course_psychology_1_vo4pMVb0R6M.en.srt"
)
WHISPER = "transcripts/pycon-us-2023-whisper/testing/10-ways-to-shoot-yourself-in-the-foot-with-tests.whisper.srt"  # noqa: E501


@pytest.mark.corpus
def test_creator_vtt_two_line_cues_become_one_line() -> None:
    path = corpus_path("youtube-native/yt-dlp-vtt-2026/youtube_manual_iG9CE55wbtY.en.vtt")
    segments = parse_captions(path.read_bytes(), source_name=path.name)
    assert_clean(segments)
    assert len(segments) == 36
    assert segments[0].text == "Good morning. How are you?"
    assert segments[0].start == pytest.approx(27.103)
    assert segments[0].end == pytest.approx(29.678)
    texts = [segment.text for segment in segments]
    assert "There have been three themes running through the conference," in texts
    assert texts.count("(Laughter)") == 5
    assert segments[-1].text == (
        "because it's one of those things that goes deep with people, am I right?"
    )


@pytest.mark.corpus
def test_mit_ocw_vtt_with_numbered_cues() -> None:
    segments = parse_captions(corpus_path(MIT_BAYES).read_bytes(), source_name="bayes.vtt")
    assert_clean(segments)
    assert len(segments) == 176
    assert segments[0].text == "We can finally go ahead and introduce the basic elements"
    assert segments[1].text == "of the Bayesian inference framework."
    assert segments[-1].text == "it takes to go through these various steps."
    assert segments[-1].end == pytest.approx(588.78)


@pytest.mark.corpus
def test_woodenfish_reconstructed_autocaptions_are_left_as_they_are() -> None:
    segments = parse_captions(corpus_path(WOODENFISH).read_bytes(), source_name="bill.vtt")
    assert_clean(segments)
    # Already de-duplicated upstream: every cue stays a segment.
    assert 520 <= len(segments) <= 540
    assert segments[0].text == "we have"
    assert segments[-1].text == "on time yay"
    assert segments[-2].text == "that and that's my talk and I finished"


@pytest.mark.corpus
def test_whisper_srt() -> None:
    segments = parse_captions(corpus_path(WHISPER).read_bytes(), source_name="10-ways.srt")
    assert_clean(segments)
    assert len(segments) == 397
    assert segments[0].text == "Okay, you know where? Okay, I'm ready."
    assert (segments[0].start, segments[0].end) == (0.0, 3.0)
    assert segments[-1].text == "Thank you very much."
    assert "Hi everybody, thanks for coming." in [segment.text for segment in segments]


@pytest.mark.corpus
def test_crashcourse_creator_srt() -> None:
    segments = parse_captions(corpus_path(CRASHCOURSE).read_bytes(), source_name="intro.en.srt")
    assert_clean(segments)
    assert len(segments) == 150
    assert segments[0].text.startswith("That dream about the dinosaur in the leotard")
    assert segments[-1].text == "team is Thought Cafe."


@pytest.mark.corpus
def test_3blue1brown_cues_ending_before_they_start_get_a_usable_end() -> None:
    path = corpus_path("transcripts/3blue1brown/2017_gradient-descent/captions.en.srt")
    segments = parse_captions(path.read_bytes(), source_name="captions.en.srt")
    assert_clean(segments)
    assert len(segments) == 302
    thanks, last = segments[-2], segments[-1]
    # Cue 301 (20:07.125 -> 20:06.800): ends when cue 302 starts.
    assert thanks.text.startswith("I also want to give a special thanks to the VC firm")
    assert (thanks.start, thanks.end) == (1207.125, 1207.46)
    # Cue 302 is the last one: start + reading time (12 words * 0.3 s).
    assert last.text == "and their support of these initial videos in the series. Thank you."
    assert last.start == 1207.46
    assert last.end == pytest.approx(1207.46 + 3.6)


@pytest.mark.corpus
def test_3blue1brown_same_start_cue_gets_reading_time() -> None:
    path = corpus_path("transcripts/3blue1brown/2017_neural-networks/captions.en.srt")
    segments = parse_captions(path.read_bytes(), source_name="captions.en.srt")
    assert_clean(segments)
    cue = next(s for s in segments if s.text.startswith("Organize all of the activations"))
    # Cue 214 ends before it starts and the next cue starts at the same moment.
    assert cue.start == pytest.approx(821.38)
    assert cue.end == pytest.approx(821.38 + 14 * 0.3)


@pytest.mark.corpus
@pytest.mark.parametrize("slug", ["2020_better-bayes", "2020_ldm-eulers-formula"])
def test_3blue1brown_lone_full_stop_cue_is_dropped(slug: str) -> None:
    path = corpus_path(f"transcripts/3blue1brown/{slug}/captions.en.srt")
    segments = parse_captions(path.read_bytes(), source_name="captions.en.srt")
    assert_clean(segments)
    assert segments[-1].text != "."
    assert all(segment.text != "." for segment in segments)


def test_excerpt_fixture_srt() -> None:
    segments = parse_captions((FIXTURES / "pycon_10ways_excerpt.srt").read_bytes())
    assert_clean(segments)
    assert len(segments) == 14
    assert (
        segments[4].text == "Good evening, my name is Ty. My green name is Steve for a while now."
    )


def test_srt_markup_and_entities_come_out() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:02,500\n"
        '{\\an8}<i>Hello</i> &amp; <font color="#fff">welcome</font>\n\n'
        "2\n00:00:02,500 --> 00:00:04,000\nx < y  and\u00a0y > z\n\n"
        "3\n00:00:04,000 --> 00:00:05,000\n   \n\n"
        "4\n00:00:05,000 --> 00:00:06,000\n♪\n"
    )
    segments = parse_captions(text, source_name="markup.srt")
    assert [s.text for s in segments] == ["Hello & welcome", "x < y and y > z", "♪"]


def test_vtt_tags_voice_and_entities_come_out() -> None:
    text = (
        "WEBVTT - with a title\n\nNOTE a comment\n\nSTYLE\n::cue { color: red }\n\n"
        "intro\n00:01.000 --> 00:02.000 align:start\n<v Roger>Hi&nbsp;there</v> &lt;3\n\n"
        "00:00:02.000 --> 00:00:03.000\n<c.yellow>two</c>\n<b>lines</b>\n"
    )
    segments = parse_captions(text)
    assert [(s.start, s.end, s.text) for s in segments] == [
        (1.0, 2.0, "Hi there <3"),
        (2.0, 3.0, "two lines"),
    ]


def test_out_of_order_cues_are_sorted() -> None:
    text = "2\n00:00:05,000 --> 00:00:06,000\nsecond\n\n1\n00:00:01,000 --> 00:00:02,000\nfirst\n"
    assert [s.text for s in parse_captions(text)] == ["first", "second"]
