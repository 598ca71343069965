"""`CoreAPI`: everything the app, the CLI and the MCP server can ask of one library.

This is the one surface every face of v2c talks to. In the process that owns the library
it calls the services directly; in the others the same methods travel over the owner's
local socket (`core.owner`), so a method here takes and returns only plain values and
registered dataclasses, and long work reports through a `progress` callback.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from .ask.events import AskEvent, AskRequest
from .ask.export import chat_markdown
from .briefs.events import Brief, BriefEstimate, BriefEvent, BriefRequest, BriefSummary
from .domain.captions import CaptionChoice, CaptionTracks
from .domain.changes import Change
from .domain.chats import ChatRecord
from .domain.comments import Comments
from .domain.duplicates import DuplicateGroup
from .domain.follow import FollowState, RefreshResult
from .domain.imports import BatchResult, ImportOutcome, ItemListing
from .domain.live import DEFAULT_MINUTES, LiveEvent
from .domain.models import DetectedServerInfo, InstalledModelInfo, ModelList, ModelTest
from .domain.notion import NotionReport
from .domain.skips import SkipSegments
from .domain.speech import SpeechModelInfo
from .domain.status import LibraryStatus
from .domain.videos import Collection, CollectionItem, VideoRecord, VideoSummary
from .errors import V2CError, not_found
from .export.events import ExportReport, ExportRequest
from .follow import refresh as follow
from .moments.events import KeyMoments
from .progress import ProgressCallback, ignore_progress
from .search.request import SearchRequest, SearchResult
from .settings import AgentSettings, ModelSettings, ServerSetting, load_settings

if TYPE_CHECKING:  # the services are only built in the owner: clients never import them
    from .services import Services


class CoreAPI:
    """Async operations over one open library; see the module docstring."""

    def __init__(self, services: Services) -> None:
        self._s = services

    # -- library ------------------------------------------------------------------------------
    async def add(
        self,
        sources: list[str],
        collection: str | None = None,
        refresh: bool = False,
        languages: list[str] | None = None,
        progress: ProgressCallback = ignore_progress,
        agent: AgentSettings | None = None,
        replace_web: bool = False,
        transcribe: bool = True,
        stt_model: str | None = None,
        transcribe_web: bool = False,
    ) -> BatchResult:
        """`agent`: an AI agent's inputs, limited by these settings (the MCP server sends
        them); `replace_web`: the user confirmed a local archive may replace a web import;
        `transcribe_web`: the user consents, for this call, that a web video without captions
        has its audio downloaded with yt-dlp and transcribed (never for an agent's inputs)."""
        return await self._s.library.add(
            sources,
            collection=collection,
            refresh=refresh,
            languages=tuple(languages or ()),
            progress=progress,
            agent=agent,
            replace_web=replace_web,
            transcribe=transcribe,
            stt_model=stt_model,
            transcribe_web=transcribe_web,
        )

    async def transcribe(
        self, ref: str, model: str | None = None, progress: ProgressCallback = ignore_progress
    ) -> ImportOutcome:
        """Transcribe a saved video's local media file again (speech-to-text), replacing its
        transcript in one transaction; the outcome's `reason` says what was replaced."""
        return await self._s.library.transcribe(ref, model, progress)

    async def caption_tracks(self, ref: str, agent: AgentSettings | None = None) -> CaptionTracks:
        """The caption tracks of the web video `ref` names (a URL, a library id or title):
        language, the site's name, creator or auto, translatable; the languages the site
        translates into; and which track the saved transcript came from. Imports nothing.
        `agent`: an AI agent's call (its reads reach public hosts only, as for `add`)."""
        from .caption_tracks import list_caption_tracks  # the owner side only

        return await list_caption_tracks(self._s.library, ref, agent=agent)

    async def choose_caption_track(
        self,
        ref: str,
        choice: CaptionChoice,
        agent: AgentSettings | None = None,
        replace_local: bool = False,
        progress: ProgressCallback = ignore_progress,
    ) -> ImportOutcome:
        """Import the caption track `choice` names as the transcript of the web video `ref`
        names, replacing the one it has (the change feed and the search index follow);
        `not-found` for a track it does not have. A transcript from the user's own files or
        speech-to-text is replaced only with `replace_local` (the user chose the track
        themselves); else the outcome is `skipped` with `confirm="replace-local"`."""
        from .caption_tracks import choose_caption_track  # the owner side only

        return await choose_caption_track(
            self._s.library,
            ref,
            choice,
            agent=agent,
            replace_local=replace_local,
            progress=progress,
        )

    async def list_speech_models(self) -> list[SpeechModelInfo]:
        """The speech-to-text models this library's owner knows, installed or not (what
        `transcribe(model=...)` and `add(stt_model=...)` take is their `name`)."""
        from .stt.models import speech_models  # reads the catalog, loads no engine

        return await asyncio.to_thread(speech_models)

    async def list_items(self, source: str, limit: int = 50) -> ItemListing:
        """The videos a playlist, channel, folder or URL list holds, without importing them."""
        return await self._s.library.list_items(source, limit)

    async def list_videos(self, collection: str | None = None) -> list[VideoSummary]:
        return await self._s.library.list_videos(collection)

    async def get_video(self, ref: str) -> VideoRecord:
        return await self._s.library.get_video(ref)

    async def resolve(self, ref: str) -> str:
        return await self._s.library.resolve(ref)

    async def rename_video(self, ref: str, title: str) -> VideoRecord:
        """Give a video the user's own title; a later import of it keeps that title."""
        return await self._s.library.rename(ref, title)

    async def set_media(self, ref: str, path: str) -> VideoRecord:
        """Play a video from this local video or audio file from now on (one found beside
        its subtitle file, or chosen by the user); kept when the video is imported again."""
        return await self._s.library.set_media(ref, path)

    async def remove(self, ref: str) -> str:
        return await self._s.library.remove(ref)

    async def thumbnail(self, video_id: str) -> str:
        """The path of an image file showing the video, or "" when there is none: an image
        beside its local file, else its thumbnail URL's image, downloaded once into the cache
        (see `core/thumbnails.py`); never an error for a missing or unreachable picture."""
        thumbnails = self._s.thumbnails
        if thumbnails is None:
            return ""
        video = await asyncio.to_thread(self._s.engine.video, video_id)
        if video is None:
            raise not_found(f"no video {video_id!r} in the library", "it may have been removed")
        return await thumbnails.path_for(video)

    async def get_skip_segments(
        self, video_id: str, categories: list[str] | None = None, refresh: bool = False
    ) -> SkipSegments:
        """The video's SponsorBlock segments of `categories` (all skippable ones by default),
        each with the share of the transcript it covers. The first call asks SponsorBlock (by
        a 4-character hash prefix of the YouTube id) and keeps the answer with the video;
        later calls read it from the library, `refresh` asks again and replaces it. Only
        YouTube videos have segments: any other is `unsupported-input`."""
        if self._s.sponsor is None:
            raise not_found("this library was opened without SponsorBlock")
        return await self._s.sponsor.get(video_id, categories, refresh)

    async def get_comments(
        self,
        ref: str,
        limit: int | None = None,
        refresh: bool = False,
        agent: AgentSettings | None = None,
        progress: ProgressCallback = ignore_progress,
    ) -> Comments:
        """Up to `limit` (1-500, default 20) comments of the video `ref` names (a URL, a
        library id or title, a YouTube id), replies after the comment they answer. The ones
        the library kept are returned when they are enough (as many as asked, or all there
        were); else yt-dlp reads them from the video's site and they are kept with it. A
        video not in the library is imported as every read is; one that cannot be (no
        captions) still has its comments, kept by its id, and `in_library` False. A file on
        this computer, or a site yt-dlp reads no comments from, is `unsupported-input`.
        `refresh` reads them from the site again; `agent`: an AI agent's call (its reads
        reach public hosts only). Reports `comments` progress; cancel keeps nothing new."""
        if self._s.comments is None:
            raise not_found("this library was opened without comments")
        return await self._s.comments.get(
            ref, limit, refresh=refresh, agent=agent, progress=progress
        )

    async def watch_live(
        self,
        url: str,
        max_minutes: float = DEFAULT_MINUTES,
        agent: AgentSettings | None = None,
        model: str | None = None,
    ) -> AsyncIterator[LiveEvent]:
        """Watch the live stream at `url`: `LiveStarted`, then `LiveText` with each new line
        as it is heard (its live captions, else speech-to-text on its audio with `model`),
        `LiveNote`s, and `LiveDone` once it is saved as a video of its own. It stops at the
        end of the stream or after `max_minutes`; cancelling stops it and saves nothing.
        `agent`: an AI agent's call (public hosts only; speech-to-text needs the user's
        consent, `imports.transcribe_without_captions`). Not live: `bad-request`."""
        from .live.watch import watch_live  # the owner side only

        watch = watch_live(self._s.library, url, max_minutes, agent=agent, model=model)
        async with contextlib.aclosing(watch) as events:  # a cancel stops the reading at once
            async for event in events:
                yield event

    # -- collections --------------------------------------------------------------------------
    async def list_collections(self) -> list[Collection]:
        return await self._s.library.list_collections()

    async def get_collection(self, ref: str) -> Collection:
        return await self._s.library.get_collection(ref)

    async def latest_in_collection(self, ref: str, limit: int = 10) -> list[CollectionItem]:
        """The collection's `limit` newest members (the ones added to it last), newest first,
        each with when it was added to the collection."""
        return await self._s.library.latest_in_collection(ref, limit)

    async def create_collection(self, name: str, description: str = "") -> Collection:
        return await self._s.library.create_collection(name, description)

    async def add_to_collection(self, collection: str, videos: list[str]) -> list[str]:
        return await self._s.library.add_to_collection(collection, videos)

    async def remove_from_collection(self, collection: str, videos: list[str]) -> None:
        await self._s.library.remove_from_collection(collection, videos)

    async def rename_collection(self, collection: str, name: str) -> Collection:
        return await self._s.library.rename_collection(collection, name)

    async def delete_collection(self, collection: str) -> None:
        await self._s.library.delete_collection(collection)

    # -- collections that follow their sources -------------------------------------------------
    async def follow_state(self, collection: str) -> FollowState:
        """The playlists, channels and feeds the collection follows, its schedule, its last
        check and what that check could not import (`pending`)."""
        return await follow.follow_state(self._s.library, collection)

    async def refresh_collection(
        self,
        collection: str,
        progress: ProgressCallback = ignore_progress,
        agent: AgentSettings | None = None,
    ) -> RefreshResult:
        """Read the followed sources again and import the new uploads only."""
        return await follow.refresh_collection(
            self._s.library, collection, progress=progress, agent=agent
        )

    async def set_follow_schedule(self, collection: str, every_hours: float | None) -> FollowState:
        """Check the collection every `every_hours` while the app runs; None: when asked."""
        return await follow.set_schedule(self._s.library, collection, every_hours)

    async def unfollow_sources(self, collection: str, sources: list[str]) -> FollowState:
        """Stop following these sources (the videos they brought stay in the collection)."""
        target = await self.get_collection(collection)
        await self._s.library.run_store(self._s.library.store.unfollow_sources, target.id, sources)
        return await self.follow_state(target.id)

    async def refresh_due_collections(
        self, progress: ProgressCallback = ignore_progress
    ) -> list[RefreshResult]:
        """Refresh the scheduled collections whose next check has come (the app calls this
        while it runs)."""
        return await follow.refresh_due(self._s.library, progress=progress)

    async def find_duplicates(
        self, video_ids: list[str] | None = None, collection: str | None = None
    ) -> list[DuplicateGroup]:
        """Re-uploads and clips among these videos and the collection's (the whole library
        when neither is given), by the detector briefs count sources with: each group's
        original (longest, then earliest) and each copy's overlap and place in it."""
        from .duplicates import find_duplicates  # pure, but only the owner runs it

        ids = list(video_ids or [])
        if collection:
            ids.extend((await self.get_collection(collection)).video_ids)
        if video_ids is None and collection is None:
            ids = [v.id for v in await self.list_videos()]
        records = [await self.get_video(ref) for ref in dict.fromkeys(ids)]
        return await asyncio.to_thread(find_duplicates, records)

    # -- search -------------------------------------------------------------------------------
    async def search(self, request: SearchRequest) -> SearchResult:
        return await self._s.engine.search(request)

    async def index_pending(self, progress: ProgressCallback = ignore_progress) -> int:
        return len(await self._s.engine.index_pending(progress=progress))

    # -- ask and chats ------------------------------------------------------------------------
    async def ask(self, request: AskRequest) -> AsyncIterator[AskEvent]:
        """Stream an answer: meta, deltas, then done or error (see `core.ask.events`)."""
        async for event in self._s.asker.ask(request):
            yield event

    async def list_chats(self) -> list[ChatRecord]:
        return await self._s.store.run(self._s.store.list_chats)

    async def get_chat(self, chat_id: str) -> ChatRecord:
        return await self._s.store.run(self._s.store.get_chat, chat_id)

    async def rename_chat(self, chat_id: str, title: str) -> None:
        await self._s.store.run(self._s.store.rename_chat, chat_id, title)

    async def delete_chat(self, chat_id: str) -> None:
        await self._s.store.run(self._s.store.delete_chat, chat_id)

    async def export_chat(self, chat_id: str) -> str:
        """The chat as Markdown with timestamp links, as a person would paste it."""
        return chat_markdown(await self.get_chat(chat_id))

    async def capable_chat_model(self) -> bool:
        """Whether answers can be generated (else they are extractive)."""
        return self._s.registry.capable_chat_available()

    # -- briefs -------------------------------------------------------------------------------
    async def build_brief(self, request: BriefRequest) -> AsyncIterator[BriefEvent]:
        """Progress steps, then the brief (saved in the library); cancel stops it unsaved."""
        async for event in self._s.briefs.build(request):
            yield event

    async def estimate_brief(self, request: BriefRequest) -> BriefEstimate:
        """Before a build: videos, hours, tokens, one pass or map-reduce, a rough time."""
        from .briefs.estimate import estimate_brief  # the owner side only

        models = None if request.extractive else await self._s.models.list_models()
        return await estimate_brief(self._s.briefs, models, request)

    async def list_briefs(self) -> list[BriefSummary]:
        return await self._s.briefs.list()

    async def get_brief(self, brief_id: str) -> Brief:
        return await self._s.briefs.get(brief_id)

    async def rename_brief(self, brief_id: str, title: str) -> None:
        await self._s.briefs.rename(brief_id, title)

    async def delete_brief(self, brief_id: str) -> None:
        await self._s.briefs.delete(brief_id)

    # -- key moments --------------------------------------------------------------------------
    async def get_key_moments(
        self,
        video_id: str,
        count: int = 8,
        model: str | None = None,
        extractive: bool = False,
        progress: ProgressCallback = ignore_progress,
    ) -> KeyMoments:
        """Up to `count` (1-20) key moments of a video, in time order, each at a real segment
        start: chosen by the model chain (or the `model` named) and verified, else extractive
        (chapters, topic shifts) and labelled so; a model's result is cached per transcript.
        Reports `moments` progress while a model works; cancel stops it unsaved."""
        return await self._s.moments.key_moments(
            video_id, count, model=model, extractive=extractive, progress=progress
        )

    # -- export -------------------------------------------------------------------------------
    async def export_obsidian(
        self, request: ExportRequest, progress: ProgressCallback = ignore_progress
    ) -> ExportReport:
        """Notes per video and brief, an index and a Base in `request.folder` of the vault:
        created / updated / unchanged / conflicts (the user's edits are never overwritten)."""
        return await self._s.exports.export(request, progress)

    async def export_notion(
        self,
        video_ids: list[str] | None = None,
        collection: str | None = None,
        parent: str | None = None,
        token: str | None = None,
        progress: ProgressCallback = ignore_progress,
    ) -> NotionReport:
        """A Notion page per video (and the collection's videos) under `parent` (a page URL
        or id; else the settings' `notion.parent_page`), with `token` or the settings' (or
        its environment variable's): created / updated / unchanged / failed per video."""
        ids = list(video_ids or [])
        if collection:
            ids.extend((await self.get_collection(collection)).video_ids)
        try:
            notion = load_settings().notion  # the token may have been set since start-up
        except V2CError:
            notion = self._s.settings.notion
        from .notion.service import NotionExporter  # httpx: only in the owner, when asked

        exporter = NotionExporter(self._s.library, notion)
        return await exporter.export(ids, parent=parent, token=token, progress=progress)

    # -- models -------------------------------------------------------------------------------
    async def list_models(self, detect: bool = False) -> ModelList:
        """The owner's models (the ones answers use) and the chat chain; `detect` looks for
        Ollama and LM Studio first."""
        return await self._s.models.list_models(detect=detect)

    async def detect_servers(self) -> list[DetectedServerInfo]:
        return await self._s.models.detect_servers()

    async def use_server(self, server: DetectedServerInfo, quality: int = 40) -> None:
        """Answer with a detected server's models from now on (and after a restart)."""
        await self._s.models.use_server(server, quality)

    async def pull_model(
        self, model_id: str, progress: ProgressCallback = ignore_progress
    ) -> InstalledModelInfo:
        return await self._s.models.pull_model(model_id, progress)

    async def add_model(self, path: str, kind: str = "chat") -> InstalledModelInfo:
        return await self._s.models.add_model(path, kind)

    async def remove_model(self, model_id: str) -> str:
        return await self._s.models.remove_model(model_id)

    async def test_model(self, model_id: str | None = None) -> ModelTest:
        """Load a model and measure it (a local model's speed is kept for the estimates
        `list_models` gives of the others)."""
        return await self._s.models.test_model(model_id)

    async def test_server(self, server: ServerSetting) -> ModelTest:
        """Try an OpenAI-compatible server as typed, before it is saved."""
        return await self._s.models.test_server(server)

    async def apply_model_settings(self, models: ModelSettings) -> None:
        """Answer by these model settings from now on, without a restart (see
        `ModelService.apply_settings` for the few that wait for the next start)."""
        await self._s.models.apply_settings(models)

    # -- changes ------------------------------------------------------------------------------
    async def changes(self) -> AsyncIterator[Change]:
        """What changes in the library from now on, whoever changes it, until the caller
        stops reading: videos added, updated or removed, collections, chats, the index.

        Over the owner socket this is a stream like `ask`; a client whose owner goes away
        subscribes again (the new owner's feed starts from then on).
        """
        async for change in self._s.store.changes.subscribe():
            yield change

    # -- facts --------------------------------------------------------------------------------
    async def status(self) -> LibraryStatus:
        videos = await self.list_videos()
        collections = await self.list_collections()
        manifests = await self._s.library.index_manifests()
        model = self._s.embedder.info.id if self._s.embedder else None
        return LibraryStatus(
            path=str(self._s.store.path),
            videos=len(videos),
            hours=round(sum(v.duration for v in videos) / 3600, 2),
            collections=len(collections),
            indexed_videos=len(manifests),
            vector_videos=sum(1 for m in manifests.values() if m.embed_model == model),
            embedding_model=model,
        )

    async def aclose(self) -> None:
        await self._s.aclose()
