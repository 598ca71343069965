"""`v2c export obsidian VAULT ...`: notes per video and brief in a vault folder, the user's
edits kept; `v2c export notion ...`: a Notion page per video under the user's page;
`v2c export markdown|json --brief B | --chat C`: one brief or chat as a file."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path

from v2c_desktop.core.briefs.render import as_json, markdown
from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.export.events import ExportReport, ExportRequest
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.settings import load_settings, save_settings

from ..context import open_context
from ..output import emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "export", parents=[common], help="to an Obsidian vault, or one brief or chat as a file"
    )
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    o = kinds.add_parser(
        "obsidian", parents=[common], help="notes per video and brief, an index and a Base"
    )
    o.add_argument("vault", nargs="?", help="the vault folder (default: the one in the settings)")
    o.add_argument("--folder", help="the folder inside the vault (default: v2c)")
    o.add_argument("--collection", metavar="C", help="the videos of a collection")
    o.add_argument("--video", action="append", default=[], metavar="V", help="a video (repeat)")
    o.add_argument("--brief", action="append", default=[], metavar="B", help="a brief (repeat)")
    o.add_argument("--channel-in-name", action="store_true", help="Videos/<Channel> - <Title>")
    o.add_argument(
        "--playlist",
        action="store_true",
        help="also write a playlist note Media Extended plays (kept up to date once made)",
    )
    o.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    o.set_defaults(handler=run_obsidian)
    n = kinds.add_parser(
        "notion", parents=[common], help="a Notion page per video under one of your pages"
    )
    n.add_argument("videos", nargs="*", metavar="VIDEO", help="videos to export")
    n.add_argument("--collection", metavar="C", help="the videos of a collection")
    n.add_argument(
        "--parent", metavar="PAGE", help="the page's URL or id (default: notion.parent_page)"
    )
    n.set_defaults(handler=run_notion)
    for kind in ("markdown", "json"):
        f = kinds.add_parser(kind, parents=[common], help=f"one brief or chat as {kind}")
        which = f.add_mutually_exclusive_group(required=True)
        which.add_argument("--brief", metavar="B")
        which.add_argument("--chat", metavar="C")
        f.add_argument("--output", type=Path, metavar="FILE", help="write here (default: stdout)")
        f.set_defaults(handler=run_file)


def _say(progress: Progress) -> None:
    total = f"/{progress.total}" if progress.total is not None else ""
    print(f"[{progress.stage} {progress.done}{total}] {progress.message}", file=sys.stderr)


async def run_obsidian(args: argparse.Namespace) -> int:
    saved = load_settings().export
    vault = args.vault or saved.vault
    if not vault:
        raise bad_request(
            "which vault? none given and none in the settings",
            "give the vault folder once: v2c export obsidian ~/Notes (it is remembered)",
        )
    request = ExportRequest(
        vault=str(Path(vault).expanduser()),
        folder=args.folder or saved.folder or "v2c",
        collection=args.collection,
        video_ids=tuple(args.video),
        brief_ids=tuple(args.brief),
        dry_run=args.dry_run,
        channel_in_name=args.channel_in_name,
        playlist=args.playlist,
    )
    async with open_context(args) as api:
        report = await api.export_obsidian(request, progress=_say)
    if not saved.vault and not report.dry_run:
        _remember(report.vault, report.folder)
    if args.json:
        emit_json({**asdict(report), "open": report.open_link()})
    else:
        _print_report(report)
    return 1 if report.conflicts and not report.dry_run else 0


def _remember(vault: str, folder: str) -> None:
    """The first vault exported into becomes v2c's vault (`export.vault` in the settings,
    what the app's Export to Obsidian asks for once): later exports need no argument, and
    `v2c mcp` lets agents export into it."""
    settings = load_settings()
    export = replace(settings.export, vault=vault, folder=folder)
    try:
        save_settings(replace(settings, export=export))
    except OSError as exc:
        print(f"v2c: could not remember the vault: {exc}", file=sys.stderr)
        return
    print(f"remembered {vault} as v2c's Obsidian vault (export.vault)", file=sys.stderr)


async def run_notion(args: argparse.Namespace) -> int:
    token = load_settings().notion.resolved_token()  # this shell's NOTION_TOKEN counts
    async with open_context(args) as api:
        report = await api.export_notion(
            list(args.videos),
            collection=args.collection,
            parent=args.parent,
            token=token,
            progress=_say,
        )
    if args.json:
        emit_json(asdict(report))
    else:
        for page in report.pages:
            where = page.url or page.reason
            print(f"{page.status:9} {page.title}  {where}")
        print(
            f"created {report.count('created')}, updated {report.count('updated')}, "
            f"unchanged {report.count('unchanged')}, failed {report.count('failed')}"
        )
    return 1 if report.count("failed") else 0


RESOLVE = (
    "To take the new version, empty the part between the v2c markers of your note (keep "
    "the two marker lines; your text outside them stays) and export again. To keep yours, "
    "delete the (v2c update) copy: later exports leave the note alone until a newer "
    "version comes."
)


def _print_report(report: ExportReport) -> None:
    would = "would be " if report.dry_run else ""
    for note in report.notes:
        if note.action == "unchanged" and not note.reason:
            continue
        line = f"{would}{note.action:9} {note.path}"
        if note.action == "conflict":
            line += f"\n          you edited it: the new version {would}written beside it as"
            line += f" {note.beside}" + (f" ({note.reason})" if note.reason else "")
        elif note.reason:
            line += f" ({note.reason})"
        print(line)
    for note in report.duplicated:
        print(
            f"duplicate {note.path} has the same {note.kind} id as "
            f"{', '.join(note.duplicates)}: only {note.path} was exported to; "
            "delete the copies you do not want"
        )
    print(
        f"{len(report.created)} {would}created, {len(report.updated)} {would}updated, "
        f"{len(report.unchanged)} unchanged, {len(report.conflicts)} in conflict "
        f"in {report.vault}/{report.folder}"
    )
    if report.conflicts:
        print(RESOLVE)
    if not report.dry_run:
        print(f"open in Obsidian: {report.open_link()}")


async def run_file(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        if args.brief:
            brief = await api.get_brief(args.brief)
            text = (
                markdown(brief, int(brief.scope.get("max_words") or 400))
                if args.kind == "markdown"
                else json.dumps(as_json(brief), ensure_ascii=False, indent=2) + "\n"
            )
        elif args.kind == "markdown":
            text = await api.export_chat(args.chat)
        else:
            chat = await api.get_chat(args.chat)
            text = json.dumps(asdict(chat), ensure_ascii=False, indent=2, default=str) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return 0
    target = args.output.expanduser()
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise bad_request(f"cannot write {target}: {exc.strerror}", "choose another file") from None
    print(f"wrote {target}", file=sys.stderr)
    return 0
