"""The brief pane: saved briefs on the left; on the right a new brief's form with its
estimate, the running build's progress, and the brief itself, whose citations seek the
player. A build is one job on the runner iterating `api.build_brief(...)` on the qasync
loop, so the window never waits; Cancel cancels that task and the core saves nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from v2c_desktop.core.briefs.events import Brief, BriefDone, BriefEvent, BriefRequest, BriefStep
from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.settings import Settings

from ...bridge import JobRunner
from ...dialogs import error_text
from ..chat.models import ChatModelSource, ModelChoices
from .export_dialog import ExportDialog
from .form import NewBriefForm
from .progress import RunProgress
from .result import BriefView
from .saved import SavedBriefs

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI


class BriefPane(QWidget):
    """Signals:
    seek_requested(video_id, seconds): a citation was clicked.
    cite_requested(video_id, seconds, quote): the same click, with its quote (emitted
        right after `seek_requested`: connect one of the two).
    build_finished(state): "done", "cancelled" or "error".
    get_model_requested(): the user asked to set up a chat model.
    settings_changed(settings): the export vault was remembered.
    """

    seek_requested = Signal(str, float)
    cite_requested = Signal(str, float, str)
    build_finished = Signal(str)
    get_model_requested = Signal()
    settings_changed = Signal(object)

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        models: ChatModelSource,
        settings: Settings | None = None,
        *,
        selected_videos: Callable[[], list[str]] | None = None,
        open_url: Callable[[QUrl], object] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("briefPane")
        self._api, self._runner, self._models = api, runner, models
        self.settings = settings or Settings()
        self.settings_path: Path | None = None  # where the vault is remembered (None: default)
        self.open_url = open_url
        self._job = ""
        self._loaded = False
        self.saved = SavedBriefs(api, runner)
        self.form = NewBriefForm(api, runner, selected_videos)
        self.progress = RunProgress()
        self.view = BriefView()
        self.status = QLabel("")
        self.status.setObjectName("briefStatus")
        self.status.setWordWrap(True)
        self._compose()
        self.saved.opened.connect(self.show_brief)
        self.saved.new_requested.connect(self.new_brief)
        self.saved.rerun_requested.connect(self.rerun)
        self.saved.deleted.connect(self._on_deleted)
        self.form.start_requested.connect(self.build)
        self.form.get_model_requested.connect(self.get_model_requested)
        self.progress.cancel_requested.connect(self.cancel)
        self.view.seek_requested.connect(self.seek_requested)
        self.view.cite_requested.connect(self.cite_requested)
        self.view.export_requested.connect(self.export_brief)
        self.view.message.connect(self.status.setText)

    def _compose(self) -> None:
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.form)
        column.addWidget(self.progress)
        column.addWidget(self.view, 1)
        column.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("briefSplit")
        split.addWidget(self.saved)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([250, 650])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    # -- reading the library -----------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._loaded:
            self.refresh()

    def refresh(self) -> None:
        """Re-read the saved briefs, the collections and the models."""
        self._loaded = True
        self.saved.refresh()
        self._runner.start(
            lambda _p: self._api.list_collections(),
            label="read brief scope",
            on_finished=self._set_collections,
        )
        self.refresh_models()

    def refresh_models(self) -> None:
        """List the chat models the brief may use (the same labels as the chat pane's)."""
        self._runner.start(
            lambda _p: self._models.list(),
            label="list brief models",
            on_finished=self._set_models,
        )

    def _set_collections(self, collections: list[Collection]) -> None:
        self.saved.collection_names = {c.id: c.name for c in collections}
        self.form.set_collections(collections)

    def _set_models(self, choices: ModelChoices) -> None:
        self.form.models.set_choices(choices)

    def library_changed(self) -> None:
        if self._loaded:
            self.refresh()

    def selection_changed(self) -> None:
        """The library's selection changed (it may be this brief's scope)."""
        self.form.changed()

    # -- building ----------------------------------------------------------------------------
    def busy(self) -> bool:
        return bool(self._job)

    def build(self, request: BriefRequest) -> str:
        """Build `request`; the job id ("" while another build runs)."""
        if self.busy():
            self.status.setText("A brief is being built: wait for it or cancel it.")
            return ""
        self.progress.start()
        self.form.build.setEnabled(False)
        self.status.setText("")

        async def work(_progress: Any) -> None:
            events = self._api.build_brief(request).__aiter__()
            async with contextlib.aclosing(events):  # type: ignore[type-var]
                async for event in events:
                    self._on_event(event)

        label = "Re-running the brief" if request.rerun else "Building a brief"
        self._job = self._runner.start(
            work,
            label=label,
            visible=True,
            on_finished=lambda _r: self._settle("done"),
            on_failed=self._failed,
            on_cancelled=lambda: self._settle("cancelled"),
        )
        return self._job

    def rerun(self, brief_id: str) -> str:
        return self.build(BriefRequest("", rerun=brief_id))

    def cancel(self) -> None:
        if self._job:
            self._runner.cancel(self._job)

    def _on_event(self, event: BriefEvent) -> None:
        if isinstance(event, BriefStep):
            self.progress.step(event)
        elif isinstance(event, BriefDone):
            self.show_brief(event.brief)
            self.saved.refresh(event.brief.id)

    def _failed(self, error: V2CError) -> None:
        self.progress.finish(f"Failed: {error_text(error.message, error.hint_for('app'))}")
        self._settle("error")

    def _settle(self, state: str) -> None:
        self._job = ""
        if state == "done":
            brief = self.view.brief
            what = "Done" if brief is None or brief.status == "complete" else "Done (partial)"
            self.progress.finish(f"{what} in {self.progress.seconds():.1f} s{self._reused(brief)}.")
        elif state == "cancelled":
            self.progress.finish("Cancelled: nothing was saved.")
        self.form.changed()
        self.build_finished.emit(state)

    def _reused(self, brief: Brief | None) -> str:
        """How much of a re-run came from the cache (what makes it fast), or ""."""
        if brief is None or not brief.reused_maps:
            return ""
        parts = self.progress.count.parts
        of = f" of {parts}" if parts else ""
        return f"; reused the reading of {brief.reused_maps}{of} parts, read only the rest"

    # -- the brief ---------------------------------------------------------------------------
    def show_brief(self, brief: Brief) -> None:
        self.view.show_brief(brief)
        self.saved.select(brief.id)

    def new_brief(self) -> None:
        self.view.show_brief(None)
        self.saved.select("")
        self.form.question.setFocus()

    def _on_deleted(self, brief_id: str) -> None:
        if self.view.brief is not None and self.view.brief.id == brief_id:
            self.view.show_brief(None)

    # -- export ------------------------------------------------------------------------------
    def export_brief(self, brief_id: str) -> ExportDialog:
        title = self.view.brief.title if self.view.brief is not None else brief_id
        return self.open_export(
            f"the brief “{title}” and the videos it cites", brief_ids=(brief_id,)
        )

    def open_export(
        self,
        what: str,
        *,
        video_ids: tuple[str, ...] = (),
        collection: str | None = None,
        brief_ids: tuple[str, ...] = (),
    ) -> ExportDialog:
        dialog = ExportDialog(
            self._api,
            self._runner,
            self.settings,
            what,
            video_ids=video_ids,
            collection=collection,
            brief_ids=brief_ids,
            open_url=self.open_url,
            settings_path=self.settings_path,
            parent=self,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.settings_changed.connect(self._remembered)
        dialog.open()
        return dialog

    def _remembered(self, settings: Settings) -> None:
        self.settings = settings
        self.settings_changed.emit(settings)
