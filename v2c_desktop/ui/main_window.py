"""The main window: composes the panes, the player dock and the status bar, and wires them.

It holds no feature logic. Every timestamp click in any pane (library, search, chat)
arrives as `seek_requested(video_id, seconds)` and goes to the player; the player's time
goes back to the library's transcript. `attach_chat_pane` plugs the chat pane in (its
navigation entry and Ctrl+L), `attach_brief_pane` the brief pane (Ctrl+B); the status bar
hears the chat model and the MCP owner state.
The Help menu (`help.py`) lists the keys read from the window; `restore_layout` puts the
window where it was (`window_layout.py`) and closing it remembers the layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices, QDragEnterEvent, QDropEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QMenu, QStackedWidget, QWidget

from v2c_desktop.core.settings import Settings

from .actions import create_actions, focus_is_text_input
from .bridge import JobRunner
from .changes import ChangeListener
from .dialogs import show_error
from .drop import dropped_sources
from .follow_schedule import FollowSchedule
from .help import AboutDialog, ShortcutsDialog, WhereDialog, add_help_menu, shortcut_rows
from .http_server import HttpServer
from .icons import bind
from .navigation import Navigation
from .owner_state import OwnerState
from .panes.brief.pane import BriefPane
from .panes.chat.models import ChatModelSource
from .panes.chat.pane import ChatPane
from .panes.library.notion_dialog import NotionDialog
from .panes.library.pane import LibraryPane
from .panes.search.pane import SearchPane
from .player.dock import PlayerDock
from .player.transport import SKIP_SECONDS
from .settings.dialog import SettingsDialog
from .settings.first_run import offer_first_run
from .settings.model_downloads import ModelDownloads
from .status_bar import LibraryStatusBar
from .window_layout import fit_on_screen, restore_layout, save_layout

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI
    from v2c_desktop.core.domain.status import LibraryStatus
    from v2c_desktop.core.errors import V2CError


class MainWindow(QMainWindow):
    """Signals:
    closing(): the user closed the window (the app then shuts the core down).
    ready(): the window shows the library (its videos and the status bar) for the first time.
    """

    closing = Signal()
    ready = Signal()

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        settings: Settings,
        *,
        player: PlayerDock | None = None,
        owner: OwnerState | None = None,
        models: ChatModelSource | None = None,
        state_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("v2c desktop")
        self.resize(1280, 800)
        self.setAcceptDrops(True)
        self.api, self.runner, self.settings = api, runner, settings
        self.owner = owner or OwnerState(self)
        self.models = models or ChatModelSource(api)
        self.library_path: Path | None = None
        self.state_path = state_path  # the app's state file (None: the default one)
        self.open_url = QDesktopServices.openUrl  # how folders open (tests replace it)
        self._fit_when_shown = False
        self._waiting = {"videos", "status"}  # what `ready` waits for
        self.library = LibraryPane(api, runner)
        self.follow = FollowSchedule(api, runner, self)  # scheduled collection checks
        self.search = SearchPane(api, runner)
        self.changes = ChangeListener(api, self)
        self.chat: QWidget | None = None  # the pane attach_chat_pane plugged in
        self.player = player or PlayerDock(
            runner,
            api.get_video,
            set_media=api.set_media,
            skip_segments=api.get_skip_segments,
            key_moments=lambda video_id, progress: api.get_key_moments(video_id, progress=progress),
        )
        self.player.set_skip_sponsors(settings.sponsorblock.skip_in_player)
        self.navigation = Navigation()
        self.stack = QStackedWidget()
        self.panes: dict[str, QWidget] = {"library": self.library, "search": self.search}
        for pane in self.panes.values():
            self.stack.addWidget(pane)
        self.stack.setObjectName("paneStack")
        central = QWidget()
        central.setObjectName("central")  # names key the remembered splitters
        row = QHBoxLayout(central)
        row.setContentsMargins(4, 4, 4, 4)
        row.addWidget(self.navigation)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.player)
        self.status = LibraryStatusBar()
        self.setStatusBar(self.status)
        self.actions_ = create_actions(self)
        view_menu = self.menuBar().findChild(QMenu, "viewMenu")
        if view_menu is not None:
            view_menu.addSeparator()
            view_menu.addAction(self.player.toggleViewAction())
        bind(self.player.toggleViewAction(), "player")
        self.help = add_help_menu(self)
        self.navigation.set_available("chat", False)
        self.navigation.set_available("brief", False)
        self._wire()
        self.chat_pane = ChatPane(api, runner, self.models)
        self.chat_pane.model_changed.connect(self._show_chat_model)
        self.library.library_changed.connect(self.chat_pane.library_changed)
        self.attach_chat_pane(self.chat_pane)
        self.brief_pane = BriefPane(
            api,
            runner,
            self.models,
            settings,
            selected_videos=self.library.table.selected_ids,
            open_url=lambda url: self.open_url(url),
        )
        self.attach_brief_pane(self.brief_pane)
        self.downloads = ModelDownloads(api, runner, self)  # outlive the dialogs showing them
        self.http_server: HttpServer | None = None  # `v2c mcp --http`, once the user starts it
        self.downloads.finished.connect(lambda *_: self._models_changed())
        self.status.chat_clicked.connect(self.open_model_manager)
        self.show_pane("library")

    def _wire(self) -> None:
        a = self.actions_
        a.add.triggered.connect(self.library.open_add_dialog)
        a.add_files.triggered.connect(self.library.pick_files)
        a.add_folder.triggered.connect(self.library.pick_folder)
        a.settings.triggered.connect(self.open_settings)
        a.chat_models.triggered.connect(self.open_model_setup)
        a.quit.triggered.connect(self.close)
        a.library.triggered.connect(lambda: self.show_pane("library"))
        a.search.triggered.connect(self.focus_search)
        a.chat.triggered.connect(lambda: self.show_pane("chat"))
        a.brief.triggered.connect(lambda: self.show_pane("brief"))
        a.play_pause.triggered.connect(self.play_pause)
        a.back.triggered.connect(lambda: self.player.skip(-SKIP_SECONDS))
        a.forward.triggered.connect(lambda: self.player.skip(SKIP_SECONDS))
        self.help.shortcuts.triggered.connect(self.open_shortcuts)
        self.help.about.triggered.connect(self.open_about)
        self.help.where.triggered.connect(self.open_where)
        self.navigation.pane_selected.connect(self.show_pane)
        self.library.seek_requested.connect(self.seek)
        self.search.seek_requested.connect(self.seek)
        self.player.position_changed.connect(self.library.set_playhead)
        self.player.message_changed.connect(self._player_message)
        self.library.library_changed.connect(self.refresh_status)
        self.library.status_message.connect(self.status.showMessage)
        self.follow.checked.connect(self._followed)
        self.closing.connect(self.follow.stop)
        self.library.library_changed.connect(self.search.refresh_filters)
        self.changes.changed.connect(self._library_changed_elsewhere)
        self.runner.jobs_changed.connect(lambda: self.status.show_jobs(self.runner.active()))
        self.runner.failed.connect(self._on_failed)
        self.library.videos_shown.connect(lambda _n: self._arrived("videos"))
        self.owner.changed.connect(self._show_mcp)

    def start(self) -> None:
        """Read the library once the loop runs: the table, the filters, the status bar, the
        chat models (local servers are looked for in the background); then follow its
        changes, whoever makes them."""
        self.changes.start()
        self.follow.start()
        self.library.refresh()
        self.search.refresh_filters()
        self.refresh_status()
        self.chat_pane.refresh_models()
        self._show_mcp()

    def _arrived(self, what: str) -> None:
        if self._waiting:
            self._waiting.discard(what)
            if not self._waiting:
                self.ready.emit()

    def offer_first_run(self, **options: object) -> None:
        """Offer a chat model when none can write answers (once; see `first_run`)."""
        offer_first_run(
            self,
            self.api,
            self.runner,
            self._models_changed,
            downloads=self.downloads,
            on_more=self.open_model_manager,
            **options,  # type: ignore[arg-type]
        )

    def open_model_setup(self) -> None:
        """Getting a chat model, on request (the menu, an extractive answer's link, the chat's
        "Get a better model…"): the model manager."""
        self.open_model_manager()

    def open_model_manager(self) -> SettingsDialog:
        """The settings at their Models page: the catalog, downloads, files, servers."""
        dialog = self.open_settings()
        dialog.show_page("models")
        return dialog

    def _models_changed(self) -> None:
        """The owner's models changed (downloaded, added, removed, settings applied)."""
        self.chat_pane.refresh_models(detect=False)
        self.brief_pane.refresh_models()

    def _library_changed_elsewhere(self, subjects: frozenset[str]) -> None:
        """A burst of changes settled (an agent's import, a `v2c` command, our own work):
        re-read what the panes show of it."""
        if subjects & {"video", "collection"}:
            self.library.refresh()
            self.search.refresh_filters()
            self.chat_pane.library_changed()
            self.brief_pane.library_changed()
        elif "chat" in subjects:
            self.chat_pane.saved.refresh()
        if "brief" in subjects and not subjects & {"video", "collection"}:
            self.brief_pane.saved.refresh()
        if subjects & {"video", "index"}:
            self.refresh_status()

    async def aclose(self) -> None:
        await self.changes.aclose()
        await self.models.aclose()
        if self.http_server is not None:
            await self.http_server.aclose()

    # -- panes -------------------------------------------------------------------------------
    def show_pane(self, key: str) -> None:
        pane = self.panes.get(key)
        if pane is None:
            return
        self.stack.setCurrentWidget(pane)
        self.navigation.blockSignals(True)
        self.navigation.select(key)
        self.navigation.blockSignals(False)

    def focus_search(self) -> None:
        self.show_pane("search")
        self.search.focus_query()

    def attach_chat_pane(self, pane: QWidget) -> None:
        """Add the chat pane when it exists; its `seek_requested` goes to the player too."""
        self.chat = pane
        self.panes["chat"] = pane
        self.stack.addWidget(pane)
        self.navigation.set_available("chat", True)
        self.actions_.chat.setEnabled(True)
        seek = getattr(pane, "seek_requested", None)
        if seek is not None:
            seek.connect(self.seek)
        get_model = getattr(pane, "get_model_requested", None)
        if get_model is not None:
            get_model.connect(self.open_model_setup)

    def attach_brief_pane(self, pane: BriefPane) -> None:
        """Add the brief pane: its citations go to the player (with their quotes, marked
        in the reader), the library's selection can be its scope, and the library's
        "Export to Obsidian…" opens its export dialog."""
        self.panes["brief"] = pane
        self.stack.addWidget(pane)
        self.navigation.set_available("brief", True)
        self.actions_.brief.setEnabled(True)
        pane.cite_requested.connect(self.seek)
        pane.get_model_requested.connect(self.open_model_setup)
        pane.settings_changed.connect(self._export_settings_changed)
        self.library.library_changed.connect(pane.library_changed)
        self.library.table.current_changed.connect(lambda _id: pane.selection_changed())
        self.library.export_requested.connect(self.export_from_library)
        self.library.notion_requested.connect(self.export_to_notion)

    def _export_scope(self, video_ids: list[str], collection_id: str) -> str:
        """What a library export is of, in words: a collection, or the videos selected."""
        if collection_id:
            found = self.library.sidebar.collection(collection_id)
            return f"the collection “{found.name if found is not None else collection_id}”"
        what = "1 video" if len(video_ids) == 1 else f"{len(video_ids)} videos"
        return f"the {what} selected"

    def export_from_library(self, video_ids: list[str], collection_id: str) -> None:
        """The library's "Export to Obsidian…": its selected videos, or a collection."""
        what = self._export_scope(video_ids, collection_id)
        if collection_id:
            self.brief_pane.open_export(what, collection=collection_id)
        elif video_ids:
            self.brief_pane.open_export(what, video_ids=tuple(video_ids))

    def export_to_notion(self, video_ids: list[str], collection_id: str) -> NotionDialog:
        """The library's "Export to Notion…": its selected videos, or a collection."""
        dialog = NotionDialog(
            self.api,
            self.runner,
            self.settings,
            self._export_scope(video_ids, collection_id),
            video_ids=tuple(video_ids),
            collection=collection_id or None,
            open_url=lambda url: self.open_url(url),
            parent=self,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.settings_changed.connect(self._notion_remembered)
        dialog.open()
        return dialog

    def _notion_remembered(self, settings: Settings) -> None:
        """Every copy of the settings learns the Notion page and token, so saving another
        setting later does not write the old ones back."""
        self.settings = settings
        self.brief_pane.settings = settings

    def _export_settings_changed(self, settings: Settings) -> None:
        self.settings = settings

    # -- the player --------------------------------------------------------------------------
    def seek(self, video_id: str, seconds: float, quote: str = "") -> None:
        """Every timestamp click ends here: load the video if needed, seek, play (or open
        its transcript at that second, `quote` marked, when it has nothing to play here).
        A pane's `Signal(str, float, str)` connected here passes the quote."""
        self.player.show()
        if quote:
            self.player.play_at(video_id, seconds, quote=quote)
        else:
            self.player.play_at(video_id, seconds)

    def _followed(self, text: str, new: int) -> None:
        """A scheduled check brought videos in: say so (the change feed already re-reads
        the library for the panes)."""
        if new:
            self.status.showMessage(text)

    def _player_message(self, text: str) -> None:
        if text:
            self.status.showMessage(text)

    def play_pause(self) -> None:
        if not focus_is_text_input():  # Space typed into a text field stays a space
            self.player.toggle_play()

    # -- status and errors -------------------------------------------------------------------
    def refresh_status(self) -> None:
        self.runner.start(
            lambda _p: self.api.status(), label="library status", on_finished=self._show_status
        )

    def _show_status(self, status: LibraryStatus) -> None:
        self.status.show_status(status)
        self.library_path = Path(status.path)
        self.setWindowTitle(f"v2c desktop — {status.path}")
        self._show_mcp()
        self._arrived("status")

    def _show_chat_model(self, label: str) -> None:
        self.status.show_chat_model(
            label, "Click to get or manage chat models; choose one in the chat pane (Ctrl+L)"
        )

    def _show_mcp(self) -> None:
        self.status.show_mcp(self.owner.status_text(), self.owner.tooltip())

    def _on_failed(self, job_id: str, _code: str, message: str, hint: str) -> None:
        self.status.show_error(message, hint)
        job = self.runner.job(job_id)
        if job is not None and job.interactive:
            show_error(self, job.label or "Something went wrong", message, hint)

    def open_settings(self) -> SettingsDialog:
        """The settings dialog (the one already open, if any)."""
        for open_dialog in self.findChildren(SettingsDialog, "settingsDialog"):
            if open_dialog.isVisible():
                return open_dialog
        library = self._library_file()
        if self.http_server is None and library is not None:
            self.http_server = HttpServer(library, parent=self)  # outlives the dialog
        dialog = SettingsDialog(
            self.settings,
            parent=self,
            library=library,
            owner=self.owner,
            api=self.api,
            runner=self.runner,
            downloads=self.downloads,
            on_models_changed=self._models_changed,
            http_server=self.http_server,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.saved.connect(self._settings_saved)
        dialog.models_changed.connect(self._models_changed)
        dialog.open()
        return dialog

    def _settings_saved(self, settings: Settings) -> None:
        self.settings = settings
        self.brief_pane.settings = settings
        self.player.set_skip_sponsors(settings.sponsorblock.skip_in_player)
        self.status.showMessage(
            "Settings saved. Model settings and sponsor skipping apply now; the library and "
            "import settings when v2c desktop next starts."
        )

    # -- drag and drop -----------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_sources(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        sources = dropped_sources(event.mimeData())
        if sources:
            event.acceptProposedAction()
            self.show_pane("library")
            self.library.start_import(sources)

    # -- the window's layout -----------------------------------------------------------------
    def restore_layout(self) -> bool:
        """Before the window first shows: the size, place, docks and splitters it had when
        it last closed (True), else a size that fits the screen; fitted to today's screens
        again once shown (when its frame is known)."""
        self._fit_when_shown = True
        return restore_layout(self, self.state_path)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._fit_when_shown:
            self._fit_when_shown = False
            fit_on_screen(self)

    def closeEvent(self, event: QCloseEvent) -> None:
        save_layout(self, self.state_path)
        self.closing.emit()
        super().closeEvent(event)

    # -- help --------------------------------------------------------------------------------
    def open_shortcuts(self) -> ShortcutsDialog:
        """Every key the window answers now, read from its actions and shortcuts."""
        dialog = ShortcutsDialog(shortcut_rows(self, self.panes | {"player": self.player}), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _library_file(self) -> Path | None:
        session = self.owner.session
        return self.library_path or (session.library if session is not None else None)

    def open_about(self) -> AboutDialog:
        dialog = AboutDialog(self._library_file(), self.open_url, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def show(models: Any) -> None:
            if _alive(dialog):
                dialog.show_models(models)

        def failed(error: V2CError) -> None:
            if _alive(dialog):
                dialog.show_models_failed(error.message)

        self.runner.start(
            lambda _p: self.api.list_models(),
            label="list models",
            on_finished=show,
            on_failed=failed,
        )
        dialog.open()
        return dialog

    def open_where(self) -> WhereDialog:
        dialog = WhereDialog(self._library_file(), self.open_url, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog


def _alive(widget: QWidget) -> bool:
    """Whether a dialog a job reports to is still open (it may be closed and deleted)."""
    import shiboken6

    return shiboken6.isValid(widget)
