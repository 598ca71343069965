"""The search pane: results appear as you type, and a click plays that moment.

Typing restarts a short debounce timer; when it fires, the search runs as a task through
the job runner. A newer search cancels the older one, and results that arrive for any
search but the latest are dropped, so the cards always match the text in the box.

The results never outlive the query they answer: an empty query, an open quote (a phrase
still being typed) or a query the core refuses clears them at once. Searches ask the core
for its relevance cut-off, so a short page says "no more good matches" instead of being
padded with unrelated passages; the passages are grouped per video, each video named once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QScrollArea, QVBoxLayout, QWidget

from v2c_desktop.core.domain.videos import Collection, VideoSummary
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.search.request import SearchHit, SearchRequest, SearchResult

from ...bridge import JobRunner
from ...dialogs import error_text
from .filters import SearchFilters
from .result_card import ResultCard, VideoGroup, group_by_video

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

DEBOUNCE_MS = 300
LIMIT = 20
SYNTAX_HINT = 'Words match any form (remember → remembering); "exact phrase"; -word excludes.'
OPEN_QUOTE = "Close the quote to search for the phrase (or press Enter to search as typed)."
_QUOTES = frozenset('"“”„')


def open_quote(text: str) -> bool:
    """Whether a quoted phrase is still open (an odd number of quote marks)."""
    return sum(1 for c in text if c in _QUOTES) % 2 == 1


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
        self.hint.setWordWrap(True)
        self.filters = SearchFilters()
        self.status = QLabel()
        self.status.setObjectName("searchStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.undated = QLabel()
        self.undated.setObjectName("searchUndated")
        self.undated.setTextFormat(Qt.TextFormat.RichText)
        self.undated.setWordWrap(True)
        self.undated.linkActivated.connect(self._include_undated)
        self.undated.hide()
        self.cards: list[ResultCard] = []
        self.groups: list[VideoGroup] = []
        self._cards_layout = QVBoxLayout()
        self._cards_layout.addStretch(1)
        holder = QWidget()
        holder.setLayout(self._cards_layout)
        scroll = QScrollArea()
        scroll.setObjectName("searchResults")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # wrap
        scroll.setWidget(holder)
        self.results = scroll
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.hint)
        layout.addWidget(self.filters)
        layout.addWidget(self.status)
        layout.addWidget(self.undated)
        layout.addWidget(scroll, 1)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.search_now)
        self.query.textChanged.connect(self._on_text)
        self.query.returnPressed.connect(self._search_as_typed)
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
        return SearchRequest(query=self.query.text().strip(), limit=LIMIT, cutoff=True, **kwargs)

    def _on_text(self, text: str) -> None:
        """Results that no longer answer the box go at once; a search waits for a pause."""
        if not text.strip() or open_quote(text):
            self.search_now()
        else:
            self.timer.start()

    def _search_as_typed(self) -> None:
        self.search_now(as_typed=True)

    def search_now(self, *, as_typed: bool = False) -> None:
        """Search for what the box holds now, cancelling any search still running.

        An empty query or an open quote shows nothing (the phrase is still being typed);
        `as_typed` (Enter) searches an open quote as running to the end, as the core reads it.
        """
        self.timer.stop()
        if self._job:
            self._runner.cancel(self._job)
            self._job = ""
        request = self.request()
        if not request.query:
            self._show([], "", "")
            return
        if open_quote(request.query) and not as_typed:
            self._show([], "", OPEN_QUOTE)
            return
        self.status.setText("Searching…")
        job: list[str] = []

        def done(result: SearchResult) -> None:
            if job and job[0] == self._job:
                self._job = ""
                self._show(result.hits, request.query, _summary(result, request.limit))
                self._show_undated(int(result.meta.get("undated_left_out") or 0))

        def failed(error: V2CError) -> None:
            if job and job[0] == self._job:
                self._job = ""
                self._show([], "", error_text(error.message, error.hint_for("app")))

        job.append(
            self._runner.start(
                lambda _p: self._api.search(request),
                label="search",
                on_finished=done,
                on_failed=failed,
            )
        )
        self._job = job[0]

    def _show(self, hits: list[SearchHit], query: str, summary: str) -> None:
        for group in self.groups:
            group.deleteLater()
        self.groups, self.cards = [], []
        self.undated.hide()
        for passages in group_by_video(hits):
            group = VideoGroup(passages)
            group.seek_requested.connect(self.seek_requested)
            self._cards_layout.insertWidget(self._cards_layout.count() - 1, group)
            self.groups.append(group)
            self.cards.extend(group.cards)
        self.shown_query = query
        self.status.setText(summary)
        self.results_shown.emit(query, len(hits))

    def _show_undated(self, count: int) -> None:
        if count <= 0:
            return
        videos = "video" if count == 1 else "videos"
        self.undated.setText(
            f"The date filter left out {count} {videos} with no publish date. "
            '<a href="include">Include them</a>'
        )
        self.undated.show()

    def _include_undated(self, _href: str) -> None:
        self.filters.include_undated.setChecked(True)  # searches again (filters changed)


def _summary(result: SearchResult, limit: int) -> str:
    hits = result.hits
    count = len(hits)
    if not count:
        text = "No good matches"
    else:
        videos = len({h.video_id for h in hits})
        text = (
            f"{count} passage{'s' if count != 1 else ''} in "
            f"{videos} video{'s' if videos != 1 else ''}"
        )
        if count < limit and "cutoff" in result.meta:
            text += " · no more good matches"
    meta = result.meta
    vector = meta.get("vector") or {}
    if meta.get("mode") != "keyword" and vector.get("status") not in (None, "ok", "off"):
        reason = vector.get("reason") or vector.get("status")
        text += f" · meaning search: {reason}"
    return text
