"""Export to Notion: the page to put the videos under and the integration's token (both
remembered in the settings once an export works), then a page per video, each listed with
its link; "Open in Notion" opens the first.

The pages are made by the core (`CoreAPI.export_notion`); exporting again reuses the pages
that are still there. The token field shows dots, and a token already set (in the settings
or NOTION_TOKEN) is not shown at all: the field then says where it comes from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.notion import NotionReport
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.settings import Settings, save_settings

from ...bridge import JobRunner
from ...dialogs import error_text

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

HOW = (
    "Notion: make an integration (notion.so/profile/integrations → New integration), copy "
    "its secret here, then open the page to export under and add the integration to it "
    "(… → Connections)."
)


def report_text(report: NotionReport) -> str:
    counts = [
        (report.count("created"), "created"),
        (report.count("updated"), "made again for a changed transcript"),
        (report.count("unchanged"), "already there"),
        (report.count("failed"), "failed"),
    ]
    said = [f"{n} {words}" for n, words in counts if n]
    lines = [f"Pages: {', '.join(said) or 'none'}."]
    for page in report.pages:
        lines.append(f"{page.status}: {page.title}  {page.url or page.reason}")
    if report.count("updated"):
        lines.append("The earlier page of a changed video is still in Notion: delete it there.")
    return "\n".join(lines)


class NotionDialog(QDialog):
    """Signals:
    settings_changed(settings): the page and token were remembered.
    """

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
        open_url: Callable[[QUrl], object] | None = None,
        settings_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("notionDialog")
        self.setWindowTitle("Export to Notion")
        self._api, self._runner, self.settings = api, runner, settings
        self.video_ids, self.collection = video_ids, collection
        self._open_url = open_url
        self._settings_path = settings_path
        self.report: NotionReport | None = None
        self._job = ""
        notion = settings.notion
        self.page = QLineEdit(notion.parent_page)
        self.page.setObjectName("notionPage")
        self.page.setPlaceholderText("the Notion page's link (… → Copy link) or id")
        self.token = QLineEdit()
        self.token.setObjectName("notionToken")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        if notion.token:
            self.token.setPlaceholderText("set (type a new one to change it)")
        elif notion.resolved_token():
            self.token.setPlaceholderText(f"from {notion.token_env} in the environment")
        else:
            self.token.setPlaceholderText("the integration's secret (ntn_…)")
        self.summary = QPlainTextEdit()
        self.summary.setObjectName("notionSummary")
        self.summary.setReadOnly(True)
        self.summary.setPlaceholderText(f"Exports {what}: one Notion page per video.\n\n{HOW}")
        self.export = QPushButton("Export")
        self.export.setObjectName("notionStart")
        self.export.setDefault(True)
        self.open_notion = QPushButton("Open in Notion")
        self.close_button = QPushButton("Close")
        form = QFormLayout()
        form.addRow("Export:", QLabel(what))
        form.addRow("Under page:", self.page)
        form.addRow("Token:", self.token)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_notion)
        buttons.addStretch(1)
        buttons.addWidget(self.export)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary, 1)
        layout.addLayout(buttons)
        self.resize(620, 380)
        self.export.clicked.connect(self.start)
        self.open_notion.clicked.connect(self._open_first)
        self.close_button.clicked.connect(self.reject)
        self.page.textChanged.connect(self._update)
        self._update()

    def _update(self) -> None:
        self.export.setEnabled(bool(self.page.text().strip()) and not self._job)
        self.open_notion.setEnabled(self._first_url() != "")

    def start(self) -> str:
        if self._job or not self.page.text().strip():
            return ""
        typed = self.token.text().strip()
        token = typed or self.settings.notion.resolved_token()
        page = self.page.text().strip()
        self.summary.setPlainText("Making the pages…")
        self._job = self._runner.start(
            lambda progress: self._api.export_notion(
                list(self.video_ids),
                collection=self.collection,
                parent=page,
                token=token,
                progress=progress,
            ),
            label="Export to Notion",
            visible=True,
            on_finished=lambda report: self._done(report, page, typed),
            on_failed=self._failed,
            on_cancelled=self._cancelled,
        )
        self._update()
        return self._job

    def _done(self, report: NotionReport, page: str, typed: str) -> None:
        self._job = ""
        self.report = report
        self.summary.setPlainText(report_text(report))
        self.export.setText("Export again")
        self._update()
        self._remember(page, typed)

    def _failed(self, error: V2CError) -> None:
        self._job = ""
        self.summary.setPlainText(error_text(error.message, error.hint_for("app")))
        self._update()

    def _cancelled(self) -> None:
        self._job = ""
        self.summary.setPlainText("Stopped: the pages made before stay in Notion.")
        self._update()

    def _remember(self, page: str, typed: str) -> None:
        """The page (and a typed token) worked: keep them for next time."""
        notion = self.settings.notion
        if notion.parent_page == page and not typed:
            return
        remembered = replace(notion, parent_page=page, token=typed or notion.token)
        settings = replace(self.settings, notion=remembered)
        try:
            save_settings(settings, self._settings_path)
        except (OSError, V2CError) as exc:
            self.summary.appendPlainText(f"\nThe page could not be remembered: {exc}")
            return
        self.settings = settings
        self.token.clear()
        self.token.setPlaceholderText("set (type a new one to change it)")
        self.settings_changed.emit(settings)

    def _first_url(self) -> str:
        if self.report is None:
            return ""
        return next((p.url for p in self.report.pages if p.url), "")

    def _open_first(self) -> None:
        (self._open_url or QDesktopServices.openUrl)(QUrl(self._first_url()))

    def reject(self) -> None:
        if self._job:
            self._runner.cancel(self._job)
        super().reject()
