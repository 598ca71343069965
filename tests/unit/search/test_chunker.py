"""The chunker: every rule on small hand-built transcripts, then its promises on real ones."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Chapter, Segment
from v2c_desktop.core.search.chunker import Chunk, chunk_transcript, ends_sentence

MIN_S, MAX_S, PAUSE_S, OVERLAP_S = 30.0, 60.0, 1.0, 8.0


def even(count: int, length: float, text: str = "word", gap: float = 0.0) -> list[Segment]:
    """`count` segments of `length` seconds, `gap` apart, all with the same text."""
    return [Segment(i * (length + gap), i * (length + gap) + length, text) for i in range(count)]


def spans(chunks: Sequence[Chunk]) -> list[tuple[int, int]]:
    return [(c.first_segment, c.last_segment) for c in chunks]


# --- the property check used on every transcript --------------------------------------------


def owners(segments: Sequence[Segment], chapters: Sequence[Chapter]) -> list[int | None]:
    """The chapter of each segment, computed the slow obvious way (midpoint, ties earlier)."""
    if not chapters:
        return [None] * len(segments)

    def key(c: int) -> tuple[float, int]:
        return (chapters[c].start, c)

    out: list[int] = []
    for s in segments:
        middle = (s.start + s.end) / 2
        before = [c for c in range(len(chapters)) if chapters[c].start < middle]
        best = max(before, key=key) if before else min(range(len(chapters)), key=key)
        out.append(max(best, out[-1], key=key) if out else best)
    return list(out)


def span_of(segments: Sequence[Segment], first: int, last: int) -> float:
    return max(s.end for s in segments[first : last + 1]) - segments[first].start


def is_break(segments: Sequence[Segment], j: int) -> bool:
    """A sentence end or a pause follows segment j."""
    pause = j + 1 < len(segments) and segments[j + 1].start - segments[j].end >= PAUSE_S
    return pause or ends_sentence(segments[j].text)


def check_chunks(
    segments: Sequence[Segment], chapters: Sequence[Chapter], chunks: Sequence[Chunk]
) -> None:
    """Assert every promise of `chunk_transcript` over a whole transcript."""
    assert chunks[0].first_segment == 0
    assert chunks[-1].last_segment == len(segments) - 1
    assert [c.index for c in chunks] == list(range(len(chunks)))
    owner = owners(segments, chapters)
    for k, c in enumerate(chunks):
        first, last = c.first_segment, c.last_segment
        assert first <= last
        assert c.start == segments[first].start
        assert c.end == max(s.end for s in segments[first : last + 1])
        assert c.text == " ".join(s.text for s in segments[first : last + 1])
        # one chapter per chunk, and the right one
        assert {owner[i] for i in range(first, last + 1)} == {c.chapter}
        # at most 60 s, unless one long segment
        assert c.end - c.start <= MAX_S + 1e-9 or first == last, c
        previous = chunks[k - 1] if k else None
        new = first if previous is None else previous.last_segment + 1
        assert new <= last, "every chunk brings at least one new segment"
        if previous is not None:
            assert first <= new and first > previous.first_segment
            if previous.chapter != c.chapter:
                assert first == new, "no overlap across a chapter start"
            elif first < new:  # overlap: whole segments from the previous chunk, <= 8 s
                assert span_of(segments, first, previous.last_segment) <= OVERLAP_S + 1e-9
            if previous.chapter == c.chapter and first - 1 > previous.first_segment:
                # ... and the longest such: one more segment would break a limit
                longer = first - 1
                assert (
                    span_of(segments, longer, previous.last_segment) > OVERLAP_S
                    or span_of(segments, longer, new) > MAX_S
                ), f"overlap of chunk {k} could be longer"
        # where it ends
        last_of_chapter = last == len(segments) - 1 or owner[last + 1] != c.chapter
        if last_of_chapter:
            continue
        ok_to_grow = [j for j in range(new, last + 1) if span_of(segments, first, j) >= MIN_S]
        earlier_breaks = [j for j in ok_to_grow if j < last and is_break(segments, j)]
        assert not earlier_breaks, f"chunk {k} should have ended at segment {earlier_breaks[0]}"
        if is_break(segments, last) and ok_to_grow and ok_to_grow[-1] == last:
            continue
        # no break came: the last segment that fits is the limit, the largest gap wins
        fits = last
        while fits + 1 < len(segments) and span_of(segments, first, fits + 1) <= MAX_S:
            fits += 1
        assert owner[fits + 1] == c.chapter or fits == last
        candidates = [j for j in range(new, fits + 1) if span_of(segments, first, j) >= MIN_S]
        if not candidates:
            assert last == fits, f"chunk {k} is short only when the next segment cannot fit"
            continue
        gaps = {j: segments[j + 1].start - segments[j].end for j in candidates}
        best = max(gaps.values())
        assert last == max(j for j in candidates if gaps[j] == best), f"chunk {k}: largest gap"


# --- hand-built cases, one per rule ---------------------------------------------------------


def test_empty_transcript_has_no_chunks() -> None:
    assert chunk_transcript([]) == []


def test_short_transcript_is_one_chunk_with_joined_text() -> None:
    segments = [Segment(0, 2, "Hello there."), Segment(2, 5, " General  Kenobi. ")]
    [chunk] = chunk_transcript(segments)
    assert chunk == Chunk(0, 0.0, 5.0, 0, 1, None, "Hello there. General  Kenobi.")


def test_ends_at_first_sentence_end_after_30_s() -> None:
    texts = ["One.", "two", "three.", "four", "five", "six", "seven.", "eight", "nine.", "ten"]
    segments = [Segment(i * 5.0, i * 5.0 + 5, t) for i, t in enumerate(texts * 3)]
    chunks = chunk_transcript(segments)
    assert chunks[0].last_segment == 6  # "seven." ends at 35 s; "One." and "three." are < 30 s
    check_chunks(segments, [], chunks)


def test_sentence_end_may_sit_inside_a_closing_quote() -> None:
    assert ends_sentence('He said "stop."')
    assert ends_sentence("Really?”")
    assert ends_sentence("and then…")
    assert not ends_sentence("e.g. the")
    assert not ends_sentence("the end of the")


def test_ends_at_a_pause_of_a_second_once_30_s_long() -> None:
    segments = even(12, 3.0)  # 0..36 s, no punctuation
    segments[10:] = [Segment(s.start + 1.5, s.end + 1.5, s.text) for s in segments[10:]]
    chunks = chunk_transcript(segments)
    assert chunks[0].last_segment == 9  # ends at 30 s, followed by a 1.5 s pause
    assert chunks[1].first_segment < 10  # the next one still starts with overlap


def test_pause_before_30_s_does_not_end_a_chunk() -> None:
    segments = [*even(4, 5.0), *[Segment(s.start + 25, s.end + 25, s.text) for s in even(12, 5.0)]]
    chunks = chunk_transcript(segments)
    assert span_of(segments, chunks[0].first_segment, chunks[0].last_segment) >= MIN_S
    check_chunks(segments, [], chunks)


def test_without_breaks_the_largest_gap_before_60_s_wins() -> None:
    # 4 s segments, no punctuation; small gaps after the segments ending near 36 s and 48 s
    segments: list[Segment] = []
    t = 0.0
    for i in range(30):
        segments.append(Segment(t, t + 4, f"w{i}"))
        t += 4 + {8: 0.6, 11: 0.4}.get(i, 0.0)
    chunks = chunk_transcript(segments)
    assert chunks[0].last_segment == 8  # the 0.6 s gap beats 0.4 s and the zero gaps
    check_chunks(segments, [], chunks)


def test_equal_gaps_prefer_the_later_cut_so_chunks_stay_long() -> None:
    segments = even(40, 5.0)  # auto-captions: no punctuation, no gaps
    chunks = chunk_transcript(segments)
    assert chunks[0].end - chunks[0].start == 60.0
    assert all(c.end - c.start == 60.0 for c in chunks[:-1])
    check_chunks(segments, [], chunks)


def test_a_segment_over_60_s_is_its_own_chunk() -> None:
    segments = [*even(4, 5.0), Segment(20, 90, "a very long line"), *even(10, 5.0)]
    segments[5:] = [Segment(s.start + 90, s.end + 90, s.text) for s in segments[5:]]
    chunks = chunk_transcript(segments)
    assert spans(chunks)[:3] == [(0, 3), (4, 4), (5, 14)]
    assert chunks[1].start == 20 and chunks[1].end == 90
    check_chunks(segments, [], chunks)


def test_overlap_repeats_whole_segments_up_to_8_s() -> None:
    segments = even(30, 3.0, "Done.")
    chunks = chunk_transcript(segments)
    assert spans(chunks)[:2] == [(0, 9), (8, 17)]  # 24..30 s repeated; 21..30 s is over 8 s
    check_chunks(segments, [], chunks)


def test_no_overlap_when_the_last_segment_is_longer_than_8_s() -> None:
    segments = even(12, 10.0, "Done.")
    chunks = chunk_transcript(segments)
    assert spans(chunks) == [(0, 2), (3, 5), (6, 8), (9, 11)]


def test_overlap_shrinks_so_the_next_chunk_keeps_60_s() -> None:
    segments = [*even(10, 3.0, "Done."), Segment(30, 85, "one long line.")]
    chunks = chunk_transcript(segments)
    assert chunks[-1].last_segment == 10
    assert chunks[-1].end - chunks[-1].start <= MAX_S
    check_chunks(segments, [], chunks)


def test_chapter_start_forces_a_boundary_without_overlap() -> None:
    segments = even(20, 5.0, "Done.")
    chapters = [Chapter("Intro", 0, 42), Chapter("Main", 42, 100)]
    chunks = chunk_transcript(segments, chapters)
    # segment 8 (40-45 s) has its midpoint after 42 s, so it opens chapter 1
    assert [(c.first_segment, c.last_segment, c.chapter) for c in chunks] == [
        (0, 5, 0),
        (5, 7, 0),  # short: the last of its chapter
        (8, 13, 1),  # no overlap back into chapter 0
        (13, 18, 1),
        (18, 19, 1),
    ]
    check_chunks(segments, chapters, chunks)


def test_straddling_segment_tie_goes_to_the_earlier_chapter() -> None:
    segments = [Segment(0, 4, "a."), Segment(4, 6, "b."), Segment(6, 9, "c.")]
    chapters = [Chapter("One", 0, 5), Chapter("Two", 5, 9)]
    chunks = chunk_transcript(segments, chapters)
    assert [(c.first_segment, c.last_segment, c.chapter) for c in chunks] == [
        (0, 1, 0),
        (2, 2, 1),
    ]


def test_segments_before_the_first_chapter_belong_to_it() -> None:
    segments = even(4, 5.0, "Done.")
    chunks = chunk_transcript(segments, [Chapter("Late start", 12, 20)])
    assert [c.chapter for c in chunks] == [0]


def test_chapter_index_refers_to_the_given_list_even_unsorted() -> None:
    segments = even(4, 5.0, "Done.")
    chapters = [Chapter("Second", 10, 20), Chapter("First", 0, 10)]
    chunks = chunk_transcript(segments, chapters)
    assert [(c.first_segment, c.last_segment, c.chapter) for c in chunks] == [
        (0, 1, 1),
        (2, 3, 0),
    ]


def test_deterministic_on_a_long_transcript() -> None:
    segments = even(100_000, 2.5, "some words here")
    chunks = chunk_transcript(segments)
    assert chunks == chunk_transcript(segments)


def test_rejects_nonsense_sizes() -> None:
    with pytest.raises(ValueError):
        chunk_transcript(even(3, 1.0), min_s=70, max_s=60)


# --- real transcripts -----------------------------------------------------------------------


def read_segments(path: Path) -> list[Segment]:
    return parse_captions(path.read_bytes(), source_name=path.name)


def info_chapters(path: Path) -> list[Chapter]:
    info = json.loads(path.read_text(encoding="utf-8"))
    return [Chapter(c["title"], c["start_time"], c["end_time"]) for c in info["chapters"]]


REAL = [
    "transcripts/3blue1brown/2024_gpt/captions.en.srt",
    "transcripts/3blue1brown/2020_ldm-eulers-formula/captions.en.srt",
    "transcripts/woodenfish-2024-buddhism-ai-autocaptions/"
    "IZ6G50pqbIY__Bill-Duane-Buddha-and-the-Corporation-in-an-AI-world.reconstructed.vtt",
    "transcripts/woodenfish-2024-buddhism-ai-autocaptions/"
    "staFQw-_e6E__Creating-and-Communicating-Across-the-Intelligence-Spectrum.reconstructed.vtt",
    "transcripts/mit-ocw/dynamic-programming/"
    "6-006-introduction-to-algorithms-fall-2011__lecture-19-dynamic-programming-i-fibonacci"
    "-shortest-paths.vtt",
    "transcripts/pycon-us-2023-whisper/pyscript/pyscript-for-education.whisper.srt",
]


@pytest.mark.corpus
@pytest.mark.parametrize("relative", REAL, ids=lambda r: Path(r).name[:40])
def test_real_transcripts_keep_every_promise(relative: str) -> None:
    segments = read_segments(corpus_path(relative))
    chunks = chunk_transcript(segments)
    check_chunks(segments, [], chunks)
    lengths = [c.end - c.start for c in chunks]
    assert 30 <= sum(lengths) / len(lengths) <= 60


@pytest.mark.corpus
def test_punctuated_captions_are_cut_at_sentence_ends() -> None:
    segments = read_segments(corpus_path(REAL[0]))
    chunks = chunk_transcript(segments)
    at_sentence_end = [ends_sentence(segments[c.last_segment].text) for c in chunks[:-1]]
    assert all(at_sentence_end)


@pytest.mark.corpus
def test_unpunctuated_auto_captions_use_the_gap_rule_and_stay_long() -> None:
    segments = read_segments(corpus_path(REAL[2]))
    assert not any(ends_sentence(s.text) for s in segments)
    chunks = chunk_transcript(segments)
    assert all(50 <= c.end - c.start <= 60 for c in chunks[:-1])


@pytest.mark.corpus
def test_every_crashcourse_video_with_chapters() -> None:
    folder = corpus_path("transcripts/crashcourse-psychology")
    infos = sorted(folder.glob("*.info.json"))
    assert len(infos) >= 10
    for info in infos:
        chapters = info_chapters(info)
        segments = read_segments(info.with_name(info.name.replace(".info.json", ".en.srt")))
        chunks = chunk_transcript(segments, chapters)
        check_chunks(segments, chapters, chunks)
        assert {c.chapter for c in chunks} == set(range(len(chapters)))
        for chunk in chunks:  # never across a chapter start (beyond a straddling segment)
            chapter = chapters[chunk.chapter or 0]
            for s in segments[chunk.first_segment : chunk.last_segment + 1]:
                assert chapter.start - (s.end - s.start) <= s.start
                assert s.end <= chapter.end + (s.end - s.start)


@pytest.mark.corpus
def test_whole_corpus_chunks_in_bounds() -> None:
    index = json.loads(corpus_path("transcripts/INDEX.json").read_text(encoding="utf-8"))
    transcripts = [read_segments(corpus_path(entry["path"])) for entry in index]
    all_chunks = [chunk_transcript(segments) for segments in transcripts]
    for segments, chunks in zip(transcripts, all_chunks, strict=True):
        check_chunks(segments, [], chunks)
    lengths = [c.end - c.start for chunks in all_chunks for c in chunks]
    assert 32 <= sum(lengths) / len(lengths) <= 45
