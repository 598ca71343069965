"""The library service: import orchestration and reads, shared by the CLI, MCP and the GUI.

It owns no state but the store it is given; store calls run on the store's one worker
thread (`LibraryStore.run`) so the event loop (the GUI's, the MCP server's) never waits on
DuckDB, and writes stay ordered with every other writer's.
A batch import reports every input separately and one failure never stops the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from .domain.imports import REPLACE_WEB, BatchResult, ImportOutcome, ItemListing, outcome_line
from .domain.videos import Collection, CollectionItem, Transcript, VideoRecord, VideoSummary
from .errors import V2CError, bad_request, not_found
from .file_kinds import is_media
from .ids import youtube_id_from_url
from .importers.inputs import (
    ExpandWeb,
    PlannedItem,
    is_web_url,
    plan_inputs,
    unexpected_failure,
)
from .importers.listing import list_items
from .importers.local import LocalItem, chosen_subtitle, is_local_transcript
from .importers.web.hosts import HostGuard
from .importers.web.importer import CaptionlessSpeech
from .importers.web.metadata import video_from_info
from .importers.web_access import WebAccess
from .progress import Progress, ProgressCallback, ignore_progress
from .settings import AgentSettings
from .store import LibraryStore
from .store.search_index import Manifest
from .store.videos import content_hash
from .stt.importing import SpeechOptions, WebSpeech, read_or_transcribe

T = TypeVar("T")


class _AlreadySaved(Exception):
    """A captionless web video is saved already: its `outcome` says so, with nothing
    downloaded (a transcription takes minutes)."""

    def __init__(self, outcome: ImportOutcome) -> None:
        super().__init__(outcome.reason)
        self.outcome = outcome


def _unused_subtitles(
    local: LocalItem, used: ImportOutcome, languages: tuple[str, ...]
) -> list[ImportOutcome]:
    """A `skipped` line for each subtitle file of a video that was not the one read.

    A folder holding `talk.srt` and `talk.vtt` (or `talk.en.vtt` and `talk.de.vtt`) gives one
    video; the report still accounts for every file, saying which one was used instead.
    """
    chosen = chosen_subtitle(local, languages)
    if chosen is None:
        return []
    if used.status == "failed":
        reason, video_id = f"not read: {chosen.name} was picked for this video and failed", None
    else:
        reason, video_id = f"{chosen.name} was used for this video", used.video_id
    return [
        ImportOutcome(str(path), "skipped", video_id, reason=reason)
        for path, _ in local.subtitles
        if path != chosen
    ]


def followed_sources(items: list[PlannedItem]) -> list[str]:
    """The web inputs that stood for several videos (a playlist, a channel, a feed): what a
    collection filled from them follows. A single video is no source, even when its address
    was rewritten (`youtu.be/X` read as `watch?v=X`)."""
    followed: list[str] = []
    for item in items:
        source = item.source
        if item.url is None or item.url == source or not is_web_url(source):
            continue
        if youtube_id_from_url(source) and "list=" not in source:
            continue
        followed.append(source)
    return list(dict.fromkeys(followed))


class Library:
    """Async operations over one open library."""

    def __init__(
        self,
        store: LibraryStore,
        web: WebAccess | None = None,
        *,
        on_saved: Callable[[str], Awaitable[Any]] | None = None,
        on_removed: Callable[[str], None] | None = None,
    ) -> None:
        """`on_saved` runs after each video is written (the search index hooks in here, so
        a video is searchable as soon as its import is reported); `on_removed` after a delete."""
        self.store = store
        self._web = web
        self._on_saved = on_saved
        self._on_removed = on_removed

    async def run_store(self, fn: Callable[..., T], *args: Any) -> T:
        """A blocking store call on the store's worker thread, in order with the others."""
        return await self.store.run(fn, *args)

    @property
    def web(self) -> WebAccess:
        if self._web is None:
            self._web = WebAccess.default()
        return self._web

    async def aclose(self) -> None:
        if self._web is not None:
            await self._web.aclose()

    # -- import -----------------------------------------------------------------------------
    async def add(
        self,
        inputs: list[str],
        *,
        collection: str | None = None,
        refresh: bool = False,
        languages: tuple[str, ...] = (),
        progress: ProgressCallback = ignore_progress,
        on_outcome: Callable[[ImportOutcome], None] | None = None,
        agent: AgentSettings | None = None,
        replace_web: bool = False,
        transcribe: bool = True,  # speech-to-text for media without subtitles (core.stt)
        stt_model: str | None = None,
        transcribe_web: bool = False,
        new_only: bool = False,
    ) -> BatchResult:
        """Import every input; each video is saved in its own transaction as soon as it is read.

        `on_outcome` hears about each item the moment it is settled, so a long batch shows
        its results as it goes (and a crash loses nothing that was already reported).
        `agent`: the inputs come from an AI agent (the MCP server), whose URLs, the caption
        tracks they lead to and their redirects may reach only public hosts unless these
        settings allow private ones. `replace_web`: the user confirmed that a local archive may
        replace a video imported from the web (else such an item is skipped, saying so).
        `transcribe_web`: the user consents, for this call, that a web video without captions
        has its audio downloaded and transcribed (the `imports.transcribe_without_captions`
        setting consents for every call, and is the only consent an agent's import has).
        `new_only`: a web page the library already holds (by its address) is skipped without
        fetching it again, as a YouTube video always is (a followed source's refresh).
        A playlist, channel or feed filled into a collection is followed by it from then on.
        """
        result = BatchResult()

        def settle(outcome: ImportOutcome) -> None:
            result.outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
            # also as a progress event, so a client of the library's owner (another
            # process) sees each item settle as it happens
            progress(Progress("settled", len(result.outcomes), None, outcome_line(outcome)))

        if collection:
            result.collection = await self.run_store(self.store.ensure_collection, collection)
        progress(Progress("plan", 0, len(inputs), "reading inputs"))
        needs_web = any(i.strip().startswith(("http://", "https://")) for i in inputs)
        guard = None if agent is None or agent.allow_private_hosts else self.web.agent_guard()
        expand: ExpandWeb = self.web.expand if needs_web else _no_web
        if guard is not None:
            expand = _guarded_expand(expand, guard)
        items, failures = await plan_inputs(inputs, expand, progress)
        if result.collection:
            followed = followed_sources(items)
            if followed:
                await self.run_store(self.store.follow_sources, result.collection.id, followed)
        for failure in failures:
            settle(
                ImportOutcome(
                    failure.source, "failed", reason=failure.error.message, error=failure.error
                )
            )
        total = len(items)
        for done, item in enumerate(items):
            progress(Progress("import", done, total, item.label))
            outcome = await self._import_item(
                item,
                refresh=refresh,
                languages=languages,
                guard=guard,
                replace_web=replace_web,
                speech=SpeechOptions(transcribe, stt_model, web=transcribe_web and agent is None),
                progress=progress,
                new_only=new_only,
            )
            if result.collection and outcome.video_id and outcome.status != "failed":
                await self.run_store(
                    self.store.add_to_collection,
                    result.collection.id,
                    [outcome.video_id],
                    [item.source],
                )
            settle(outcome)
            if item.local is not None and item.from_folder:
                for unused in _unused_subtitles(item.local, outcome, languages or ("en",)):
                    settle(unused)
        if total:  # nothing was imported when every input failed to plan: its line says so
            failed = result.count("failed")
            progress(
                Progress("import", total, total, f"done, {failed} failed" if failed else "done")
            )
        return result

    async def _import_item(
        self,
        item: PlannedItem,
        *,
        refresh: bool,
        languages: tuple[str, ...],
        guard: HostGuard | None = None,
        replace_web: bool = False,
        speech: SpeechOptions | None = None,
        progress: ProgressCallback = ignore_progress,
        new_only: bool = False,
    ) -> ImportOutcome:
        try:
            if item.url is not None:
                known = youtube_id_from_url(item.url)
                if (known or new_only) and not refresh:
                    # a YouTube video by its id; with `new_only`, any page by its address
                    saved = await self.run_store(
                        self.store.saved_as,
                        item.url if new_only else "",
                        f"youtube:{known}" if known else "",
                    )
                    if saved is not None:
                        return ImportOutcome(
                            item.url,
                            "skipped",
                            saved[0],
                            title=saved[1],
                            reason="already in the library"
                            + ("" if new_only else " (use --refresh to import it again)"),
                        )
                options = speech or SpeechOptions()
                web_speech = None  # the user's consent: for this call, or in the settings
                if options.transcribe and (
                    options.web or self.web.settings.transcribe_without_captions
                ):
                    web_speech = self._web_speech(item.url, options.model, refresh)
                record = await self.web.fetch(
                    item.url, languages=languages, progress=progress, guard=guard, speech=web_speech
                )
            else:
                assert item.local is not None
                read = await read_or_transcribe(  # a media file alone: speech-to-text
                    self._saved,
                    item.local,
                    languages or ("en",),
                    options=speech or SpeechOptions(),
                    refresh=refresh,
                    progress=progress,
                )
                if isinstance(read, ImportOutcome):
                    return read
                if not replace_web:
                    kept = await self._web_import_kept(item.label, read.record)
                    if kept is not None:
                        return kept
                outcome = await self._save(item.label, read.record, refresh=refresh)
                outcome.warnings = read.warnings
                return outcome
            return await self._save(item.label, record, refresh=refresh)
        except _AlreadySaved as saved:
            return saved.outcome
        except V2CError as exc:
            return ImportOutcome(item.label, "failed", reason=exc.message, error=exc)
        except Exception as exc:  # whatever its type, one item's failure never stops the batch
            error = unexpected_failure(item.label, exc)
            return ImportOutcome(item.label, "failed", reason=error.message, error=error)

    def _web_speech(self, label: str, model: str | None, refresh: bool) -> CaptionlessSpeech:
        """Speech-to-text for a captionless web video, unless it is saved already (and no
        `refresh` was asked): then nothing is downloaded, the item is skipped."""
        speech = WebSpeech(self.web.settings, model)

        async def unless_saved(
            info: dict[str, Any], *, progress: ProgressCallback, guard: HostGuard | None
        ) -> tuple[Transcript, float]:
            video = video_from_info(info)
            saved = None if refresh else await self._saved(video.id)
            if saved is not None:
                raise _AlreadySaved(
                    ImportOutcome(
                        label,
                        "skipped",
                        video.id,
                        saved.video.title,
                        reason="already in the library (use --refresh to import it again)",
                    )
                )
            return await speech(info, progress=progress, guard=guard)

        return unless_saved

    async def _web_import_kept(self, label: str, record: VideoRecord) -> ImportOutcome | None:
        """A `skipped` outcome when the local `record` would replace a web import, else None.

        An archive's `.info.json` may claim any video's id; what the library read from the
        site itself is kept unless the user confirms (the outcome's `confirm`). A video
        imported from local files (its transcript's producer says so) is theirs to update.
        """
        vid = record.video.id
        if not await self.run_store(self.store.has_video, vid):
            return None
        existing = await self.run_store(self.store.get_video, vid)
        if existing.video.platform == "file" or is_local_transcript(existing.transcript):
            return None
        return ImportOutcome(
            label,
            "skipped",
            vid,
            existing.video.title,
            reason=f"{vid} was imported from the web, so this local archive did not replace "
            f"its transcript ({existing.transcript.producer or 'web captions'}); replacing it "
            "with the archive's needs the user's confirmation",
            confirm=REPLACE_WEB,
        )

    def agent_guard(self, agent: AgentSettings | None) -> HostGuard | None:
        """The host check for an agent's web reads (None: the user's, or private hosts
        allowed by the agent settings)."""
        return None if agent is None or agent.allow_private_hosts else self.web.agent_guard()

    async def saved(self, video_id: str) -> VideoRecord | None:
        """The saved video, or None when the library does not hold it."""
        return await self._saved(video_id)

    async def replace_transcript(self, label: str, record: VideoRecord) -> ImportOutcome:
        """Save `record` over the video's earlier version, through the one save path (the
        change feed, the search index), even when its words are the same."""
        return await self._save(label, record, refresh=True)

    async def _saved(self, video_id: str) -> VideoRecord | None:
        """The saved video, or None when the library does not hold it."""
        if not await self.run_store(self.store.has_video, video_id):
            return None
        return await self.run_store(self.store.get_video, video_id)

    async def transcribe(
        self, ref: str, model: str | None = None, progress: ProgressCallback = ignore_progress
    ) -> ImportOutcome:
        """Transcribe a saved video's local media file again and replace its transcript in
        one transaction; the outcome's `reason` says what was replaced."""
        from .stt.importing import transcribe_again  # the engine loads only where it is used

        record = await self.get_video(ref)
        replaced, reason, warnings = await transcribe_again(record, model, progress=progress)
        outcome = await self._save(str(record.video.source_path), replaced, refresh=True)
        outcome.reason = reason + (f"; {outcome.reason}" if outcome.reason else "")
        outcome.warnings = warnings
        return outcome

    async def _save(self, label: str, record: VideoRecord, *, refresh: bool) -> ImportOutcome:
        vid = record.video.id
        previous = await self.run_store(self.store.transcript_hash, vid)
        if previous is not None and not refresh and previous == content_hash(record.transcript):
            return ImportOutcome(
                label,
                "skipped",
                vid,
                record.video.title,
                reason="already in the library with the same transcript",
            )
        is_new = await self.run_store(self.store.save_video, record)
        outcome = ImportOutcome(label, "added" if is_new else "updated", vid, record.video.title)
        if self._on_saved is not None:
            try:
                await self._on_saved(vid)
            except V2CError as error:  # saved is saved: the index catches up on the next search
                outcome.reason = f"saved, but not indexed yet: {error.message}"
        return outcome

    # -- reads and simple writes ------------------------------------------------------------
    async def list_videos(self, collection: str | None = None) -> list[VideoSummary]:
        cid = (await self.get_collection(collection)).id if collection else None
        return await self.run_store(self.store.list_videos, cid)

    async def resolve(self, ref: str) -> str:
        return await self.run_store(self.store.resolve_video, ref)

    async def get_video(self, ref: str) -> VideoRecord:
        return await self.run_store(self.store.get_video, await self.resolve(ref))

    async def rename(self, ref: str, title: str) -> VideoRecord:
        """Give a video the user's own title (kept on re-import); the video, renamed."""
        vid = await self.resolve(ref)
        await self.run_store(self.store.rename_video, vid, title)
        return await self.run_store(self.store.get_video, vid)

    async def set_media(self, ref: str, path: str) -> VideoRecord:
        """Play the video from the local media file at `path` from now on; the video."""
        vid = await self.resolve(ref)
        media = await asyncio.to_thread(_media_file, path)
        await self.run_store(self.store.set_media, vid, media)
        return await self.run_store(self.store.get_video, vid)

    async def remove(self, ref: str) -> str:
        vid = await self.resolve(ref)
        await self.run_store(self.store.delete_video, vid)
        if self._on_removed is not None:
            self._on_removed(vid)
        return vid

    async def list_collections(self) -> list[Collection]:
        return await self.run_store(self.store.list_collections)

    async def get_collection(self, ref: str) -> Collection:
        return await self.run_store(self.store.get_collection, ref)

    async def latest_in_collection(self, ref: str, limit: int) -> list[CollectionItem]:
        return await self.run_store(self.store.latest_in_collection, ref, limit)

    async def create_collection(self, name: str, description: str = "") -> Collection:
        return await self.run_store(self.store.create_collection, name, description)

    async def remove_from_collection(self, ref: str, video_refs: list[str]) -> None:
        collection = await self.get_collection(ref)
        ids = [await self.resolve(v) for v in video_refs]
        await self.run_store(self.store.remove_from_collection, collection.id, ids)

    async def rename_collection(self, ref: str, name: str) -> Collection:
        collection = await self.get_collection(ref)
        return await self.run_store(self.store.rename_collection, collection.id, name)

    async def delete_collection(self, ref: str) -> None:
        collection = await self.get_collection(ref)
        await self.run_store(self.store.delete_collection, collection.id)

    async def list_items(self, text: str, limit: int = 50) -> ItemListing:
        """What `text` holds (a playlist, channel, folder, URL list), without importing."""
        return await list_items(text, self.web, limit)

    async def index_manifests(self) -> dict[str, Manifest]:
        return await self.run_store(self.store.index_manifests)

    async def add_to_collection(self, ref: str, video_refs: list[str]) -> list[str]:
        collection = await self.get_collection(ref)
        ids = [await self.resolve(v) for v in video_refs]
        return await self.run_store(self.store.add_to_collection, collection.id, ids, [])


def _media_file(path: str) -> str:
    """The absolute path of an existing video or audio file, or why it cannot be one."""
    media = Path(path).expanduser()
    if not is_media(media):
        raise bad_request(
            f"{media.name or path!r} is not a video or audio file",
            "choose a video or audio file (.mp4, .mkv, .webm, .mp3, .m4a, .wav, ...)",
        )
    if not media.is_file():
        raise not_found(f"there is no file {media}", "check the path")
    return str(media.resolve())


async def _no_web(url: str) -> list[str]:
    return [url]


def _guarded_expand(expand: ExpandWeb, guard: HostGuard) -> ExpandWeb:
    """`expand`, refusing an agent's URL before yt-dlp reads it."""

    async def checked(url: str) -> list[str]:
        await guard.check(url)
        return await expand(url)

    return checked
