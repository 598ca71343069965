"""Speech-to-text in the app's words: where a transcript came from, and a transcription's
progress, for the import rows, the status bar and a video's details.

The core says `stt` and sends audio seconds as a job's done/total; a person wants to read
"speech-to-text (tiny.en)" and "transcribing 0:12 of 0:45".
"""

from __future__ import annotations

import re

from v2c_desktop.core.domain.videos import Transcript
from v2c_desktop.core.file_kinds import is_media
from v2c_desktop.core.timecode import clock

#: The progress stage a transcription reports (`core.stt.whisper.STAGE`).
TRANSCRIBE_STAGE = "transcribe"

#: The other origins (creator-captions, auto-captions, subtitle-file) read as they are.
ORIGIN_WORDS = {"stt": "speech-to-text"}

NO_LOCAL_MEDIA = (
    "Only a video whose video or audio file is on this computer can be transcribed: "
    "this one was imported from the web or from a subtitle file alone"
)

_MODEL = re.compile(r"\bmodel (\S+?)(?:,|$)")


def origin_words(origin: str) -> str:
    """ "speech-to-text" for `stt`; the other origins are already words."""
    return ORIGIN_WORDS.get(origin, origin)


def speech_model(producer: str) -> str:
    """The model a speech transcript's producer names (`..., model tiny.en, int8` ->
    `tiny.en`), or "" when it names none."""
    found = _MODEL.search(producer)
    return found.group(1) if found else ""


def transcript_origin(transcript: Transcript, *, language: bool = False) -> str:
    """Where the words came from: "speech-to-text (tiny.en)", "creator-captions"; with
    `language`, "speech-to-text (tiny.en, en)", "creator-captions (en)"."""
    model = speech_model(transcript.producer) if transcript.origin == "stt" else ""
    inside = [part for part in (model, transcript.language if language else "") if part]
    words = origin_words(transcript.origin)
    return f"{words} ({', '.join(inside)})" if inside else words


def can_transcribe(source_path: str) -> bool:
    """A video whose media file the library knows: speech-to-text can run on it."""
    return bool(source_path) and is_media(source_path)


def transcribe_status(message: str) -> str:
    """An import row's line during a transcription: the core's own message (file, audio
    done of total, speed against real time, time left) after what the work is."""
    return f"Speech-to-text · {message}" if message else "Speech-to-text"


def transcribe_job_words(label: str, done: int, total: int | None) -> str:
    """The status bar's few words: "Import talk.wav: transcribing 0:12 of 0:45", or for a
    job that is a transcription already, "Transcribe Talk with tiny.en: 0:12 of 0:45"."""
    verb = "" if label.startswith("Transcribe") else "transcribing"
    amount = f"{clock(done)} of {clock(total)}" if total and total > 0 else ""
    words = " ".join(w for w in (verb, amount) if w)
    return f"{label}: {words}" if words else label


SPEED_TIP = (
    "The speech is transcribed on this computer. “3.0x real time” means three seconds of "
    "audio are transcribed each second; the time left is estimated from that speed."
)
