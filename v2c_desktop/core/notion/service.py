"""Export videos to Notion: a page each under the user's page, never the same page twice.

The page made for a video under a parent is remembered with the transcript it showed; an
export again finds it (`unchanged`) while it is still there and the transcript is the same.
A changed transcript gets a new page (`updated`): the earlier one, which the user may have
written in, is left in Notion for them to delete. A token Notion refuses or a parent page
the integration cannot see stops the whole export (it would fail for every video), with the
hint; a video Notion refuses is reported `failed` and the others go on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..domain.notion import NotionPage, NotionReport, PageStatus
from ..errors import V2CError, bad_request
from ..progress import Progress, ProgressCallback, ignore_progress
from ..settings import NotionSettings
from .blocks import page_title, video_blocks
from .client import UNAUTHORIZED, NotionClient, page_id

if TYPE_CHECKING:
    from ..library import Library

STAGE = "export"


def _stops_everything(error: V2CError) -> bool:
    """A refused token, a parent page out of sight, Notion down or refusing to keep up:
    the same for every video, so said once. Notion refusing one page's content is not."""
    return (
        error.code in ("not-found", "rate-limited", "upstream")
        or error.details.get("notion") == UNAUTHORIZED
    )


class NotionExporter:
    def __init__(self, library: Library, settings: NotionSettings) -> None:
        self._library = library
        self._settings = settings

    async def export(
        self,
        video_ids: list[str],
        *,
        parent: str | None = None,
        token: str | None = None,
        progress: ProgressCallback = ignore_progress,
    ) -> NotionReport:
        video_ids = list(dict.fromkeys(video_ids))  # a video in the collection and named too
        if not video_ids:
            raise bad_request("nothing to export", "give videos or a collection")
        secret = token or self._settings.resolved_token()
        if not secret:
            raise bad_request("no Notion token is set", "set {notion-token}")
        where = parent or self._settings.parent_page
        if not where:
            raise bad_request("no Notion page to export under", "give {notion-parent}")
        parent_id = page_id(where)
        report = NotionReport(parent_id)
        store = self._library.store
        async with NotionClient(self._settings.api_url, secret) as notion:
            for done, video_id in enumerate(video_ids):
                record = await self._library.run_store(store.get_video, video_id)
                title = page_title(record)
                progress(Progress(STAGE, done, len(video_ids), title))
                digest = await self._library.run_store(store.transcript_hash, video_id) or ""
                known = await self._library.run_store(store.notion_page, video_id, parent_id)
                try:
                    if known and known[2] == digest and await notion.page_exists(known[0]):
                        report.pages.append(NotionPage(video_id, title, "unchanged", known[1]))
                        continue
                    page = await notion.create_page(parent_id, title, video_blocks(record))
                except V2CError as error:
                    if _stops_everything(error):
                        raise
                    report.pages.append(NotionPage(video_id, title, "failed", reason=error.message))
                    continue
                await self._library.run_store(
                    store.remember_notion_page, video_id, parent_id, page.id, page.url, digest
                )
                # a changed transcript: a new page beside the old; a page gone: made again
                status: PageStatus = "updated" if known and known[2] != digest else "created"
                report.pages.append(NotionPage(video_id, title, status, page.url))
        progress(Progress(STAGE, len(video_ids), len(video_ids), "done"))
        return report
