"""The saved briefs: title, date, scope, template and status; open, rename, delete, re-run.

Every action is a core call through the job runner; the list re-reads itself afterwards
(and when the change feed says a brief changed, say one an agent built over MCP).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.briefs.events import BriefSummary

from ...bridge import JobRunner
from ...dialogs import ask_text, confirm

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def scope_text(scope: dict[str, Any], collections: dict[str, str] | None = None) -> str:
    """A saved brief's scope in a few words."""
    parts = []
    if scope.get("collection"):
        name = (collections or {}).get(str(scope["collection"]), str(scope["collection"]))
        parts.append(f"collection {name}")
    ids = scope.get("video_ids") or []
    if ids:
        parts.append("1 video" if len(ids) == 1 else f"{len(ids)} videos")
    if scope.get("search"):
        parts.append(f"search “{scope['search']}”")
    return ", ".join(parts) or "—"


def summary_text(brief: BriefSummary, collections: dict[str, str] | None = None) -> str:
    date = brief.created_at.replace("T", " ")[:16]
    return (
        f"{brief.title}\n{date} · {scope_text(brief.scope, collections)} · "
        f"{brief.template} · {brief.status}"
    )


class SavedBriefs(QWidget):
    """Signals:
    opened(brief): a saved brief was read (a `Brief`).
    new_requested(): start a new brief.
    rerun_requested(brief_id)
    deleted(brief_id)
    listed(): the list was (re-)read.
    """

    opened = Signal(object)
    new_requested = Signal()
    rerun_requested = Signal(str)
    deleted = Signal(str)
    listed = Signal()

    def __init__(self, api: CoreAPI, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._api, self._runner = api, runner
        self.briefs: dict[str, BriefSummary] = {}
        self.collection_names: dict[str, str] = {}
        self._reads = 0
        self.list = QListWidget()
        self.list.setObjectName("savedBriefs")
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self._on_current)
        self.new = QPushButton("New brief")
        self.rename = QPushButton("Rename…")
        self.delete = QPushButton("Delete…")
        self.rerun = QPushButton("Re-run")
        self.rerun.setToolTip("Build it again over its scope now (unchanged videos are reused)")
        self.new.clicked.connect(self.new_requested)
        self.rename.clicked.connect(self._ask_rename)
        self.delete.clicked.connect(self._ask_delete)
        self.rerun.clicked.connect(self._rerun)
        buttons = QGridLayout()
        for i, button in enumerate((self.new, self.rerun, self.rename, self.delete)):
            buttons.addWidget(button, i // 2, i % 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Saved briefs"))
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self._enable()

    def current_id(self) -> str:
        item = self.list.currentItem()
        return str(item.data(ID_ROLE)) if item is not None else ""

    def _enable(self) -> None:
        chosen = bool(self.current_id())
        for button in (self.rename, self.delete, self.rerun):
            button.setEnabled(chosen)

    def _on_current(self, item: QListWidgetItem | None, _previous: object) -> None:
        self._enable()
        if item is not None:
            self.open(str(item.data(ID_ROLE)))

    # -- reading -----------------------------------------------------------------------------
    def refresh(self, select: str | None = None) -> None:
        """Read the list again (only the latest read is shown); highlight `select`, else
        whatever is highlighted when it arrives."""
        self._reads += 1
        read = self._reads
        self._runner.start(
            lambda _p: self._api.list_briefs(),
            label="list briefs",
            on_finished=lambda briefs: self._arrived(read, briefs, select),
        )

    def _arrived(self, read: int, briefs: list[BriefSummary], select: str | None) -> None:
        if read != self._reads:
            return
        keep = self.current_id() if select is None else select
        self.briefs = {b.id: b for b in briefs}
        self.list.blockSignals(True)
        self.list.clear()
        for brief in briefs:
            item = QListWidgetItem(summary_text(brief, self.collection_names))
            item.setData(ID_ROLE, brief.id)
            item.setToolTip(brief.question)
            self.list.addItem(item)
            if brief.id == keep:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self._enable()
        self.listed.emit()

    def select(self, brief_id: str) -> None:
        """Highlight a brief without opening it again."""
        self.list.blockSignals(True)
        self.list.setCurrentRow(-1)
        for row in range(self.list.count()):
            if self.list.item(row).data(ID_ROLE) == brief_id:
                self.list.setCurrentRow(row)
        self.list.blockSignals(False)
        self._enable()

    def ids(self) -> list[str]:
        return [str(self.list.item(r).data(ID_ROLE)) for r in range(self.list.count())]

    def open(self, brief_id: str) -> str:
        return self._runner.start(
            lambda _p: self._api.get_brief(brief_id),
            label="open brief",
            interactive=True,
            on_finished=self.opened.emit,
        )

    # -- changing ----------------------------------------------------------------------------
    def rename_brief(self, brief_id: str, title: str) -> str:
        return self._runner.start(
            lambda _p: self._api.rename_brief(brief_id, title),
            label="Rename brief",
            interactive=True,
            on_finished=lambda _none: self.refresh(brief_id),
        )

    def delete_brief(self, brief_id: str) -> str:
        def done(_none: None) -> None:
            self.deleted.emit(brief_id)
            self.refresh("")

        return self._runner.start(
            lambda _p: self._api.delete_brief(brief_id),
            label="Delete brief",
            interactive=True,
            on_finished=done,
        )

    def _ask_rename(self) -> None:
        brief_id = self.current_id()
        if brief_id:
            title = self.briefs[brief_id].title if brief_id in self.briefs else ""
            ask_text(
                self, "Rename brief", "Title:", lambda t: self.rename_brief(brief_id, t), title
            )

    def _ask_delete(self) -> None:
        brief_id = self.current_id()
        if brief_id:
            title = self.briefs[brief_id].title if brief_id in self.briefs else brief_id
            confirm(
                self,
                "Delete brief",
                f"Delete the brief “{title}”?",
                lambda: self.delete_brief(brief_id),
            )

    def _rerun(self) -> None:
        if self.current_id():
            self.rerun_requested.emit(self.current_id())
