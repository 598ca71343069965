"""Token estimates and the source header, on real transcripts."""

from __future__ import annotations

from dataclasses import replace

from v2c_desktop.core.domain.videos import Transcript
from v2c_desktop.core.render import context_header, estimate_tokens
from v2c_desktop.core.render.common import joined_text

from .records import homunculus, ned


def test_estimate_tokens_rounds_up_and_never_zero() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


def test_estimate_is_about_12k_tokens_per_hour_of_speech() -> None:
    record = ned()
    hours = record.duration / 3600
    per_hour = estimate_tokens(joined_text(record.transcript.segments)) / hours
    assert 9_000 < per_hour < 15_000


def test_header_of_youtube_video_with_chapters() -> None:
    lines = context_header(homunculus()).splitlines()
    assert lines[:6] == [
        "Title: Homunculus: Crash Course Psychology #6",
        "Channel: CrashCourse",
        "URL: https://www.youtube.com/watch?v=fxZWtc0mYpQ",
        "Published: 2014-03-10",
        "Duration: 10:23",
        "Transcript: creator captions, en, by YouTube",
    ]
    assert lines[6] == "Chapters (11):"
    assert lines[7] == "[0:00] Introduction: HOMUNCULUS"
    assert lines[8] == "[1:22] Sensation vs. Perception"
    assert lines[-1] == "[9:47] Credits"
    assert len(lines) == 7 + 11


def test_header_of_local_file_names_the_file_and_caption_end_as_duration() -> None:
    record = ned()
    header = context_header(record)
    assert header.splitlines() == [
        "Title: Ned Batchelder keynote, PyCon US 2023",
        f"File: {record.video.source_path}",
        "Duration: 46:55",
        "Transcript: speech-to-text, en, by whisper",
    ]


def test_header_says_when_captions_are_machine_translated() -> None:
    record = homunculus()
    record.transcript = Transcript(
        "auto-captions", "fr", record.transcript.segments, "YouTube", translated_from="en"
    )
    assert (
        "Transcript: auto-generated captions, fr, by YouTube, translated from en"
        in context_header(record).splitlines()
    )


def test_header_without_any_location_leaves_the_line_out() -> None:
    record = ned()
    record.video = replace(record.video, source_path="", channel="")
    lines = context_header(record).splitlines()
    assert not any(line.startswith(("URL:", "File:", "Channel:")) for line in lines)
