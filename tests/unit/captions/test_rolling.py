"""YouTube rolling auto-captions must read like speech: every word once, in order."""

from __future__ import annotations

import itertools
import re

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.captions.cue import RawCue
from v2c_desktop.core.captions.rolling import collapse_rolling, looks_rolling

from .helpers import assert_clean, back_to_back_repeat, words

MODERN = "youtube-native/yt-dlp-vtt-2026/youtube_auto_zjkBMFhNj_g.en.vtt"
OLD_VTT = "youtube-native/youtube-dl-autocaption-vtt-2018/test.en.vtt"
OLD_SRT = "youtube-native/youtube-dl-autocaption-vtt-2018/test.srt"
_WORD_TIMING = re.compile(r"<\d{2}:\d{2}:\d{2}\.\d{3}>")


def timed_words(raw: str) -> list[str]:
    """The words of the lines that carry per-word timing tags: the newly spoken lines."""
    found: list[str] = []
    for line in raw.split("\n"):
        if _WORD_TIMING.search(line):
            found += re.sub(r"<[^>]+>", "", line).split()
    return found


@pytest.mark.corpus
def test_modern_auto_vtt_reads_every_word_once() -> None:
    raw = corpus_path(MODERN).read_text(encoding="utf-8")
    segments = parse_captions(raw, source_name="youtube_auto_zjkBMFhNj_g.en.vtt")

    assert_clean(segments)
    # 108 cue pairs (a spoken line + its 10 ms switch cue) become one segment per line.
    assert 50 <= len(segments) <= 60
    assert segments[0].text == "hi everyone so recently I gave a"
    assert segments[0].start == pytest.approx(0.16)
    assert segments[1].text == "30-minute talk on large language models"
    assert segments[-1].text == "140 gigabytes and it's two bytes because"
    assert segments[-1].end == pytest.approx(121.23)
    assert back_to_back_repeat(words(segments)) is None
    assert words(segments) == timed_words(raw)
    text = " ".join(segment.text for segment in segments)
    assert "the busy person's intro to large language models" in text


@pytest.mark.corpus
def test_modern_auto_vtt_segments_follow_each_other() -> None:
    segments = parse_captions(corpus_path(MODERN).read_bytes())
    # Each line ends when the next begins (the 10 ms switch cue stretches it).
    for before, after in itertools.pairwise(segments):
        assert before.end == pytest.approx(after.start, abs=0.011)


@pytest.mark.corpus
@pytest.mark.parametrize("relative", [OLD_VTT, OLD_SRT])
def test_2018_autocaptions_read_every_word_once(relative: str) -> None:
    raw_vtt = corpus_path(OLD_VTT).read_text(encoding="utf-8")
    segments = parse_captions(corpus_path(relative).read_bytes(), source_name=relative)

    assert_clean(segments)
    assert 60 <= len(segments) <= 70
    assert segments[0].text == "today's fire income will tell details"
    assert segments[0].start == pytest.approx(13.67)
    assert segments[-1].text == "[Music]"
    assert back_to_back_repeat(words(segments)) is None
    # Lines of a single word carry no word timing in the file: "now", "cinematics" and the
    # two [Music] tags. Everything else must match the word-timed lines exactly.
    untimed = {"now", "cinematics", "[Music]"}
    assert [w for w in words(segments) if w not in untimed] == [
        w for w in timed_words(raw_vtt) if w not in untimed
    ]
    assert words(segments).count("now") == 1
    assert words(segments).count("cinematics") == 1
    text = " ".join(segment.text for segment in segments)
    assert "so yeah tilted towers lives to see another day" in text


@pytest.mark.corpus
def test_2018_music_tag_is_kept_once_over_the_whole_stretch() -> None:
    segments = parse_captions(corpus_path(OLD_VTT).read_bytes())
    music = [segment for segment in segments if segment.text == "[Music]"]
    # Three [Music] cues in a row (43.6 s - 142.1 s) become one; the outro tag is the other.
    assert len(music) == 2
    assert music[0].start == pytest.approx(43.62)
    assert music[0].end == pytest.approx(142.07)
    assert music[1].start == pytest.approx(236.89)
    assert music[1].end == pytest.approx(256.719)


@pytest.mark.corpus
def test_2018_vtt_and_its_srt_conversion_agree() -> None:
    from_vtt = parse_captions(corpus_path(OLD_VTT).read_bytes())
    from_srt = parse_captions(corpus_path(OLD_SRT).read_bytes())
    assert from_vtt == from_srt


ROLLING_SRT = """\
1
00:00:01,000 --> 00:00:03,000

so this is how it goes

2
00:00:03,000 --> 00:00:03,010
so this is how it goes

3
00:00:03,010 --> 00:00:05,000
so this is how it goes
every line comes back once

4
00:00:05,000 --> 00:00:05,010
every line comes back once

5
00:00:05,010 --> 00:00:07,000
every line comes back once
and then it scrolls away
"""


def test_rolling_srt_is_collapsed() -> None:
    segments = parse_captions(ROLLING_SRT, source_name="rolling.srt")
    assert [(s.start, s.end, s.text) for s in segments] == [
        (1.0, 3.01, "so this is how it goes"),
        (3.01, 5.01, "every line comes back once"),
        (5.01, 7.0, "and then it scrolls away"),
    ]


def test_creator_captions_are_not_collapsed() -> None:
    # A line said twice in creator captions is kept: the roll-up pattern is not there.
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\nYes.\n\n"
        "2\n00:00:02,000 --> 00:00:03,000\nYes.\n\n"
        "3\n00:00:03,000 --> 00:00:04,000\nNo.\n"
    )
    assert [s.text for s in parse_captions(text)] == ["Yes.", "Yes.", "No."]


def _cue(start: float, *lines: str) -> RawCue:
    return RawCue(start, start + 1, list(lines))


def test_looks_rolling_needs_a_pattern_not_a_coincidence() -> None:
    rolling = [_cue(0, "a"), _cue(1, "a", "b"), _cue(2, "b", "c"), _cue(3, "c", "d")]
    assert looks_rolling(rolling)
    two_hits = [_cue(0, "a"), _cue(1, "a", "b"), _cue(2, "b"), _cue(3, "x")]
    assert not looks_rolling(two_hits)
    plain = [_cue(i, f"line {i}") for i in range(20)]
    assert not looks_rolling(plain)


def test_collapse_rolling_keeps_new_lines_and_stretches_repeats() -> None:
    cues = [_cue(0, "a"), _cue(1, "a"), _cue(2, "a", "b"), _cue(3, "b"), _cue(4, "b", "c", "d")]
    collapsed = collapse_rolling(cues)
    assert [(c.start, c.end, c.lines) for c in collapsed] == [
        (0, 2, ["a"]),
        (2, 4, ["b"]),
        (4, 5, ["c", "d"]),
    ]
