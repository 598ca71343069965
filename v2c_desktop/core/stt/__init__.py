"""Speech-to-text: transcripts for media files that have no captions.

`Transcriber` is the small interface an engine implements (`types.py`); faster-whisper
(CTranslate2, int8 on CPU) is the one engine today (`whisper.py`), with audio decoded by
PyAV (`audio.py`). Models come from the catalog's `speech` entries (`models.py`).
`importing.py` is what the library calls for a media file without a subtitle file.

Importing this package is cheap: faster-whisper, CTranslate2 and PyAV load on first use.
"""

from __future__ import annotations

from .types import (
    Cancelled,
    Producer,
    SpeechResult,
    Transcriber,
)

__all__ = ["Cancelled", "Producer", "SpeechResult", "Transcriber"]
