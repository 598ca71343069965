"""The settings dialog: pages for the library, imports, models, servers and agents (MCP).

It edits the typed `Settings` and saves them with `save_settings`. With the library's
`CoreAPI` (the window's), the Models and Servers pages are the model manager, and the model
settings apply at once when saved (`CoreAPI.apply_model_settings`); the others wait for the
next start, and each says which beside it. Pages are in a list, each in a scroll area, so
the dialog fits a 1366 x 768 screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.paths import library_path
from v2c_desktop.core.settings import (
    ImportSettings,
    ModelSettings,
    Settings,
    SponsorBlockSettings,
    save_settings,
)

from ..bridge import JobRunner
from ..dialogs import show_error
from ..owner_state import OwnerState
from .http_box import HttpServerBox
from .job_button import JobButton
from .mcp import McpSection
from .model_downloads import ModelDownloads
from .model_manager import ModelsPage, ServersPage
from .servers import ServersTable, split_list

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

    from ..http_server import HttpServer

BROWSERS = ("", "firefox", "chrome", "chromium", "brave", "edge", "opera", "vivaldi", "safari")
POLICIES = ("local-only", "quality")
PAGES = (
    ("library", "Library"),
    ("imports", "Imports"),
    ("models", "Models"),
    ("servers", "Servers"),
    ("mcp", "Agents (MCP)"),
)
AT_ONCE = "applies at once"
AFTER_RESTART = "after a restart"
#: Room the dialog leaves on a 1366 x 768 screen for a taskbar, its title bar and frame.
SCREEN_MARGIN = QSize(80, 120)
DEFAULT_SIZE = QSize(960, 640)


def when_note(text: str) -> QLabel:
    """The small label beside a setting: when a change to it takes effect."""
    label = QLabel(text)
    label.setObjectName("liveNote" if text == AT_ONCE else "restartNote")
    label.setEnabled(False)  # drawn greyed: a remark, not a control
    label.setToolTip(
        "Used from the moment you press Save"
        if text == AT_ONCE
        else "Saved now; v2c desktop uses it from its next start"
    )
    return label


def beside(field: QWidget | QHBoxLayout, note: str) -> QHBoxLayout:
    row = QHBoxLayout()
    if isinstance(field, QWidget):
        row.addWidget(field, 1)
    else:
        row.addLayout(field, 1)
    row.addWidget(when_note(note))
    return row


def scrolled(content: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(content)
    return area


class SettingsDialog(QDialog):
    """Library, import, model, server and MCP settings.

    Signals:
        saved(settings): the settings were written to disk.
        models_changed(): the model manager changed the owner's models, or saved model
            settings were applied (re-list the chat models).
    """

    saved = Signal(object)
    models_changed = Signal()

    def __init__(
        self,
        settings: Settings,
        path: Path | None = None,
        parent: QWidget | None = None,
        *,
        library: Path | None = None,
        owner: OwnerState | None = None,
        api: CoreAPI | None = None,
        runner: JobRunner | None = None,
        downloads: ModelDownloads | None = None,
        on_models_changed: Callable[[], None] | None = None,
        http_server: HttpServer | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self._settings = settings
        self._path = path
        self._api, self._runner = api, runner
        self._on_models_changed = on_models_changed
        self._http_server = http_server
        live = api is not None and runner is not None
        self.live = live
        self.list = QListWidget()
        self.list.setObjectName("settingsPages")
        self.list.setMaximumWidth(170)
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}
        self.manager: ModelsPage | None = None
        self.server_page: ServersPage | None = None
        self.servers = ServersTable(
            settings.models.servers,
            runner=runner,
            test=api.test_server if api is not None else None,
        )
        self._own_downloads = live and downloads is None
        if live and downloads is None:
            assert api is not None and runner is not None
            downloads = ModelDownloads(api, runner, self)
        self.downloads = downloads
        builders: dict[str, Callable[[], QWidget]] = {
            "library": lambda: self._library_page(settings),
            "imports": lambda: self._imports_page(settings.imports, settings.sponsorblock),
            "models": lambda: self._models_page(settings.models),
            "servers": self._servers_page,
            "mcp": lambda: self._mcp_page(library or library_path(settings.last_library), owner),
        }
        for key, title in PAGES:
            page = builders[key]()
            self.pages[key] = page
            self.stack.addWidget(scrolled(page))
            self.list.addItem(title)
        self.list.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.list.setCurrentRow(0)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        body = QHBoxLayout()
        body.addWidget(self.list)
        body.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)
        self.resize(self.fitting_size())

    # -- pages -------------------------------------------------------------------------------
    def show_page(self, key: str) -> None:
        """Bring a page forward ("library", "imports", "models", "servers", "mcp")."""
        keys = [k for k, _ in PAGES]
        self.list.setCurrentRow(keys.index(key))

    def current_page(self) -> str:
        return PAGES[self.list.currentRow()][0]

    def fitting_size(self) -> QSize:
        """The default size, smaller on a small screen (the pages scroll)."""
        size = QSize(DEFAULT_SIZE)
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            room = screen.availableGeometry().size() - SCREEN_MARGIN
            size = size.boundedTo(room.expandedTo(QSize(480, 360)))
        return size

    def _page(self, *widgets: QWidget, note: str = "") -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        if note:
            intro = QLabel(note)
            intro.setWordWrap(True)
            column.addWidget(intro)
        for widget in widgets:
            column.addWidget(widget)
        column.addStretch(1)
        return page

    def _library_page(self, settings: Settings) -> QWidget:
        box = QGroupBox("Library")
        self.library = QLineEdit(settings.last_library or "")
        self.library.setObjectName("settingsLibrary")
        self.library.setPlaceholderText("the default location")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_library)
        row = QHBoxLayout()
        row.addWidget(self.library, 1)
        row.addWidget(browse)
        form = QFormLayout(box)
        form.addRow("Library file:", beside(row, AFTER_RESTART))
        return self._page(box, note="The library is one file holding your videos and chats.")

    def _imports_page(self, imports: ImportSettings, sponsorblock: SponsorBlockSettings) -> QWidget:
        box = QGroupBox("Imports")
        self.languages = QLineEdit(", ".join(imports.languages))
        self.languages.setObjectName("settingsLanguages")
        self.languages.setPlaceholderText("e.g. en, de (empty: the video's own language)")
        self.cookies = QComboBox()
        self.cookies.setObjectName("settingsCookies")
        self.cookies.setEditable(True)
        self.cookies.addItems(list(BROWSERS))
        self.cookies.setCurrentText(imports.cookies_from_browser or "")
        self.cookies.setToolTip("yt-dlp syntax: BROWSER[+KEYRING][:PROFILE][::CONTAINER]")
        self.proxy = QLineEdit(imports.proxy or "")
        self.proxy.setObjectName("settingsProxy")
        self.proxy.setPlaceholderText("e.g. socks5://127.0.0.1:1080")
        self.transcribe_web = QCheckBox("Web videos without captions")
        self.transcribe_web.setObjectName("settingsTranscribeWeb")
        self.transcribe_web.setChecked(imports.transcribe_without_captions)
        self.transcribe_web.setToolTip(
            "Transcribe web videos that have no captions: downloads only the video's audio "
            "(into a temporary folder, deleted afterwards) and turns its speech into a "
            "transcript on this computer. Agents' imports may then do this too."
        )
        form = QFormLayout(box)
        form.addRow("Caption languages:", beside(self.languages, AFTER_RESTART))
        form.addRow("Cookies from browser:", beside(self.cookies, AFTER_RESTART))
        form.addRow("Proxy:", beside(self.proxy, AFTER_RESTART))
        form.addRow("Speech-to-text:", beside(self.transcribe_web, AFTER_RESTART))
        return self._page(
            box,
            self._sponsorblock_box(sponsorblock),
            note="How videos are fetched from YouTube and other sites. With speech-to-text "
            "on, a web video without captions has only its audio downloaded and transcribed "
            "on this computer.",
        )

    def _sponsorblock_box(self, sponsorblock: SponsorBlockSettings) -> QGroupBox:
        box = QGroupBox("SponsorBlock")
        box.setObjectName("sponsorBlockSettings")
        self.skip_sponsors = QCheckBox("Skip sponsor segments during playback")
        self.skip_sponsors.setObjectName("settingsSkipSponsors")
        self.skip_sponsors.setChecked(sponsorblock.skip_in_player)
        self.skip_sponsors.setToolTip(
            "When a YouTube video is opened, ask SponsorBlock (a community list of the parts "
            "viewers skip) for its segments and keep them with the video; the player then "
            "jumps over its sponsor reads. SponsorBlock is sent only the first 4 characters "
            "of a hash of the video's id, not which video it is."
        )
        form = QFormLayout(box)
        form.addRow("Playback:", beside(self.skip_sponsors, AT_ONCE))
        return box

    def _models_page(self, models: ModelSettings) -> QWidget:
        when = AT_ONCE if self.live else AFTER_RESTART
        box = QGroupBox("How answers pick a model")
        box.setObjectName("answerSettings")
        self.policy = QComboBox()
        self.policy.setObjectName("settingsPolicy")
        self.policy.addItems(list(POLICIES))
        self.policy.setCurrentText(models.policy)
        self.policy.setToolTip(
            "local-only: only models on this computer or your network; quality: the best "
            "model you configured, hosted APIs included"
        )
        self.chat_model = QLineEdit(models.chat_model or "")
        self.chat_model.setObjectName("settingsChatModel")
        self.chat_model.setPlaceholderText("automatic (by the policy)")
        self.strict = QCheckBox("Use only this model (no fallback)")
        self.strict.setChecked(models.strict)
        form = QFormLayout(box)
        form.addRow("Policy:", beside(self.policy, when))
        form.addRow("Chat model:", beside(self.chat_model, when))
        form.addRow("", beside(self.strict, when))
        if self._api is None or self._runner is None or self.downloads is None:
            return self._page(box)
        self.manager = ModelsPage(self._api, self._runner, self.downloads)
        self.manager.models_changed.connect(self.models_changed)
        return self._page(
            self.manager,
            box,
            note="Downloads, tests and removals happen at once; the choices under “How "
            "answers pick a model” apply when you press Save.",
        )

    def _servers_page(self) -> QWidget:
        when = AT_ONCE if self.live else AFTER_RESTART
        box = QGroupBox("OpenAI-compatible servers (Ollama, LM Studio, llama-server, APIs)")
        box.setObjectName("serversBox")
        column = QVBoxLayout(box)
        title = QHBoxLayout()
        title.addWidget(QLabel("Saved with Save; Test tries a server as typed."), 1)
        title.addWidget(when_note(when))
        column.addLayout(title)
        column.addWidget(self.servers)
        if self._api is None or self._runner is None:
            return self._page(box)
        self.server_page = ServersPage(self._api, self._runner, self.servers)
        self.server_page.models_changed.connect(self.models_changed)
        return self._page(self.server_page, box)

    def _mcp_page(self, library: Path, owner: OwnerState | None) -> QWidget:
        self.mcp = McpSection(library, owner)
        port = self._settings.mcp_http.port
        self.http = HttpServerBox(self._http_server, port, self._path)
        return self._page(self.mcp, self.http)

    def _choose_library(self) -> None:
        dialog = QFileDialog(self, "Library file")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("v2c library (*.duckdb)")
        dialog.setDefaultSuffix("duckdb")
        dialog.setOption(QFileDialog.Option.DontConfirmOverwrite, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.library.setText)
        dialog.open()

    # -- saving ------------------------------------------------------------------------------
    def edited(self) -> Settings:
        """The settings as edited; fields the dialog does not show are kept."""
        old = self._settings
        return replace(
            old,
            last_library=self.library.text().strip() or None,
            imports=replace(
                old.imports,
                languages=split_list(self.languages.text()),
                cookies_from_browser=self.cookies.currentText().strip() or None,
                proxy=self.proxy.text().strip() or None,
                transcribe_without_captions=self.transcribe_web.isChecked(),
            ),
            sponsorblock=replace(old.sponsorblock, skip_in_player=self.skip_sponsors.isChecked()),
            models=replace(
                old.models,
                policy=self.policy.currentText(),
                chat_model=self.chat_model.text().strip() or None,
                strict=self.strict.isChecked(),
                servers=self.servers.servers(),
            ),
            mcp_http=replace(old.mcp_http, port=self.http.port.value()),
        )

    def accept(self) -> None:
        settings = self.edited()
        try:
            save_settings(settings, self._path)
        except (OSError, V2CError) as exc:
            hint = getattr(exc, "hint", "") or "check that the settings folder is writable"
            show_error(self, "Settings not saved", str(exc), hint)
            return
        self._settings = settings
        self._apply(settings.models)
        self.saved.emit(settings)
        super().accept()

    def _apply(self, models: ModelSettings) -> None:
        """Hand the saved model settings to the library's owner: they apply at once. The
        job outlives the dialog, so its callback reaches the window, not the dialog."""
        api, runner, done = self._api, self._runner, self._on_models_changed
        if api is None or runner is None:
            return
        runner.start(
            lambda _p: api.apply_model_settings(models),
            label="apply the model settings",
            interactive=True,
            on_finished=(lambda _r: done()) if done is not None else None,
        )

    def done(self, result: int) -> None:
        """Tests still running stop with the dialog; downloads go on if they are the
        window's (their parts are kept for a resume if they were the dialog's own)."""
        if self._own_downloads and self.downloads is not None:
            self.downloads.cancel_all()
        if self._runner is not None:
            for button in self.findChildren(JobButton):
                if button.job:
                    self._runner.cancel(button.job)
        super().done(result)
