"""Export to Obsidian: ask for the vault once (remembered in the settings, changeable),
look first (a dry run) and show what would be updated or is in conflict, then write, then
offer "Open in Obsidian" (the `obsidian://` link) and "Show folder".

The notes are written by the core (`CoreAPI.export_obsidian`); a note whose app-owned part
the user edited is never overwritten: the new version goes beside it and the report says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.export.events import ExportReport, ExportRequest
from v2c_desktop.core.plain_text import counted
from v2c_desktop.core.settings import Settings, save_settings

from ...bridge import JobRunner
from ...dialogs import error_text

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI


def report_text(report: ExportReport) -> str:
    """What an export did (or, dry, would do), note by note where it matters."""
    created = len(report.created)
    verb = "would be" if report.dry_run else "was" if created == 1 else "were"
    lines = [
        f"{counted(created, 'note')} {verb} created, {len(report.updated)} updated "
        f"(your own text kept), {len(report.unchanged)} unchanged, "
        f"{len(report.conflicts)} in conflict."
    ]
    for note in report.updated:
        lines.append(f"updated: {note.path}")
    for note in report.conflicts:
        reason = f" ({note.reason})" if note.reason else ""
        lines.append(f"conflict: {note.path}{reason}")
        if note.beside:  # on a line of its own: the path a person looks for in the vault
            lines.append(
                f"    v2c's new version {'goes' if report.dry_run else 'went'} to {note.beside}"
            )
    for note in report.duplicated:
        others = ", ".join(note.duplicates)
        lines.append(
            f"duplicated: {note.path} is the one v2c keeps up to date; {others} "
            "(the same note copied) was left alone"
        )
    if report.conflicts:
        lines.append(
            "A conflict means you edited the part of a note v2c writes; it was left as you "
            "wrote it. To take v2c's version, empty the part between the v2c markers in your "
            "note and export again; to keep yours, delete the (v2c update) copy."
        )
    return "\n".join(lines)


class ExportDialog(QDialog):
    """Signals:
    exported(report): the notes were written (not a dry run).
    settings_changed(settings): the vault was remembered.
    """

    exported = Signal(object)
    settings_changed = Signal(object)

    def __init__(
        self,
        api: CoreAPI,
        runner: JobRunner,
        settings: Settings,
        what: str,
        *,
        video_ids: tuple[str, ...] = (),
        collection: str | None = None,
        brief_ids: tuple[str, ...] = (),
        open_url: Callable[[QUrl], object] | None = None,
        settings_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export to Obsidian")
        self._api, self._runner, self.settings = api, runner, settings
        self.video_ids, self.collection, self.brief_ids = video_ids, collection, brief_ids
        self._open_url = open_url
        self._settings_path = settings_path
        self.report: ExportReport | None = None
        self.dry: ExportReport | None = None
        self._written_to: tuple[str, str] | None = None  # (vault, folder) as typed for `report`
        self._job = ""
        self.vault = QLineEdit(settings.export.vault or "")
        self.vault.setObjectName("exportVault")
        self.vault.setPlaceholderText("the folder of your Obsidian vault")
        self.choose = QPushButton("Choose…")
        self.folder = QLineEdit(settings.export.folder or "v2c")
        self.folder.setObjectName("exportFolder")
        self.summary = QPlainTextEdit()
        self.summary.setObjectName("exportSummary")
        self.summary.setReadOnly(True)
        self.summary.setPlaceholderText(f"Exports {what}: one note per video and brief.")
        self.export = QPushButton("Export")
        self.export.setObjectName("exportStart")
        self.export.setDefault(True)
        self.open_obsidian = QPushButton("Open in Obsidian")
        self.show_folder = QPushButton("Show folder")
        self.close_button = QPushButton("Close")
        self._compose(what)
        self.choose.clicked.connect(self._ask_vault)
        self.export.clicked.connect(self.start)
        self.open_obsidian.clicked.connect(self._open_in_obsidian)
        self.show_folder.clicked.connect(self._show_folder)
        self.close_button.clicked.connect(self.reject)
        self.vault.textChanged.connect(self._reset)
        self.folder.textChanged.connect(self._reset)
        self._reset()

    def _compose(self, what: str) -> None:
        vault = QHBoxLayout()
        vault.addWidget(self.vault, 1)
        vault.addWidget(self.choose)
        form = QFormLayout()
        form.addRow("Export:", QLabel(what))
        form.addRow("Vault:", vault)
        form.addRow("Folder in the vault:", self.folder)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_obsidian)
        buttons.addWidget(self.show_folder)
        buttons.addStretch(1)
        buttons.addWidget(self.export)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary, 1)
        layout.addLayout(buttons)
        self.resize(560, 360)

    def _reset(self) -> None:
        """The vault or folder changed: look again before writing. Open in Obsidian and
        Show folder both open where the last export wrote, so both wait for an export to
        the vault and folder now typed (typing the old ones back enables them again)."""
        self.dry = None
        self.export.setText("Export")
        self.export.setEnabled(bool(self.vault.text().strip()) and not self._job)
        done = self.report is not None and self._written_to == self._typed()
        self.open_obsidian.setEnabled(done)
        self.show_folder.setEnabled(done)

    def _typed(self) -> tuple[str, str]:
        return self.vault.text().strip(), self.folder.text().strip() or "v2c"

    def _ask_vault(self) -> None:
        dialog = QFileDialog(self, "Your Obsidian vault", self.vault.text())
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.vault.setText)
        dialog.open()

    def request(self, dry_run: bool) -> ExportRequest:
        return ExportRequest(
            vault=self.vault.text().strip(),
            folder=self.folder.text().strip() or "v2c",
            collection=self.collection,
            video_ids=self.video_ids,
            brief_ids=self.brief_ids,
            dry_run=dry_run,
        )

    def start(self) -> str:
        """First a dry run; when notes would be updated or are in conflict, show that and
        write only on a second press; otherwise write at once."""
        if self._job or not self.vault.text().strip():
            return ""
        write = self.dry is not None
        request = self.request(dry_run=not write)
        typed = self._typed()
        self.summary.setPlainText("Writing the notes…" if write else "Looking at the vault…")
        self.export.setEnabled(False)
        self._job = self._runner.start(
            lambda progress: self._api.export_obsidian(request, progress),
            label="Export to Obsidian",
            visible=True,
            on_finished=lambda report: self._done(report, typed),
            on_failed=self._failed,
            on_cancelled=self._cancelled,
        )
        return self._job

    def _done(self, report: ExportReport, typed: tuple[str, str] | None = None) -> None:
        self._job = ""
        if report.dry_run:
            if report.updated or report.conflicts:
                self.dry = report
                self.summary.setPlainText(report_text(report))
                self.export.setText("Write the notes")
                self.export.setEnabled(True)
                return
            self.dry = report
            self.start()
            return
        self.report = report
        self._written_to = typed or self._typed()
        self.dry = None
        self.summary.setPlainText(report_text(report))
        self.export.setText("Export again")
        self.export.setEnabled(True)
        done = self._written_to == self._typed()  # not edited while it wrote
        self.open_obsidian.setEnabled(done)
        self.show_folder.setEnabled(done)
        self._remember()
        self.exported.emit(report)

    def _failed(self, error: V2CError) -> None:
        self._job = ""
        self.summary.setPlainText(error_text(error.message, error.hint_for("app")))
        self._reset()

    def _cancelled(self) -> None:
        self._job = ""
        self.summary.setPlainText("Stopped.")
        self._reset()

    def _remember(self) -> None:
        vault, folder = self.vault.text().strip(), self.folder.text().strip() or "v2c"
        if (self.settings.export.vault, self.settings.export.folder) == (vault, folder):
            return
        settings = replace(self.settings, export=replace(self.settings.export, vault=vault))
        settings = replace(settings, export=replace(settings.export, folder=folder))
        try:
            save_settings(settings, self._settings_path)
        except (OSError, V2CError) as exc:
            self.summary.appendPlainText(f"\nThe vault could not be remembered: {exc}")
            return
        self.settings = settings
        self.settings_changed.emit(settings)

    def reject(self) -> None:
        if self._job:
            self._runner.cancel(self._job)
        super().reject()

    # -- afterwards --------------------------------------------------------------------------
    def folder_path(self) -> Path:
        """The folder the last export wrote (the vault as the core resolved it), else the
        folder the fields name."""
        if self.report is not None:
            return Path(self.report.vault) / self.report.folder
        return Path(self.vault.text().strip()) / (self.folder.text().strip() or "v2c")

    def _open(self, url: QUrl) -> None:
        if self._open_url is not None:
            self._open_url(url)
        else:
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(url)

    def _open_in_obsidian(self) -> None:
        if self.report is not None and self.open_obsidian.isEnabled():
            self._open(QUrl(self.report.open_link()))

    def _show_folder(self) -> None:
        if self.report is not None and self.show_folder.isEnabled():
            self._open(QUrl.fromLocalFile(str(self.folder_path())))
