"""Checks shared by the caption tests: the promises `parse_captions` makes about its output."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from v2c_desktop.core.domain.videos import Segment

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "captions"
_MARKUP = re.compile(r"<[A-Za-z/][^>]*>|&(?:[a-z]+|#\d+);|\{\\")


def words(segments: list[Segment]) -> list[str]:
    """Every word of the transcript, in order."""
    return " ".join(segment.text for segment in segments).split()


def back_to_back_repeat(tokens: list[str], min_words: int = 4, max_words: int = 40) -> str | None:
    """The first phrase of `min_words`+ words that is immediately repeated, or None."""
    for size in range(min_words, max_words + 1):
        for start in range(len(tokens) - 2 * size + 1):
            if tokens[start : start + size] == tokens[start + size : start + 2 * size]:
                return " ".join(tokens[start : start + size])
    return None


def assert_clean(segments: list[Segment]) -> None:
    """Sorted, well-timed, non-empty, single-spaced, markup-free segments."""
    assert segments, "no segments"
    for before, after in itertools.pairwise(segments):
        assert before.start <= after.start, (before, after)
    for segment in segments:
        assert segment.end >= segment.start, segment
        assert segment.start >= 0, segment
        assert segment.text, segment
        assert segment.text == " ".join(segment.text.split()), segment
        assert not _MARKUP.search(segment.text), segment
