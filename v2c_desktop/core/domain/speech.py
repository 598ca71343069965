"""The speech-to-text models a library's owner can transcribe with, as every face lists them.

Like the chat models, these are the owner's: a transcription runs in the process that owns
the library, so the app's "Re-transcribe with…" lists (through `CoreAPI`) what that process
has installed, not what the asking process happens to have.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..wire import wire


@wire
@dataclass(frozen=True, slots=True)
class SpeechModelInfo:
    """One catalog speech model: `name` is what `CoreAPI.transcribe(model=...)` takes
    (`tiny.en`); `installed` says its files are on this computer, else `install` says how
    to get them. `english_only` models transcribe English and nothing else."""

    id: str  # "whisper/tiny.en"
    name: str  # "tiny.en"
    label: str  # "Whisper tiny.en (CTranslate2)"
    english_only: bool
    installed: bool
    size_bytes: int
    recommended: bool
    install: str
    note: str = ""
