"""`ExportService`: gathers what an `ExportRequest` names and writes it into the vault.

The writing itself (`obsidian.export_obsidian`) is a pure function of domain objects and a
folder; this service only reads the library for it and runs it off the event loop, so an
export of hundreds of notes never stalls the owner. A brief's cited videos (in its bottom
line, its points and its template results: `brief_note.cited_videos`) are exported with it,
since its citations link to their notes' blocks; a cited video no longer in the library is
left out (its citations keep their timestamp URLs). Every collection goes to the index,
which groups whatever notes the export folder holds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..briefs.events import Brief
from ..briefs.service import BriefService
from ..domain.videos import Collection
from ..errors import V2CError, bad_request
from ..library import Library
from ..progress import Progress, ProgressCallback, ignore_progress
from .brief_note import cited_videos
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
        collections: list[Collection] = await self.library.list_collections()
        if request.collection:
            ids += (await self.library.get_collection(request.collection)).video_ids
        if not ids and not briefs and not request.collection:
            ids = [v.id for v in await self.library.list_videos()]  # the whole library
        records = [await self.library.get_video(vid) for vid in dict.fromkeys(ids)]
        named = set(ids)
        for vid in dict.fromkeys(v for brief in briefs for v in cited_videos(brief)):
            if vid in named:
                continue
            try:
                records.append(await self.library.get_video(vid))
            except V2CError as exc:
                if exc.code != "not-found":
                    raise
        options = ExportOptions(
            folder=request.folder or "v2c",
            dry_run=request.dry_run,
            channel_in_name=request.channel_in_name,
            playlist=request.playlist,
        )
        loop = asyncio.get_running_loop()

        def on_loop(event: Progress) -> None:  # the faces' callbacks expect the loop's thread
            loop.call_soon_threadsafe(progress, event)

        return await asyncio.to_thread(
            export_obsidian,
            Path(request.vault).expanduser(),
            records,
            briefs,
            collections,
            options,
            on_loop,
        )
