"""Every caption file in ../shared/corpus parses into clean segments (speed: bench/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS, corpus_path
from v2c_desktop.core.captions import parse_captions

from .helpers import assert_clean, back_to_back_repeat, words

# Sound-alike repeats are real in Whisper output (hallucination loops), so the no-repeat
# promise is only checked where the source is a rolling auto-caption file.
ROLLING = {"youtube_auto_zjkBMFhNj_g.en.vtt", "test.en.vtt", "test.srt"}


def caption_files() -> list[Path]:
    corpus_path("transcripts")  # skips when the corpus is absent
    found = [*CORPUS.rglob("*.vtt"), *CORPUS.rglob("*.srt"), *CORPUS.rglob("transcript.xml")]
    return sorted(found)


@pytest.mark.corpus
def test_whole_corpus_parses_clean() -> None:
    files = caption_files()
    assert len(files) >= 60
    total = 0
    for path in files:
        segments = parse_captions(path.read_bytes(), source_name=path.name)
        assert_clean(segments)
        total += len(segments)
        if path.name in ROLLING:
            assert back_to_back_repeat(words(segments)) is None, path
    assert total > 25_000
