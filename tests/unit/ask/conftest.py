"""Real sources for the ask tests: 3Blue1Brown transcripts read in place from the corpus.

The bitcoin video's block-reward minute (22:20-23:20) holds numbers ("50 Bitcoin",
"210,000 blocks", "12.5 Bitcoin", "21 million") that citations must find; the GPT video's
opening minute is a second video, so numbering across videos is exercised too.
"""

from __future__ import annotations

import pytest

from tests.conftest import corpus_path
from v2c_desktop.core.ask.sources import Source, SourceRange, number_sources
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.domain.videos import Segment, Video

BITCOIN = Video(
    id="youtube:bBC-nXj3Ng4",
    title="But how does bitcoin actually work?",
    platform="youtube",
    native_id="bBC-nXj3Ng4",
    channel="3Blue1Brown",
    url="https://youtu.be/bBC-nXj3Ng4",
)
GPT = Video(
    id="youtube:wjZofJX0v4M",
    title="But what is a GPT?  Visual intro to Transformers | Deep learning, chapter 5",
    platform="youtube",
    native_id="wjZofJX0v4M",
    channel="3Blue1Brown",
    url="https://youtu.be/wjZofJX0v4M",
)


def _segments(folder: str) -> list[Segment]:
    path = corpus_path(f"transcripts/3blue1brown/{folder}/captions.en.srt")
    return parse_captions(path.read_bytes(), source_name=path.name)


@pytest.fixture(scope="session")
def bitcoin_segments() -> list[Segment]:
    return _segments("2017_bitcoin")


@pytest.fixture(scope="session")
def gpt_segments() -> list[Segment]:
    return _segments("2024_gpt")


def between(segments: list[Segment], start: float, end: float) -> list[Segment]:
    """The segments that start inside [start, end)."""
    return [s for s in segments if start <= s.start < end]


@pytest.fixture
def sources(bitcoin_segments: list[Segment], gpt_segments: list[Segment]) -> list[Source]:
    """[1] bitcoin 0:03-1:02, [2] bitcoin 22:19-23:20 (block reward), [3] GPT 0:00-1:01.

    Given out of order (late bitcoin range, GPT, early bitcoin range) as retrieval would.
    """
    return number_sources(
        [
            SourceRange(BITCOIN, between(bitcoin_segments, 1335, 1400)),
            SourceRange(GPT, between(gpt_segments, 0, 60)),
            SourceRange(BITCOIN, between(bitcoin_segments, 0, 60)),
        ]
    )
