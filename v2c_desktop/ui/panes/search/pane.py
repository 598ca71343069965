"""The search pane: results appear as you type, and a click plays that moment.

Typing restarts a short debounce timer; when it fires, the search runs as a task through
the job runner. A newer search cancels the older one, and results that arrive for any
search but the latest are dropped, so the cards always match the text in the box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QScrollArea, QVBoxLayout, QWidget

from v2c_desktop.core.domain.videos import Collection, VideoSummary
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.search.request import SearchRequest, SearchResult

from ...bridge import JobRunner
from ...dialogs import error_text
from .filters import SearchFilters
from .result_card import ResultCard

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

DEBOUNCE_MS = 300
LIMIT = 20
SYNTAX_HINT = 'Words match any form (remember → remembering); "exact phrase"; -word excludes.'


class SearchPane(QWidget):
    """Query box, filters and result cards.

    Signals:
        seek_requested(video_id, seconds): a result card was clicked.
        results_shown(query, count): the cards now show the results of `query`.
    """

    seek_requested = Signal(str, float)
    results_shown = Signal(str, int)

    def __init__(self, api: CoreAPI, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchPane")
        self._api = api
        self._runner = runner
        self._job = ""  # the latest search; any other result is stale
        self.shown_query = ""
        self.query = QLineEdit()
        self.query.setObjectName("searchQuery")
        self.query.setPlaceholderText("Search every transcript")
        self.query.setClearButtonEnabled(True)
        self.hint = QLabel(SYNTAX_HINT)
        self.hint.setEnabled(False)
        self.filters = SearchFilters()
        self.status = QLabel()
        self.status.setObjectName("searchStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.cards: list[ResultCard] = []
        self._cards_layout = QVBoxLayout()
        self._cards_layout.addStretch(1)
        holder = QWidget()
        holder.setLayout(self._cards_layout)
        scroll = QScrollArea()
        scroll.setObjectName("searchResults")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(holder)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.hint)
        layout.addWidget(self.filters)
        layout.addWidget(self.status)
        layout.addWidget(scroll, 1)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.search_now)
        self.query.textChanged.connect(self.timer.start)
        self.query.returnPressed.connect(self.search_now)
        self.filters.changed.connect(self.timer.start)

    def focus_query(self) -> None:
        self.query.setFocus()
        self.query.selectAll()

    def set_library(self, videos: list[VideoSummary], collections: list[Collection]) -> None:
        """Offer the library's channels and collections as filters."""
        self.filters.set_channels([v.channel for v in videos])
        self.filters.set_collections(collections)

    def refresh_filters(self) -> None:
        async def read() -> tuple[list[VideoSummary], list[Collection]]:
            return await self._api.list_videos(), await self._api.list_collections()

        self._runner.start(
            lambda _p: read(),
            label="read search filters",
            on_finished=lambda r: self.set_library(*r),
        )

    # -- searching ---------------------------------------------------------------------------
    def request(self) -> SearchRequest:
        kwargs: dict[str, Any] = self.filters.request_kwargs()
        return SearchRequest(query=self.query.text().strip(), limit=LIMIT, **kwargs)

    def search_now(self) -> None:
        """Search for what the box holds now, cancelling any search still running."""
        self.timer.stop()
        if self._job:
            self._runner.cancel(self._job)
            self._job = ""
        request = self.request()
        if not request.query:
            self._show([], "", "")
            return
        self.status.setText("Searching…")
        job: list[str] = []

        def done(result: SearchResult) -> None:
            if job and job[0] == self._job:
                self._job = ""
                self._show(result.hits, request.query, _summary(result))

        def failed(error: V2CError) -> None:
            if job and job[0] == self._job:
                self._job = ""
                self.status.setText(error_text(error.message, error.hint_for("app")))

        job.append(
            self._runner.start(
                lambda _p: self._api.search(request),
                label="search",
                on_finished=done,
                on_failed=failed,
            )
        )
        self._job = job[0]

    def _show(self, hits: list[Any], query: str, summary: str) -> None:
        for card in self.cards:
            card.deleteLater()
        self.cards = []
        for hit in hits:
            card = ResultCard(hit)
            card.seek_requested.connect(self.seek_requested)
            self._cards_layout.insertWidget(self._cards_layout.count() - 1, card)
            self.cards.append(card)
        self.shown_query = query
        self.status.setText(summary)
        self.results_shown.emit(query, len(hits))


def _summary(result: SearchResult) -> str:
    count = len(result.hits)
    text = f"{count} result{'s' if count != 1 else ''}" if count else "No results"
    meta = result.meta
    vector = meta.get("vector") or {}
    if meta.get("mode") != "keyword" and vector.get("status") not in (None, "ok", "off"):
        reason = vector.get("reason") or vector.get("status")
        text += f" · meaning search: {reason}"
    return text
