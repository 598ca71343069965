"""The core services of one open library, built once and handed to every face of the app.

The CLI, the MCP server and the GUI panes all receive this object instead of reaching for
globals: it owns the store, the library service, the search engine and the model registry,
and closes them in the right order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .ask.service import AskService
from .briefs.service import BriefService
from .comments.service import CommentService
from .export.service import ExportService
from .importers.web.fetch import make_http_client
from .importers.web.settings import WebSettings
from .importers.web_access import WebAccess
from .library import Library
from .models.installed.manager import ModelManager
from .models.registry import ModelRegistry
from .models.service import ModelService
from .models.types import EmbeddingModel
from .moments.service import MomentService
from .paths import app_paths, library_path
from .search.engine import SearchEngine
from .settings import Settings, load_settings
from .sponsor.service import SponsorService
from .store import LibraryStore, open_library
from .thumbnails import Thumbnails


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
    briefs: BriefService
    exports: ExportService
    moments: MomentService
    thumbnails: Thumbnails | None = None
    sponsor: SponsorService | None = None
    comments: CommentService | None = None

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
        briefs = BriefService(store, lib, engine, registry, embedder)
        moments = MomentService(store, lib, registry, embedder.info.id if embedder else None)
        proxy = settings.imports.proxy
        thumbnails = Thumbnails(
            app_paths().cache_dir / "thumbnails",
            lambda: make_http_client(WebSettings(proxy=proxy, timeout=15)),
        )
        return cls(
            store,
            lib,
            engine,
            settings,
            embedder,
            registry,
            asker,
            models,
            briefs,
            ExportService(lib, briefs),
            moments,
            thumbnails=thumbnails,
            sponsor=SponsorService(store, lib, server=settings.sponsorblock.server),
            comments=CommentService(store, lib),
        )

    async def aclose(self) -> None:
        try:
            try:
                await self.library.aclose()
            finally:
                # before the store: the engine's background reads must end first, or the
                # store's connection refuses to close under them
                await self.engine.aclose()
            if self.embedder is not None:
                await self.embedder.aclose()
            await self.registry.aclose()
            if self.thumbnails is not None:
                await self.thumbnails.aclose()
        finally:
            await self.store.aclose()
