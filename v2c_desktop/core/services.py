"""The core services of one open library, built once and handed to every face of the app.

The CLI, the MCP server and the GUI panes all receive this object instead of reaching for
globals: it owns the store, the library service, the search engine and the model registry,
and closes them in the right order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .ask.service import AskService
from .importers.web_access import WebAccess
from .library import Library
from .models.installed.manager import ModelManager
from .models.registry import ModelRegistry
from .models.service import ModelService
from .models.types import EmbeddingModel
from .paths import library_path
from .search.engine import SearchEngine
from .settings import Settings, load_settings
from .store import LibraryStore, open_library


@dataclass
class Services:
    store: LibraryStore
    library: Library
    engine: SearchEngine
    settings: Settings
    embedder: EmbeddingModel | None
    registry: ModelRegistry
    asker: AskService
    models: ModelService

    @classmethod
    def open(
        cls,
        library: str | Path | None = None,
        *,
        settings: Settings | None = None,
        web: WebAccess | None = None,
        embedder: EmbeddingModel | None = None,
        registry: ModelRegistry | None = None,
        index_on_import: bool = True,
    ) -> Services:
        """Open the library file (as its owner) and wire the services around it.

        Models are only described here, never loaded: the embedder and chat models load on
        first use, so opening a library stays fast.
        """
        settings = settings or load_settings()
        store = open_library(library_path(library))
        try:
            registry = registry or ModelRegistry(settings.models, ModelManager.default())
            if embedder is None:
                embedder = registry.embedder()
            engine = SearchEngine(store, embedder, rerank_chain=registry.chain)
            hook = engine.index_video if index_on_import else None
            lib = Library(store, web, on_saved=hook, on_removed=engine.drop_video)
            asker = AskService(store, lib, engine, registry)
        except BaseException:
            store.close()
            raise
        models = ModelService(registry, settings)
        return cls(store, lib, engine, settings, embedder, registry, asker, models)

    async def aclose(self) -> None:
        try:
            await self.library.aclose()
            await self.engine.aclose()
            if self.embedder is not None:
                await self.embedder.aclose()
            await self.registry.aclose()
        finally:
            await self.store.aclose()
