"""`ExportService`: gathers what an `ExportRequest` names and writes it into the vault.

The writing itself (`obsidian.export_obsidian`) is a pure function of domain objects and a
folder; this service only reads the library for it and runs it off the event loop, so an
export of hundreds of notes never stalls the owner. A brief's cited videos are exported
with it, since its citations link to their notes' blocks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..briefs.events import Brief
from ..briefs.service import BriefService
from ..domain.videos import Collection
from ..errors import bad_request
from ..library import Library
from ..progress import Progress, ProgressCallback, ignore_progress
from .events import ExportReport, ExportRequest
from .obsidian import ExportOptions, export_obsidian


class ExportService:
    def __init__(self, library: Library, briefs: BriefService) -> None:
        self.library = library
        self.briefs = briefs

    async def export(
        self, request: ExportRequest, progress: ProgressCallback = ignore_progress
    ) -> ExportReport:
        if not request.vault.strip():
            raise bad_request(
                "no vault folder given", "choose the Obsidian vault folder to export into"
            )
        progress(Progress("gather", 0, None, "reading the library"))
        briefs: list[Brief] = [await self.briefs.get(b) for b in request.brief_ids]
        ids = [await self.library.resolve(v) for v in request.video_ids]
        collections = await self.library.list_collections()
        chosen: list[Collection] = []
        if request.collection:
            collection = await self.library.get_collection(request.collection)
            chosen = [collection]
            ids += collection.video_ids
        if not ids and not briefs and not request.collection:
            ids = [v.id for v in await self.library.list_videos()]  # the whole library
        for brief in briefs:
            ids += [c.video_id for p in brief.points for c in (*p.support, *p.oppose)]
        records = []
        for vid in dict.fromkeys(ids):
            records.append(await self.library.get_video(vid))
        wanted = set(ids)
        groups = chosen or [c for c in collections if wanted & set(c.video_ids)]
        options = ExportOptions(
            folder=request.folder or "v2c",
            dry_run=request.dry_run,
            channel_in_name=request.channel_in_name,
        )
        loop = asyncio.get_running_loop()

        def on_loop(event: Progress) -> None:  # the faces' callbacks expect the loop's thread
            loop.call_soon_threadsafe(progress, event)

        return await asyncio.to_thread(
            export_obsidian,
            Path(request.vault).expanduser(),
            records,
            briefs,
            groups,
            options,
            on_loop,
        )
