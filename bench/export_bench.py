"""How long an Obsidian export of a 60-video collection takes: first export, an export again
with nothing changed, a dry run, an export again after the user wrote in every note, then
one video alone (the index still lists all 60) and the collection with the playlist note.

All 60 transcripts of `../shared/corpus/transcripts/INDEX.json` go into one collection
(imported without embeddings: the export reads transcripts, not vectors), with one
extractive brief of them. The issue's target is "in seconds".

    .venv/bin/python bench/export_bench.py
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.api import CoreAPI  # noqa: E402
from v2c_desktop.core.briefs.events import BriefDone, BriefRequest  # noqa: E402
from v2c_desktop.core.export.events import ExportReport, ExportRequest  # noqa: E402
from v2c_desktop.core.services import Services  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"


async def timed(api: CoreAPI, label: str, request: ExportRequest) -> ExportReport:
    started = time.perf_counter()
    report = await api.export_obsidian(request)
    seconds = time.perf_counter() - started
    print(
        f"{label:34} {seconds:6.2f} s  {len(report.created):3} created "
        f"{len(report.updated):3} updated {len(report.unchanged):3} unchanged "
        f"{len(report.conflicts):3} conflicts"
    )
    return report


async def main() -> None:
    entries = json.loads((CORPUS / "transcripts" / "INDEX.json").read_text(encoding="utf-8"))
    paths = [str(CORPUS / e["path"]) for e in entries]
    with tempfile.TemporaryDirectory(prefix="v2c-export-bench-") as tmp:
        services = await asyncio.to_thread(
            Services.open, Path(tmp) / "bench.duckdb", index_on_import=False
        )
        api = CoreAPI(services)
        try:
            result = await api.add(paths, collection="Corpus")
            print(f"imported {len(result.outcomes)} videos into one collection")
            brief_id = ""
            async for event in api.build_brief(
                BriefRequest("What do these talks teach?", collection="Corpus", extractive=True)
            ):
                if isinstance(event, BriefDone):
                    brief_id = event.brief.id
            vault = Path(tmp) / "Vault"
            vault.mkdir()
            request = ExportRequest(str(vault), collection="Corpus", brief_ids=(brief_id,))
            first = await timed(api, "first export", request)
            words = sum(p.stat().st_size for p in vault.rglob("*.md")) / 1e6
            print(f"  {len(first.notes)} files, {words:.1f} MB of Markdown")
            await timed(api, "again, nothing changed", request)
            await timed(api, "dry run", dataclasses.replace(request, dry_run=True))
            for note in vault.rglob("*.md"):
                note.write_text(note.read_text(encoding="utf-8") + "\nMy note.\n", "utf-8")
            await timed(api, "again, after the user wrote in all", request)
            first_id = next(o.video_id for o in result.outcomes if o.video_id)
            one = ExportRequest(str(vault), video_ids=(first_id,))
            alone = await timed(api, "one video alone", one)
            index = next(n for n in alone.notes if n.kind == "index")
            listed = (vault / index.path).read_text(encoding="utf-8").count("\n- [[")
            print(f"  the index still lists {listed} notes ({index.action})")
            playlist = dataclasses.replace(request, playlist=True)
            await timed(api, "with the playlist note", playlist)
        finally:
            await api.aclose()


if __name__ == "__main__":
    asyncio.run(main())
