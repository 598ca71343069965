"""A new brief: its scope, question, template (or your own JSON Schema), model, and an
estimate of what it will read and how long it may take, before it starts.

The estimate is a core call (`estimate_brief`) made a moment after the form last changed;
a request the build would refuse (no videos, an unsupported schema keyword) shows its
message and hint here, so nothing starts that cannot run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.briefs.events import BriefEstimate, BriefRequest
from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.core.errors import V2CError

from ...bridge import JobRunner
from ...dialogs import error_text
from ..chat.models import ModelPicker

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

COLLECTION, SELECTION, SEARCH = "collection", "selection", "search"
SCOPES = (
    (COLLECTION, "A collection"),
    (SELECTION, "The videos selected in the library"),
    (SEARCH, "The videos a search finds"),
)
SCHEMA = "schema"
TEMPLATES = (
    ("brief", "Brief"),
    ("summary", "Summary"),
    ("buyer-guide", "Buyer guide"),
    ("tutorial-steps", "Tutorial steps"),
    ("comparison", "Comparison"),
    (SCHEMA, "My JSON Schema…"),
)
ESTIMATE_DELAY_MS = 400


def estimate_text(estimate: BriefEstimate) -> str:
    videos = "1 video" if estimate.videos == 1 else f"{estimate.videos} videos"
    copies = f" (+{estimate.duplicates} copies read once)" if estimate.duplicates else ""
    how = {
        "single": "one pass",
        "map-reduce": f"map-reduce, {estimate.calls} model calls",
        "extractive": "extractive, no model",
    }[estimate.pass_kind]
    if estimate.pass_kind == "extractive":
        when = "a few seconds on this machine (searches only)"
    elif estimate.seconds is None:
        when = "time unknown"
    else:
        when = f"at least {_duration(estimate.seconds)} on this machine"
    head = f"{videos}{copies}, {estimate.hours:g} h, ~{estimate.tokens:,} tokens · {how} · {when}"
    if estimate.pass_kind == "extractive":
        return head
    return f"{head}\n{estimate.model_label}: {estimate.basis}"


def _unasked(request: BriefRequest) -> BriefRequest:
    """A request without its question: what an estimate checks (the scope, the template or
    schema, the model), so retyping the question never re-enables a refused request."""
    return replace(request, question="")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"


class NewBriefForm(QWidget):
    """Signals:
    start_requested(request): Build was pressed on a complete form.
    get_model_requested(): the model picker's "Get a better model…".
    """

    start_requested = Signal(object)
    get_model_requested = Signal()

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        selected_videos: Callable[[], list[str]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("newBrief")
        self._api, self._runner = api, runner
        self.selected_videos = selected_videos or (lambda: [])
        self.schema: dict[str, Any] | None = None
        self.schema_path = ""
        self.estimate: BriefEstimate | None = None
        self.estimates = 0  # estimates shown so far (tests wait on it)
        self.refused: BriefRequest | None = None  # the request the last estimate refused
        self._reads = 0
        self.scope_kind = QComboBox()
        self.scope_kind.setObjectName("briefScope")
        for key, text in SCOPES:
            self.scope_kind.addItem(text, key)
        self.collection = QComboBox()
        self.collection.setObjectName("briefCollection")
        self.selection = QLabel("")
        self.search = QLineEdit()
        self.search.setPlaceholderText("words the videos should be about")
        self.question = QLineEdit()
        self.question.setObjectName("briefQuestion")
        self.question.setPlaceholderText("What should the brief answer?")
        self.template = QComboBox()
        self.template.setObjectName("briefTemplate")
        for key, text in TEMPLATES:
            self.template.addItem(text, key)
        self.schema_label = QLabel("")
        self.schema_label.setWordWrap(True)
        self.models = ModelPicker()
        self.models.combo.setObjectName("briefModel")
        self.models.label.hide()  # the form's own "Model:" label lines it up with the rest
        self.estimate_label = QLabel("Choose what to brief.")
        self.estimate_label.setObjectName("briefEstimate")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.build = QPushButton("Build brief")
        self.build.setObjectName("buildBrief")
        self.build.setDefault(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ESTIMATE_DELAY_MS)
        self._timer.timeout.connect(self.refresh_estimate)
        self._compose()
        self.scope_kind.currentIndexChanged.connect(self._scope_changed)
        self.collection.currentIndexChanged.connect(self.changed)
        self.search.textChanged.connect(self.changed)
        self.question.textChanged.connect(self.changed)
        self.question.returnPressed.connect(self.start)
        self.template.activated.connect(self._template_chosen)
        self.models.changed.connect(lambda _label: self.changed())
        self.models.get_model_requested.connect(self.get_model_requested)
        self.build.clicked.connect(self.start)
        self._scope_changed()

    def _compose(self) -> None:
        scope = QHBoxLayout()
        scope.addWidget(self.scope_kind)
        scope.addWidget(self.collection, 1)
        scope.addWidget(self.selection, 1)
        scope.addWidget(self.search, 1)
        template = QHBoxLayout()
        template.addWidget(self.template)
        template.addWidget(self.schema_label, 1)
        form = QFormLayout()
        form.addRow("Scope:", scope)
        form.addRow("Question:", self.question)
        form.addRow("Template:", template)
        form.addRow("Model:", self.models)
        form.addRow("Estimate:", self.estimate_label)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.build)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addLayout(row)

    # -- what the library holds --------------------------------------------------------------
    def set_collections(self, collections: list[Collection]) -> None:
        current = self.collection.currentData()
        self.collection.blockSignals(True)
        self.collection.clear()
        for c in sorted(collections, key=lambda c: c.name.casefold()):
            self.collection.addItem(f"{c.name} ({len(c.video_ids)})", c.id)
        index = self.collection.findData(current)
        self.collection.setCurrentIndex(max(0, index))
        self.collection.blockSignals(False)
        self.changed()

    def choose_collection(self, collection_id: str) -> None:
        self.scope_kind.setCurrentIndex(self.scope_kind.findData(COLLECTION))
        self.collection.setCurrentIndex(max(0, self.collection.findData(collection_id)))

    def _scope_changed(self) -> None:
        kind = self.scope_kind.currentData()
        self.collection.setVisible(kind == COLLECTION)
        self.selection.setVisible(kind == SELECTION)
        self.search.setVisible(kind == SEARCH)
        self.changed()

    # -- the template or your schema ---------------------------------------------------------
    def _template_chosen(self, _index: int) -> None:
        if self.template.currentData() == SCHEMA:
            dialog = QFileDialog(self, "Your JSON Schema", "", "JSON Schema (*.json)")
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.fileSelected.connect(self.load_schema)
            dialog.rejected.connect(self._schema_cancelled)
            dialog.open()
        else:
            self.schema, self.schema_path = None, ""
            self.schema_label.setText("")
            self.changed()

    def _schema_cancelled(self) -> None:
        if self.schema is None:
            self.template.setCurrentIndex(0)
            self.changed()

    def load_schema(self, path: str) -> bool:
        """Use the schema in `path`; a file that is not a JSON object says so here."""
        self.template.setCurrentIndex(self.template.findData(SCHEMA))
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("the file holds no JSON object")
        except (OSError, ValueError) as exc:
            self.schema, self.schema_path = None, ""
            self.schema_label.setText(f"Cannot use {Path(path).name}: {exc}")
            self.changed()
            return False
        self.schema, self.schema_path = data, path
        self.schema_label.setText(Path(path).name)
        self.changed()
        return True

    # -- the request -------------------------------------------------------------------------
    def request(self) -> BriefRequest | None:
        """The brief the form describes, or None while it is incomplete."""
        kind = self.scope_kind.currentData()
        video_ids: tuple[str, ...] = ()
        collection = search = None
        if kind == COLLECTION:
            collection = self.collection.currentData()
            if not collection:
                return None
        elif kind == SELECTION:
            video_ids = tuple(self.selected_videos())
            if not video_ids:
                return None
        else:
            search = self.search.text().strip() or None
            if search is None:
                return None
        template = str(self.template.currentData())
        if template == SCHEMA and self.schema is None:
            return None
        model, extractive = self.models.request()
        return BriefRequest(
            self.question.text().strip(),
            video_ids=video_ids,
            collection=collection,
            search=search,
            template="brief" if template == SCHEMA else template,
            schema=self.schema if template == SCHEMA else None,
            model=model,
            extractive=extractive,
        )

    def changed(self) -> None:
        """Something changed: estimate again in a moment."""
        if self.scope_kind.currentData() == SELECTION:
            count = len(self.selected_videos())
            self.selection.setText(
                f"{count} selected" if count else "none selected: select videos in the library"
            )
        request = self.request()
        refused = request is not None and _unasked(request) == self.refused
        self.build.setEnabled(request is not None and bool(request.question) and not refused)
        self._timer.start()

    def refresh_estimate(self) -> None:
        request = self.request()
        self._reads += 1
        read = self._reads
        if request is None:
            self.estimate = None
            self.estimate_label.setText("Choose what to brief.")
            return
        self._runner.start(
            lambda _p: self._api.estimate_brief(request),
            label="estimate brief",
            on_finished=lambda e: self._estimated(read, e),
            on_failed=lambda error: self._estimate_failed(read, error),
        )

    def _estimated(self, read: int, estimate: BriefEstimate) -> None:
        if read != self._reads:
            return
        self.estimate = estimate
        self.refused = None
        self.estimate_label.setText(estimate_text(estimate))
        self.estimate_label.setToolTip("\n".join([estimate.basis, *estimate.notes]))
        self.estimates += 1

    def _estimate_failed(self, read: int, error: V2CError) -> None:
        if read != self._reads:
            return
        self.estimate = None
        self.estimate_label.setText(error_text(error.message, error.hint_for("app")))
        self.estimate_label.setToolTip("")
        self.estimates += 1
        if error.code == "bad-request":  # a build would refuse it too: Build waits for a change
            request = self.request()
            self.refused = _unasked(request) if request is not None else None
            self.build.setEnabled(False)

    def start(self) -> None:
        request = self.request()
        if request is not None and request.question and self.build.isEnabled():
            self.start_requested.emit(request)
