"""The duplicate detector on real captions: re-uploads and clips grouped with their evidence,
distinct videos left alone, and briefs still counting a re-upload once."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.briefs.sources import number_sources
from v2c_desktop.core.briefs.verify import normalise
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.duplicates import (
    SHINGLE,
    cluster,
    containment,
    find_duplicates,
    fingerprint,
    shingles,
)

pytestmark = [pytest.mark.corpus]

BITCOIN = "transcripts/3blue1brown/2017_bitcoin/captions.en.srt"
BAYES = "transcripts/3blue1brown/2019_bayes-theorem/captions.en.srt"


def _segments(relative: str) -> list[Segment]:
    return parse_captions(corpus_path(relative).read_bytes(), source_name=relative)


def _record(
    video_id: str,
    segments: list[Segment],
    *,
    origin: str = "subtitle-file",
    added_at: str = "2024-01-01T00:00:00",
) -> VideoRecord:
    video = Video(id=video_id, title=video_id, platform="file", native_id=video_id)
    return VideoRecord(video, Transcript(origin, "en", segments), added_at=added_at)  # type: ignore[arg-type]


def _clip(segments: list[Segment], first: int, last: int) -> tuple[list[Segment], float]:
    """Cues first..last re-timed to start at 0, and where they started in the original."""
    cut = segments[first:last]
    shift = cut[0].start
    return [Segment(s.start - shift, s.end - shift, s.text) for s in cut], shift


def test_shingles_are_the_six_word_runs_of_the_whole_transcript() -> None:
    segments = _segments(BITCOIN)
    words = normalise(" ".join(s.text for s in segments))
    expected = {
        hashlib.blake2b(" ".join(words[i : i + SHINGLE]).encode(), digest_size=8).digest()
        for i in range(len(words) - SHINGLE + 1)
    }
    assert shingles(segments) == expected  # what briefs compared before the move


def test_a_reupload_and_a_clip_join_the_longest_video() -> None:
    original = _segments(BITCOIN)
    clip, truth = _clip(original, 150, 230)
    records = [
        _record("file:clip", clip, added_at="2024-01-01T00:00:00"),
        _record("file:original", original, added_at="2024-01-02T00:00:00"),
        _record("file:mirror", list(original), added_at="2024-01-03T00:00:00"),
        _record("file:other", _segments(BAYES)),
    ]
    [group] = find_duplicates(records)
    assert group.original == "file:original"  # longest; of equals, the earlier added
    copies = {c.video_id: c for c in group.copies}
    assert set(copies) == {"file:clip", "file:mirror"}

    mirror = copies["file:mirror"]
    assert mirror.kind == "reupload"
    assert mirror.overlap == mirror.copy_share == mirror.original_share == 1.0
    assert mirror.offset == 0.0

    cut = copies["file:clip"]
    assert cut.kind == "clip"
    assert cut.overlap == cut.copy_share == 1.0
    assert 0.1 < cut.original_share < 0.4
    assert abs(cut.offset - truth) < 3.0
    assert abs(cut.start - truth) < 3.0
    assert abs(cut.end - (truth + clip[-1].end)) < 3.0


def test_different_videos_make_no_group() -> None:
    records = [_record("file:a", _segments(BITCOIN)), _record("file:b", _segments(BAYES))]
    assert find_duplicates(records) == []
    a, b = (fingerprint(r.transcript.segments).runs for r in records)
    assert containment(a, b) < 0.05


def test_an_empty_transcript_is_nobodys_copy() -> None:
    records = [_record("file:a", _segments(BITCOIN)), _record("file:empty", [])]
    assert find_duplicates(records) == []


def test_cluster_keeps_the_first_of_each_group_in_the_order_given() -> None:
    base = _segments(BITCOIN)
    items = ["x", "y", "z"]
    runs = {"x": shingles(base), "y": shingles(_segments(BAYES)), "z": shingles(base[:200])}
    assert cluster(items, runs.__getitem__) == [("x", ["z"]), ("y", [])]


def test_briefs_read_a_reupload_once_and_keep_the_better_transcript() -> None:
    segments = _segments(BITCOIN)
    auto = _record("youtube:auto", segments, origin="auto-captions")
    creator = _record("youtube:creator", [replace(s) for s in segments], origin="creator-captions")
    other = _record("file:bayes", _segments(BAYES))
    sources = number_sources([auto, other, creator])
    assert [(s.n, s.video_id, s.copies) for s in sources] == [
        (1, "file:bayes", []),
        (2, "youtube:creator", ["youtube:auto"]),
    ]
