"""`export_obsidian`: videos, briefs and collections into a folder of an Obsidian vault.

It is given domain objects (CoreAPI gathers them), decides one path per note (found again
by its id property, else a fresh safe name), renders every note, reconciles it with what is
on disk (`reconcile.py`) and writes atomically, or with `dry_run` only reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..briefs.events import Brief
from ..domain.videos import Collection, VideoRecord
from ..progress import Progress, ProgressCallback, ignore_progress
from .atomic import write_atomic
from .brief_note import BRIEF_KEYS, BRIEF_TAG, brief_body, brief_properties
from .events import ExportedNote, ExportReport, NoteKind
from .index_note import render_base, render_index
from .links import Anchor, Player, block_ids, vault_media
from .names import NameBook, safe_name
from .note import Rendered
from .reconcile import CONFLICT_KEY, Plan, reconcile, reconcile_whole
from .vault import export_folder, find_notes, inside, vault_root
from .video_note import render_video

BESIDE = " (v2c update)"


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """`folder` inside the vault; `channel_in_name`: `Videos/<Channel> - <Title>.md`."""

    folder: str = "v2c"
    channel_in_name: bool = False
    dry_run: bool = False
    index: bool = True
    base: bool = True


def _book(root: Path, folders: list[str]) -> NameBook:
    """Every name already in the folders the export writes into is someone's."""
    book = NameBook()
    for folder in folders:
        path = root / folder
        if path.is_dir() and not path.is_symlink():
            for entry in path.iterdir():
                book.take(f"{folder}/{entry.name}")
    return book


def _read(path: Path) -> str | None:
    if not path.exists() and not path.is_symlink():
        return None
    return path.read_bytes().decode("utf-8", errors="replace")


class _Writer:
    def __init__(self, root: Path, dry_run: bool) -> None:
        self.root = root
        self.dry_run = dry_run

    def apply(self, kind: NoteKind, subject: str, relative: str, plan: Plan) -> ExportedNote:
        target = inside(self.root, relative)
        beside = ""
        if plan.action == "conflict" and plan.beside is not None:
            pure = PurePosixPath(relative)
            beside = str(pure.with_name(pure.stem + BESIDE + pure.suffix))
            if not self.dry_run:
                write_atomic(inside(self.root, beside), plan.beside)
        elif plan.text is not None and not self.dry_run:
            write_atomic(target, plan.text)
        return ExportedNote(
            kind=kind,
            subject_id=subject,
            path=relative,
            action=plan.action,
            beside=beside,
            kept_user_text=plan.kept_user_text,
            reason=plan.reason,
        )

    def note(self, rendered: Rendered, relative: str) -> ExportedNote:
        plan = reconcile(rendered, _read(inside(self.root, relative)))
        return self.apply(rendered.kind, rendered.subject_id, relative, plan)


def export_obsidian(
    vault: Path,
    videos: list[VideoRecord],
    briefs: list[Brief],
    collections: list[Collection] | None = None,
    options: ExportOptions | None = None,
    progress: ProgressCallback = ignore_progress,
) -> ExportReport:
    """Write (or with `options.dry_run`, plan) the notes and report each one."""
    options = options or ExportOptions()
    root = vault_root(vault)
    folder = export_folder(options.folder)
    inside(root, folder)  # refuse a folder that is a symlink out of the vault
    found = find_notes(root)
    videos_dir, briefs_dir = f"{folder}/Videos", f"{folder}/Briefs"
    book = _book(root, [folder, videos_dir, briefs_dir])
    unique = list({r.video.id: r for r in videos}.values())
    total = len(unique) + len(briefs) + int(options.index) + int(options.base)
    writer = _Writer(root, options.dry_run)
    notes: list[ExportedNote] = []

    def step(note: ExportedNote) -> None:
        notes.append(note)
        progress(Progress("export", len(notes), total, note.path))

    paths: dict[str, str] = {}
    anchors: dict[str, Anchor] = {}
    for record in unique:
        video = record.video
        name = (
            f"{video.channel} - {video.title}"
            if options.channel_in_name and video.channel
            else video.title
        )
        stem = safe_name(name)
        paths[video.id] = found.get(("v2c_id", video.id)) or book.claim(videos_dir, stem, video.id)
        segments = record.transcript.segments
        anchors[video.id] = Anchor(paths[video.id][:-3], video.title, segments, block_ids(segments))
    for record in unique:
        player = Player(record.video, vault_media(record.video, root))
        relative = paths[record.video.id]
        alias = PurePosixPath(relative).stem != record.video.title
        step(writer.note(render_video(record, player, alias), relative))
    brief_links: list[tuple[str, str]] = []
    for brief in briefs:
        date = (brief.created_at or "")[:10]
        stem = safe_name(f"{date} {brief.title or brief.question}".strip())
        relative = found.get(("v2c_brief_id", brief.id)) or book.claim(briefs_dir, stem, brief.id)
        rendered = Rendered(
            kind="brief",
            subject_id=brief.id,
            id_key="v2c_brief_id",
            owned_keys=BRIEF_KEYS,
            props=brief_properties(brief, anchors),
            inside=brief_body(brief, anchors),
            tags=[BRIEF_TAG],
        )
        step(writer.note(rendered, relative))
        brief_links.append((brief.title or brief.question, relative[:-3]))
    if options.index:
        relative = found.get(("v2c_index", folder)) or book.claim(folder, "Index", folder)
        listing = [(r.video.id, r.video.title, paths[r.video.id][:-3]) for r in unique]
        rendered = render_index(folder, listing, brief_links, list(collections or []))
        step(writer.note(rendered, relative))
    if options.base:
        relative = f"{folder}/v2c.base"
        plan = reconcile_whole(render_base(folder), _read(inside(root, relative)))
        step(writer.apply("base", folder, relative, plan))
    return ExportReport(vault=str(root), folder=folder, dry_run=options.dry_run, notes=notes)


__all__ = ["CONFLICT_KEY", "ExportOptions", "export_obsidian"]
