"""`export_obsidian`: the library's videos and briefs as notes in the user's Obsidian vault.

This tool writes the user's own files, so an agent never chooses where: it writes only into
the vault the user configured (the app's settings, `export.vault`) or the one given to
`v2c mcp --vault PATH` when the agent was set up. Anything else is refused with a hint the
agent can pass on. The notes keep whatever the user wrote in them (`core/export`).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.export.events import ExportReport, ExportRequest
from v2c_desktop.core.settings import load_settings

from ..deps import Deps
from ..inputs import CollectionRef
from ..results import dumps, text_result, writes
from ..tooling import Progress, add_tool

EXPORT_OBSIDIAN = """\
Export videos and briefs as notes into the user's Obsidian vault (the vault the user set up
for v2c; you cannot choose another): one note per video (properties, chapters, the
transcript with a timestamp link and block id per line), one per brief (every citation as a
link that plays at its second and a link to the video note's line), an index and a Base.
Scope: a collection, video ids, brief ids (from build_brief), or nothing for the whole
library; a brief's cited videos come with it. The index lists every note of the export
folder. playlist also writes a playlist note Media Extended plays in order (once written,
later exports keep it up to date). Notes the user edited are never overwritten: the new
version goes beside them and is listed under conflicts. dry_run says what would change.
Returns counts, the notes that changed and an obsidian:// link to open."""

Ids = Annotated[list[str] | None, Field(description="Library ids (video or brief).")]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def export_obsidian(
        ctx: Context[Any, Any],
        collection: CollectionRef = None,
        video_ids: Ids = None,
        brief_ids: Ids = None,
        dry_run: Annotated[bool, Field(description="Only say what would change.")] = False,
        playlist: Annotated[
            bool, Field(description="Also write a Media Extended playlist note.")
        ] = False,
    ) -> CallToolResult:
        vault, folder = _vault(deps)
        progress = Progress(ctx, 1)
        api = await deps.core()
        report = await api.export_obsidian(
            ExportRequest(
                vault=str(vault),
                folder=folder,
                collection=collection,
                video_ids=tuple(video_ids or ()),
                brief_ids=tuple(brief_ids or ()),
                dry_run=dry_run,
                playlist=playlist,
            ),
            progress=progress.listener(0, "export"),  # note by note
        )
        await progress.drain()  # every notification goes out before the result
        return text_result(dumps(summary(report)))

    add_tool(
        server,
        export_obsidian,
        name="export_obsidian",
        description=EXPORT_OBSIDIAN,
        annotations=writes("Export to Obsidian", idempotent=True, open_world=False),
    )


def _vault(deps: Deps) -> tuple[Path, str]:
    """The vault this server may write into, and the folder inside it."""
    saved = load_settings().export
    vault = deps.vault or (Path(saved.vault).expanduser() if saved.vault else None)
    if vault is None:
        raise bad_request(
            "no Obsidian vault is set up for v2c, so nothing can be exported",
            "ask the user to choose their vault once: in the v2c app, Export to Obsidian… (on a "
            "brief, a collection or chosen videos) remembers it; from a terminal, their first "
            '`v2c export obsidian VAULT` remembers it; or `"vault"` under `export` in v2c\'s '
            "settings file. Or they can start this server with `v2c mcp --vault PATH`",
        )
    if not vault.is_dir():
        raise bad_request(
            f"the vault folder {vault} does not exist",
            "ask the user to check the vault set up for v2c (it may have moved)",
        )
    return vault, saved.folder or "v2c"


def summary(report: ExportReport) -> dict[str, Any]:
    """What an agent needs: counts, the notes that changed, conflicts, the link to open."""
    changed = [asdict(n) for n in report.notes if n.action != "unchanged"]
    return {
        "vault": report.vault,
        "folder": report.folder,
        "dryRun": report.dry_run,
        "created": len(report.created),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "conflicts": [asdict(n) for n in report.conflicts],
        "duplicates": [{"path": n.path, "copies": list(n.duplicates)} for n in report.duplicated],
        "changed": changed,
        "open": report.open_link(),
    }
