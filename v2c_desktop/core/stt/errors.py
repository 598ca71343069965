"""The typed errors of speech-to-text, each with a hint; `details["kind"]` says which one.

A file that is not media at all is `unsupported-input`; media whose speech cannot be had
(damaged, truncated, no audio track, an unknown codec, silence) is `no-transcript`, as a
media file without subtitles was before speech-to-text; a missing model is `not-found`.
"""

from __future__ import annotations

from ..errors import ErrorCode, V2CError

#: The kinds of failure a subtitle file beside the media would have avoided.
SIDECAR_HELPS = frozenset({"corrupt-media", "unsupported-codec", "no-audio-stream", "no-speech"})


def with_sidecar_hint(error: V2CError, base: str) -> V2CError:
    """`error`, its hint also naming the subtitle file that would give the words instead."""
    if error.details.get("kind") not in SIDECAR_HELPS:
        return error
    hint = f"{error.hint}; or put a subtitle file named {base}.srt (or {base}.en.vtt) beside it"
    return V2CError(error.code, error.message, hint, dict(error.details))


def _error(code: ErrorCode, kind: str, message: str, hint: str) -> V2CError:
    return V2CError(code, message, hint, {"kind": kind})


def not_media(name: str, why: str = "") -> V2CError:
    return _error(
        "unsupported-input",
        "not-media",
        f"{name} is not a video or audio file" + (f" ({why})" if why else ""),
        "check that the file is really media (its extension may be wrong); "
        "give a video or audio file (.mp4, .mkv, .webm, .mp3, .m4a, .wav, ...)",
    )


def corrupt_media(name: str, detail: str) -> V2CError:
    return _error(
        "no-transcript",
        "corrupt-media",
        f"{name} cannot be decoded: it is damaged or truncated ({detail})",
        "check that the file plays in a media player; if it was copied or downloaded, "
        "copy or download it again",
    )


def unsupported_codec(name: str, codec: str) -> V2CError:
    return _error(
        "no-transcript",
        "unsupported-codec",
        f"{name}: its audio codec {codec!r} cannot be decoded here",
        "convert the audio to a common format (AAC, MP3, Opus, FLAC or WAV) and add it again",
    )


def no_audio_stream(name: str) -> V2CError:
    return _error(
        "no-transcript",
        "no-audio-stream",
        f"{name} has no audio track, so there is no speech to transcribe",
        "add the file that has the sound, or put a subtitle file beside this one "
        "(same name, .srt or .vtt)",
    )


def no_speech(name: str, seconds: float) -> V2CError:
    return _error(
        "no-transcript",
        "no-speech",
        f"no speech was heard in {name} ({seconds:.0f} s of audio)",
        "if it does hold speech, put a subtitle file beside it (same name, .srt or .vtt)",
    )


def missing_model(model: str, hint: str) -> V2CError:
    return _error("not-found", "missing-model", f"speech-to-text model {model!r} is missing", hint)


def engine_missing(detail: str) -> V2CError:
    return _error(
        "not-found",
        "missing-engine",
        f"the speech-to-text engine is not installed ({detail})",
        "reinstall v2c (bash packaging/install.sh), or `pip install faster-whisper==1.2.1`",
    )
