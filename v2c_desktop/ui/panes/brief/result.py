"""A finished brief: the rich text (`html.py`) and what can be done with it: copy or save as
Markdown, save as JSON, export to Obsidian. A citation link seeks the player."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.briefs.events import Brief
from v2c_desktop.core.briefs.render import as_json, markdown

from ...links import parse_seek_href
from .html import TOGGLE_UNVERIFIED, brief_html


def file_name(title: str, suffix: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in title).strip()
    return f"{safe[:60] or 'brief'}{suffix}"


class BriefView(QWidget):
    """Signals:
    seek_requested(video_id, seconds): a citation link was clicked.
    cite_requested(video_id, seconds, quote): the same click, with its quote.
    export_requested(brief_id): "Export to Obsidian…".
    message(text): something to say in the pane's status line.
    """

    seek_requested = Signal(str, float)
    cite_requested = Signal(str, float, str)
    export_requested = Signal(str)
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("briefView")
        self.brief: Brief | None = None
        self.show_unverified = False
        self._quotes: dict[tuple[str, float], str] = {}
        self.text = QTextBrowser()
        self.text.setObjectName("briefText")
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(self._clicked)
        self.copy = QPushButton("Copy as Markdown")
        self.save_md = QPushButton("Save as Markdown…")
        self.save_json = QPushButton("Save as JSON…")
        self.export = QPushButton("Export to Obsidian…")
        self.export.setObjectName("exportBrief")
        self.copy.clicked.connect(self.copy_markdown)
        self.save_md.clicked.connect(lambda: self._ask_save(".md"))
        self.save_json.clicked.connect(lambda: self._ask_save(".json"))
        self.export.clicked.connect(
            lambda: self.brief is not None and self.export_requested.emit(self.brief.id)
        )
        row = QHBoxLayout()
        for button in (self.copy, self.save_md, self.save_json):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.export)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        self.show_brief(None)

    def show_brief(self, brief: Brief | None) -> None:
        if brief is None or self.brief is None or brief.id != self.brief.id:
            self.show_unverified = False
        self.brief = brief
        for button in (self.copy, self.save_md, self.save_json, self.export):
            button.setEnabled(brief is not None)
        self._quotes = {}
        if brief is None:
            self.text.setHtml("")
            return
        for point in brief.points:
            for c in [*point.support, *point.oppose]:
                self._quotes.setdefault((c.video_id, round(c.start, 3)), c.quote)
        for citations in brief.data_citations.values():
            for c in citations:
                self._quotes.setdefault((c.video_id, round(c.start, 3)), c.quote)
        bar = self.text.verticalScrollBar()
        keep = bar.value()
        self.text.setHtml(brief_html(brief, show_unverified=self.show_unverified))
        bar.setValue(keep)

    def _clicked(self, url: QUrl) -> None:
        href = url.toString()
        if href == TOGGLE_UNVERIFIED:
            self.show_unverified = not self.show_unverified
            self.show_brief(self.brief)
            return
        target = parse_seek_href(href)
        if target is not None:
            video_id, seconds = target
            self.seek_requested.emit(video_id, seconds)
            self.cite_requested.emit(
                video_id, seconds, self._quotes.get((video_id, round(seconds, 3)), "")
            )

    # -- copies and files --------------------------------------------------------------------
    def markdown(self) -> str:
        return markdown(self.brief) if self.brief is not None else ""

    def copy_markdown(self) -> None:
        if self.brief is not None:
            QGuiApplication.clipboard().setText(self.markdown())
            self.message.emit("Copied the brief as Markdown.")

    def save(self, path: Path) -> Path:
        """Write the brief as Markdown (`.md`) or JSON (anything else)."""
        if self.brief is None:
            raise ValueError("no brief to save")
        if path.suffix == ".md":
            text = self.markdown()
        else:
            text = json.dumps(as_json(self.brief), ensure_ascii=False, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
        self.message.emit(f"Saved {path}.")
        return path

    def _ask_save(self, suffix: str) -> None:
        if self.brief is None:
            return
        kind = "Markdown (*.md)" if suffix == ".md" else "JSON (*.json)"
        dialog = QFileDialog(self, "Save the brief", file_name(self.brief.title, suffix), kind)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(suffix[1:])
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self._save_or_say(Path(path)))
        dialog.open()

    def _save_or_say(self, path: Path) -> None:
        try:
            self.save(path)
        except OSError as exc:
            self.message.emit(f"Could not save {path}: {exc}")
