"""The library pane: collections, the videos table, a video's details, and the imports.

It owns no data of its own: every read and write is a core call through the job runner,
and the views are refreshed from what those calls return (or re-read after a batch).

Ctrl+F anywhere in the pane finds in the open transcript (the window's own Ctrl+F, the
search pane, answers when no transcript is open or the focus is elsewhere).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from v2c_desktop.core.domain.captions import CaptionChoice, CaptionTracks
from v2c_desktop.core.domain.comments import Comments
from v2c_desktop.core.domain.follow import FollowState
from v2c_desktop.core.domain.imports import BatchResult, ImportOutcome
from v2c_desktop.core.domain.speech import SpeechModelInfo
from v2c_desktop.core.domain.videos import Collection, VideoRecord, VideoSummary
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.progress import ProgressCallback

from ...bridge import JobRunner
from ...dialogs import ask_text, confirm
from ...speech_words import transcript_origin
from .add_dialog import AddDialog, pick_files, pick_folder
from .caption_track_dialog import CaptionTrackDialog
from .collections_sidebar import ALL, CollectionsSidebar
from .import_panel import ImportPanel, short_source
from .retranscribe_dialog import RetranscribeDialog
from .thumbnails import ThumbnailSource
from .video_details import VideoDetails
from .videos_table import VideosTable

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

LABEL_CHARS = 48
RETRANSCRIBE_CANCELLED = "Cancelled: the transcript was not changed"
CAPTION_TRACK_CANCELLED = RETRANSCRIBE_CANCELLED  # the new track is saved only when read


def local_time(iso_utc: str) -> str:
    """`2026-12-02T07:48:00Z` as this computer's clock shows it: `07:48`, with the date when
    it is not today."""
    when = datetime.fromisoformat(iso_utc.replace("Z", "+00:00")).astimezone()
    today = datetime.now().astimezone().date()
    return when.strftime("%H:%M" if when.date() == today else "%Y-%m-%d %H:%M")


def sources_label(sources: list[str]) -> str:
    """What an import is called (its row, the status bar): short whatever was typed, since
    the status bar grows the window to fit its text."""
    if len(sources) == 1:
        return short_source(sources[0], LABEL_CHARS)
    return f"{len(sources)} sources"


class LibraryPane(QWidget):
    """Browse, import and organise the saved videos.

    Signals:
        seek_requested(video_id, seconds): a chapter, a transcript line or Play was clicked.
        library_changed(): videos or collections changed (status bar, search filters).
        videos_shown(count): the table now lists the library's videos (after each read).
        export_requested(video_ids, collection_id): "Export to Obsidian…" for the selected
            videos (collection "") or a collection (video_ids empty).
    """

    seek_requested = Signal(str, float)
    export_requested = Signal(list, str)
    notion_requested = Signal(list, str)  # video ids or a collection: "Export to Notion…"
    library_changed = Signal()
    videos_shown = Signal(int)
    status_message = Signal(str)  # a short note for the status bar

    def __init__(self, api: CoreAPI, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("libraryPane")
        self._api = api
        self._runner = runner
        self._collections: dict[str, Collection] = {}
        self._comments_job = ""
        self.thumbnails = ThumbnailSource(api, runner, parent=self)
        self.sidebar = CollectionsSidebar()
        self.table = VideosTable(thumbnails=self.thumbnails)
        self.sidebar.selected_count = self.table.selected_count
        self.details = VideoDetails()
        self.imports = ImportPanel(runner)
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.sidebar)
        top.addWidget(self.table)
        top.addWidget(self.details)
        top.setStretchFactor(0, 0)
        top.setStretchFactor(1, 3)
        top.setStretchFactor(2, 2)
        top.setChildrenCollapsible(False)
        top.setSizes([110, 500, 340])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.imports)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.sidebar.selected.connect(self._on_collection)
        self.sidebar.create_requested.connect(self._create_from_selection)
        self.sidebar.videos_dropped.connect(self.add_to_collection)
        self.imports.retry_requested.connect(self.start_import)  # a new row; the old one stays
        self.imports.replace_requested.connect(self.ask_replace_web)
        self.imports.video_requested.connect(self.reveal_video)
        self.sidebar.rename_requested.connect(self.rename_collection)
        self.sidebar.refresh_requested.connect(self.refresh_collection)
        self.sidebar.schedule_requested.connect(self.schedule_collection)
        self.sidebar.delete_requested.connect(self.delete_collection)
        self.table.current_changed.connect(self.show_video)
        self.table.play_requested.connect(lambda vid: self.seek_requested.emit(vid, 0.0))
        self.table.add_to_collection_requested.connect(self.add_to_collection)
        self.table.new_collection_requested.connect(self._ask_new_collection)
        self.table.remove_from_collection_requested.connect(self.remove_from_collection)
        self.table.remove_requested.connect(self.ask_remove_videos)
        self.table.rename_requested.connect(self.ask_rename_video)
        self.table.export_requested.connect(lambda ids: self.export_requested.emit(ids, ""))
        self.sidebar.export_requested.connect(lambda cid: self.export_requested.emit([], cid))
        self.table.notion_requested.connect(lambda ids: self.notion_requested.emit(ids, ""))
        self.sidebar.notion_requested.connect(lambda cid: self.notion_requested.emit([], cid))
        self.details.seek_requested.connect(self.seek_requested)
        self.table.retranscribe_requested.connect(self.ask_retranscribe)
        self.details.retranscribe_requested.connect(self.ask_retranscribe)
        self.details.caption_track_requested.connect(self.ask_caption_track)
        self.details.comments.load_requested.connect(self.load_comments)
        self.details.comments.cancel_requested.connect(self.cancel_comments)

    # -- reading -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the videos and the collections."""
        self._runner.start(
            lambda _p: self._api.list_videos(), label="list videos", on_finished=self._set_videos
        )
        self._runner.start(
            lambda _p: self._api.list_collections(),
            label="list collections",
            on_finished=self._set_collections,
        )

    def _set_videos(self, videos: list[VideoSummary]) -> None:
        self.table.set_videos(videos)
        self.videos_shown.emit(len(videos))

    def _set_collections(self, collections: list[Collection]) -> None:
        self._collections = {c.id: c for c in collections}
        self._show_collections()

    def _put_collection(self, collection: Collection) -> None:
        self._collections[collection.id] = collection
        self._show_collections()
        self.library_changed.emit()

    def _show_collections(self) -> None:
        collections = list(self._collections.values())
        self.table.collections = collections
        self.sidebar.set_collections(collections)
        self._on_collection(self.sidebar.current_id())

    def _on_collection(self, collection_id: str) -> None:
        collection = self._collections.get(collection_id) if collection_id != ALL else None
        self.table.in_collection = collection is not None
        self.table.proxy.set_allowed_ids(set(collection.video_ids) if collection else None)

    def show_video(self, video_id: str) -> None:
        if not video_id:
            return

        def shown(record: VideoRecord) -> None:
            if self.table.selected_ids() == [video_id]:  # still the one the user wants
                self.details.show_record(record)

        self._runner.start(
            lambda _p: self._api.get_video(video_id), label="open video", on_finished=shown
        )

    def set_playhead(self, video_id: str, seconds: float) -> None:
        self.details.set_playhead(video_id, seconds)

    def reveal_video(self, video_id: str) -> None:
        """Select `video_id` in the table (showing all videos if a filter hides it)."""
        if self.table.model.row_of(video_id) < 0:
            return
        if video_id not in self.table.visible_ids():
            self.sidebar.select(ALL)
        if video_id not in self.table.visible_ids():
            self.table.filter.clear()
        self.table.select_ids([video_id])
        self.table.view.scrollTo(self.table.view.currentIndex())
        self.table.view.setFocus()

    # -- find in the transcript --------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        """Ctrl+F inside the pane belongs to the transcript when one is open: claim the key
        before the window's shortcut (Search) takes it."""
        if event.type() == QEvent.Type.ShortcutOverride and self._is_find(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._is_find(event):
            self.details.open_find()
            event.accept()
            return
        super().keyPressEvent(event)

    def _is_find(self, event: QEvent) -> bool:
        return (
            isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Find)
            and self.details.has_transcript()
        )

    # -- importing ---------------------------------------------------------------------------
    def open_add_dialog(self) -> AddDialog:
        open_collection = self._collections.get(self.sidebar.current_id())
        dialog = AddDialog(
            [c.name for c in self._collections.values()],
            self,
            current=open_collection.name if open_collection else "",
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.sources_chosen.connect(self.start_import)
        dialog.open()
        return dialog

    def pick_files(self) -> None:
        pick_files(self, self.start_import)

    def pick_folder(self) -> None:
        pick_folder(self, self.start_import)

    def start_import(
        self, sources: list[str], collection: str = "", *, replace_web: bool = False
    ) -> str:
        """Import `sources` (URLs, files, folders) as a visible, cancellable job.

        `replace_web`: the user confirmed that these local archives may replace the videos
        they claim to be, which were imported from the web (`ask_replace_web`)."""
        label = f"{'Replace from' if replace_web else 'Import'} {sources_label(sources)}"
        job_id = self._runner.start(
            lambda progress: self._api.add(
                list(sources),
                collection=collection or None,
                progress=progress,
                replace_web=replace_web,
            ),
            label=label,
            visible=True,
            interactive=True,
            on_finished=self._imported,
            on_cancelled=self._after_write,
        )
        self.imports.track(job_id, label, list(sources), collection)
        return job_id

    def refresh_collection(self, collection_id: str) -> str:
        """Check the playlists, channels and feeds the collection follows for new uploads,
        as an import row of its own (items as they settle, cancellable)."""
        collection = self._collections.get(collection_id)
        name = collection.name if collection is not None else collection_id

        async def refresh(progress: ProgressCallback) -> BatchResult:
            return (await self._api.refresh_collection(collection_id, progress=progress)).result

        label = f"Check “{name}” for new videos"
        job_id = self._runner.start(
            refresh,
            label=label,
            visible=True,
            interactive=True,
            on_finished=self._imported,
            on_cancelled=self._after_write,
        )
        self.imports.track(job_id, label, [], collection_id)
        return job_id

    def schedule_collection(self, collection_id: str, every_hours: float | None) -> str:
        def scheduled(state: FollowState) -> None:
            when = (
                f"every {state.every_hours:g} h while the app runs "
                f"(next at {local_time(state.next_check)})"
                if state.every_hours
                else "only when you ask"
            )
            self.status_message.emit(f"{state.collection_id}: checked for new videos {when}")

        return self._runner.start(
            lambda _p: self._api.set_follow_schedule(collection_id, every_hours),
            label="Check automatically",
            interactive=True,
            on_finished=scheduled,
        )

    def ask_replace_web(self, kept: list[ImportOutcome], collection: str = "") -> None:
        """Ask before local archives replace transcripts read from the web: an archive's
        .info.json may claim any video's id, so only the user can say it is that video."""
        if not kept:
            return
        titles = [o.title or o.video_id or o.source for o in kept]
        what = f"“{titles[0]}”" if len(kept) == 1 else f"these {len(kept)} videos"
        shown = "\n".join(f"• {t} ({o.video_id})" for t, o in zip(titles, kept, strict=True))
        confirm(
            self,
            "Replace web transcripts",
            f"Replace the transcript of {what}, imported from the web, with the local archive's?",
            lambda: self.start_import([o.source for o in kept], collection, replace_web=True),
            detail="Only do this if the archive really is that video: its .info.json says "
            "which video it is, and anyone can write one. The archive's transcript will say "
            f"it came from the file.\n\n{shown}",
        )

    def _imported(self, result: BatchResult) -> None:
        if result.changed_ids or result.collection is not None:
            self._after_write()

    def _after_write(self) -> None:
        self.refresh()
        self.library_changed.emit()

    # -- speech-to-text again ----------------------------------------------------------------
    def ask_retranscribe(self, video_id: str) -> str:
        """ "Re-transcribe with…": read the video and the owner's speech models, then ask."""

        async def read() -> tuple[VideoRecord, list[SpeechModelInfo]]:
            return await self._api.get_video(video_id), await self._api.list_speech_models()

        return self._runner.start(
            lambda _p: read(),
            label="List speech models",
            interactive=True,
            on_finished=lambda got: self._open_retranscribe(*got),
        )

    def _open_retranscribe(self, record: VideoRecord, models: list[SpeechModelInfo]) -> None:
        video = record.video
        title = video.title or video.id
        dialog = RetranscribeDialog(title, transcript_origin(record.transcript), models, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.model_chosen.connect(lambda name: self.retranscribe(video.id, name, title))
        dialog.open()

    def retranscribe(self, video_id: str, model: str, title: str = "") -> str:
        """Transcribe a saved video's media file again with `model`, as a visible,
        cancellable job in the imports list; the table and the details follow when done."""
        label = f"Transcribe {short_source(title or video_id, LABEL_CHARS)} with {model}"
        job_id = self._runner.start(
            lambda progress: self._api.transcribe(video_id, model, progress),
            label=label,
            visible=True,
            interactive=True,
            on_finished=lambda _outcome: self._transcribed(video_id),
        )
        self.imports.track(
            job_id,
            label,
            cancelled_text=RETRANSCRIBE_CANCELLED,
            done_text=f"Done: a new transcript by {model} replaced the old one",
        )
        return job_id

    def _transcribed(self, video_id: str) -> None:
        self._after_write()
        if self.details.video_id == video_id:
            self.show_video(video_id)

    # -- another caption track ---------------------------------------------------------------
    def ask_caption_track(self, video_id: str) -> str:
        """ "Caption track…": read the tracks the video's site offers now, then ask."""
        return self._runner.start(
            lambda _p: self._api.caption_tracks(video_id),
            label="List caption tracks",
            interactive=True,
            on_finished=self._open_caption_track,
        )

    def _open_caption_track(self, listing: CaptionTracks) -> None:
        dialog = CaptionTrackDialog(listing, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.track_chosen.connect(
            lambda choice: self.choose_caption_track(listing.video_id, choice, listing.title)
        )
        dialog.open()

    def choose_caption_track(self, video_id: str, choice: CaptionChoice, title: str = "") -> str:
        """Read the transcript from the track `choice` names, as a visible, cancellable job in
        the imports list; the current transcript is replaced only once the new one is read
        (the user chose the track, which confirms replacing a transcript of their own)."""
        label = f"Caption track of {short_source(title or video_id, LABEL_CHARS)}: {choice.words()}"
        job_id = self._runner.start(
            lambda progress: self._api.choose_caption_track(
                video_id, choice, replace_local=True, progress=progress
            ),
            label=label,
            visible=True,
            interactive=True,
            on_finished=lambda _outcome: self._transcribed(video_id),
        )
        self.imports.track(job_id, label, cancelled_text=CAPTION_TRACK_CANCELLED)
        return job_id

    # -- comments ----------------------------------------------------------------------------
    def load_comments(self, video_id: str, limit: int, refresh: bool = False) -> str:
        """Read the video's comments (from the library when it holds enough, else from the
        site) as a cancellable job; they show in the details if it still shows that video."""
        if self._comments_job:  # one read at a time: the one asked for last
            self._runner.cancel(self._comments_job)
        view = self.details.comments
        view.set_loading()

        job = [""]  # this job's id, once started

        def still_shown() -> bool:
            """The details show this video, and no later read of comments replaced this one."""
            return self.details.video_id == video_id and self._comments_job == job[0]

        def shown(found: Comments) -> None:
            if still_shown():
                self.details.show_comments(found)

        def failed(error: V2CError) -> None:
            if still_shown():
                view.show_failed(error.message, error.hint_for("app"))

        def cancelled() -> None:
            if still_shown():
                view.show_cancelled()

        title = self.details.record.video.title if self.details.record else video_id
        job[0] = self._comments_job = self._runner.start(
            lambda progress: self._api.get_comments(
                video_id, limit, refresh=refresh, progress=progress
            ),
            label=f"Comments of {short_source(title or video_id, LABEL_CHARS)}",
            visible=True,
            on_finished=shown,
            on_failed=failed,
            on_cancelled=cancelled,
        )
        return job[0]

    def cancel_comments(self) -> None:
        """Stop the comments being read (nothing new is kept); the view says so."""
        if self._comments_job:
            self._runner.cancel(self._comments_job)

    # -- renaming ----------------------------------------------------------------------------
    def ask_rename_video(self, video_id: str) -> None:
        current = next((v.title for v in self.table.model.videos() if v.id == video_id), "")
        ask_text(
            self,
            "Rename video",
            "Title (kept when the video is imported again):",
            lambda title: self.rename_video(video_id, title),
            initial=current,
        )

    def rename_video(self, video_id: str, title: str) -> str:
        return self._runner.start(
            lambda _p: self._api.rename_video(video_id, title),
            label="Rename video",
            interactive=True,
            on_finished=lambda _record: self._after_write(),
        )

    # -- removing ----------------------------------------------------------------------------
    def ask_remove_videos(self, video_ids: list[str]) -> None:
        count = len(video_ids)
        what = "this video" if count == 1 else f"these {count} videos"
        confirm(
            self,
            "Remove videos",
            f"Remove {what} from the library?",
            lambda: self.remove_videos(video_ids),
            detail="Their transcripts and search index entries are deleted; "
            "the original files are not touched.",
        )

    def remove_videos(self, video_ids: list[str]) -> str:
        async def remove_all() -> list[str]:
            return [await self._api.remove(vid) for vid in video_ids]

        return self._runner.start(
            lambda _p: remove_all(),
            label="Remove videos",
            interactive=True,
            on_finished=self._removed,
        )

    def _removed(self, removed: list[str]) -> None:
        self.table.model.remove_ids(set(removed))
        if self.details.video_id in removed:
            self.details.clear()
        for collection in self._collections.values():
            collection.video_ids = [v for v in collection.video_ids if v not in removed]
        self._show_collections()
        self.library_changed.emit()

    # -- collections -------------------------------------------------------------------------
    def _ask_new_collection(self, video_ids: list[str]) -> None:
        what = "the video goes" if len(video_ids) == 1 else f"the {len(video_ids)} videos go"
        ask_text(
            self,
            "New collection",
            f"Name ({what} in it):",
            lambda name: self.create_collection(name, video_ids),
        )

    def _create_from_selection(self, name: str) -> str:
        """The sidebar's New: a collection of the videos selected in the table."""
        return self.create_collection(name, self.table.selected_ids())

    def create_collection(self, name: str, video_ids: list[str] | None = None) -> str:
        async def create() -> Collection:
            collection = await self._api.create_collection(name)
            if video_ids:
                await self._api.add_to_collection(collection.id, list(video_ids))
                collection = await self._api.get_collection(collection.id)
            return collection

        return self._runner.start(
            lambda _p: create(),
            label="Create collection",
            interactive=True,
            on_finished=self._put_collection,
        )

    def rename_collection(self, collection_id: str, name: str) -> str:
        return self._runner.start(
            lambda _p: self._api.rename_collection(collection_id, name),
            label="Rename collection",
            interactive=True,
            on_finished=self._put_collection,
        )

    def delete_collection(self, collection_id: str) -> str:
        def deleted(_none: None) -> None:
            self._collections.pop(collection_id, None)
            self._show_collections()
            self.library_changed.emit()

        return self._runner.start(
            lambda _p: self._api.delete_collection(collection_id),
            label="Delete collection",
            interactive=True,
            on_finished=deleted,
        )

    def add_to_collection(self, collection_id: str, video_ids: list[str]) -> str:
        async def add() -> Collection:
            await self._api.add_to_collection(collection_id, list(video_ids))
            return await self._api.get_collection(collection_id)

        return self._runner.start(
            lambda _p: add(),
            label="Add to collection",
            interactive=True,
            on_finished=self._put_collection,
        )

    def remove_from_collection(self, video_ids: list[str]) -> str:
        collection_id = self.sidebar.current_id()

        async def remove() -> Collection:
            await self._api.remove_from_collection(collection_id, list(video_ids))
            return await self._api.get_collection(collection_id)

        return self._runner.start(
            lambda _p: remove(),
            label="Remove from collection",
            interactive=True,
            on_finished=self._put_collection,
        )
