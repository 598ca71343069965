"""VideoRecords built from real transcripts in ../shared/corpus, read in place.

Homunculus (Crash Course Psychology #6) brings real YouTube chapters from its yt-dlp-style
`.info.json`; Ned Batchelder's PyCon 2023 keynote (CC BY, Whisper output) is a long local
file without chapters. A 1h43 Woodenfish talk brings YouTube auto captions (lowercase, no
punctuation) past the hour mark. All skip where the corpus is absent.
"""

from __future__ import annotations

import json

import srt
import webvtt

from tests.conftest import corpus_path
from v2c_desktop.core.domain.videos import Chapter, Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.timecode import parse_time

HOMUNCULUS = "transcripts/crashcourse-psychology/homunculus_crash_course_psychology_6_fxZWtc0mYpQ"
WOODENFISH = (
    "transcripts/woodenfish-2024-buddhism-ai-autocaptions/"
    "BRJ48AU5gP4__Speaker-Prof-Dr-Thomas-H-Doctor-Buddhism-and-AI-Collaboration-and-a-Ne"
    ".reconstructed.vtt"
)
NED = "transcripts/pycon-us-2023-whisper/keynotes/ned-batchelder-keynote.whisper.srt"


def read_srt(relative: str) -> list[Segment]:
    text = corpus_path(relative).read_text(encoding="utf-8")
    return [
        Segment(cue.start.total_seconds(), cue.end.total_seconds(), cue.content)
        for cue in srt.parse(text)
    ]


def homunculus() -> VideoRecord:
    info = json.loads(corpus_path(HOMUNCULUS + ".info.json").read_text(encoding="utf-8"))
    date = info["upload_date"]
    video = Video(
        id=f"youtube:{info['id']}",
        title=info["title"],
        platform="youtube",
        native_id=info["id"],
        channel=info["channel"],
        url=info["webpage_url"],
        duration=float(info["duration"]),
        published=f"{date[:4]}-{date[4:6]}-{date[6:]}",
    )
    chapters = [
        Chapter(c["title"], float(c["start_time"]), float(c["end_time"])) for c in info["chapters"]
    ]
    transcript = Transcript("creator-captions", "en", read_srt(HOMUNCULUS + ".en.srt"), "YouTube")
    return VideoRecord(video, transcript, chapters)


def ned() -> VideoRecord:
    path = corpus_path(NED)
    video = Video(
        id="file:ned-keynote",
        title="Ned Batchelder keynote, PyCon US 2023",
        platform="file",
        native_id="ned-keynote",
        source_path=str(path),
    )
    return VideoRecord(video, Transcript("stt", "en", read_srt(NED), "whisper"))


def woodenfish() -> VideoRecord:
    captions = webvtt.read(str(corpus_path(WOODENFISH))).captions
    segments = [Segment(parse_time(c.start), parse_time(c.end), c.text) for c in captions]
    video = Video(
        id="youtube:BRJ48AU5gP4",
        title="Buddhism and AI: Collaboration and a New Path (Thomas H. Doctor)",
        platform="youtube",
        native_id="BRJ48AU5gP4",
        url="https://www.youtube.com/watch?v=BRJ48AU5gP4",
    )
    return VideoRecord(video, Transcript("auto-captions", "en", segments, "YouTube"))
