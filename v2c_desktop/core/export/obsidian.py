"""`export_obsidian`: videos, briefs and collections into a folder of an Obsidian vault.

It is given domain objects (CoreAPI gathers them), decides one path per note (found again
by its id property, else a fresh safe name), renders every note, reconciles it with what is
on disk (`reconcile.py`) and writes atomically, or with `dry_run` only reports. The index
(and the playlist) list every note of the export folder, this export's and earlier ones'.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..briefs.events import Brief
from ..domain.videos import Collection, VideoRecord
from ..errors import bad_request
from ..progress import Progress, ProgressCallback, ignore_progress
from .atomic import write_atomic
from .brief_note import brief_title, render_brief
from .conflicts import Conflicts
from .events import ExportedNote, ExportReport, NoteKind
from .frontmatter import Link, split_note
from .index_note import Listed, render_base, render_index, render_playlist, video_order
from .links import Anchor, Player, block_ids, vault_media
from .names import NameBook, id_suffix, safe_name
from .note import Rendered
from .reconcile import BASE_MARK, CONFLICT_KEY, Plan, reconcile, reconcile_whole
from .vault import FoundNote, export_folder, find_notes, inside, pick, vault_root
from .video_note import render_video

BESIDE = " (v2c update)"


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """`folder` inside the vault; `channel_in_name`: `Videos/<Channel> - <Title>.md`;
    `playlist`: write the playlist note (once there is one, it is kept up to date)."""

    folder: str = "v2c"
    channel_in_name: bool = False
    dry_run: bool = False
    index: bool = True
    base: bool = True
    playlist: bool = False


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
    def __init__(self, root: Path, dry_run: bool, conflicts: Conflicts) -> None:
        self.root = root
        self.dry_run = dry_run
        self.conflicts = conflicts

    def _ours(self, path: Path, kind: NoteKind, subject: str) -> bool:
        """Is the file at `path` a copy this export put beside the note `subject`?"""
        text = _read(path)
        if text is None:
            return True  # free
        if kind == "base":
            return text.startswith(BASE_MARK)
        return split_note(text[:16_384]).text(CONFLICT_KEY) == subject

    def beside(self, relative: str, kind: NoteKind, subject: str) -> str:
        """Where the new version of a note in conflict goes: `Name (v2c update).md`, or
        `Name (v2c update 2).md`... when the user has a file of that name of their own."""
        pure = PurePosixPath(relative)
        for n in range(1, 100):
            tag = BESIDE if n == 1 else f"{BESIDE[:-1]} {n})"
            candidate = str(pure.with_name(pure.stem + tag + pure.suffix))
            if self._ours(inside(self.root, candidate), kind, subject):
                return candidate
        raise bad_request(f"no free name beside {relative}")  # pragma: no cover

    def apply(
        self,
        kind: NoteKind,
        subject: str,
        relative: str,
        plan: Plan,
        key: str,
        duplicates: tuple[str, ...] = (),
    ) -> ExportedNote:
        target = inside(self.root, relative)
        beside = ""
        if plan.action == "conflict" and plan.beside is not None:
            beside = self.beside(relative, kind, subject)
            if not self.dry_run:
                write_atomic(inside(self.root, beside), plan.beside)
            self.conflicts.record(key, plan.offer, beside, plan.beside)
        elif not plan.kept_theirs:
            if plan.text is not None and not self.dry_run:
                write_atomic(target, plan.text)
            self.conflicts.settle(key)
        return ExportedNote(
            kind=kind,
            subject_id=subject,
            path=relative,
            action=plan.action,
            beside=beside,
            kept_user_text=plan.kept_user_text,
            reason=plan.reason,
            duplicates=duplicates,
        )

    def note(
        self, rendered: Rendered, relative: str, duplicates: tuple[str, ...] = ()
    ) -> ExportedNote:
        key = f"{rendered.id_key}:{rendered.subject_id}"
        existing = _read(inside(self.root, relative))
        plan = reconcile(rendered, existing, self.conflicts.dismissed(key))
        return self.apply(rendered.kind, rendered.subject_id, relative, plan, key, duplicates)


class _Places:
    """One path per note: where the note with that id is now (the expected one, or the
    one modified last, of several), else a fresh, free name."""

    def __init__(self, root: Path, found: dict[tuple[str, str], list[FoundNote]]) -> None:
        self.root = root
        self.found = found

    def of(
        self, book: NameBook, key: str, subject: str, folder: str, stem: str
    ) -> tuple[str, tuple[str, ...]]:
        """(path, the other notes with the same id)."""
        hits = self.found.get((key, subject))
        if not hits:
            return book.claim(folder, stem, subject), ()
        expected = (f"{folder}/{stem}.md", f"{folder}/{stem} ({id_suffix(subject)}).md")
        chosen = pick(self.root, hits, expected)
        return chosen.path, tuple(h.path for h in hits if h is not chosen)

    def earlier(self, key: str, folder: str) -> dict[str, FoundNote]:
        """The notes of one kind an earlier export left in `folder` (by subject id)."""
        out: dict[str, FoundNote] = {}
        for (k, subject), hits in self.found.items():
            if k == key:
                note = pick(self.root, hits)
                if note.path.startswith(folder + "/"):
                    out[subject] = note
        return out


def _media_text(player: Player) -> str:
    media = player.media_property()
    if media is None:
        return ""
    return media[1].text() if isinstance(media[1], Link) else media[1]


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
    videos_dir, briefs_dir = f"{folder}/Videos", f"{folder}/Briefs"
    for each in (folder, videos_dir, briefs_dir):
        inside(root, each)  # a folder that is a symlink out of the vault: refused up front
    found = find_notes(root)
    places = _Places(root, found)
    book = _book(root, [folder, videos_dir, briefs_dir])
    unique = list({r.video.id: r for r in videos}.values())
    playlist = options.playlist or ("v2c_playlist", folder) in found
    extra = int(options.index) + int(options.base) + int(playlist)
    total = len(unique) + len(briefs) + extra
    conflicts = Conflicts(root, folder, options.dry_run)
    writer = _Writer(root, options.dry_run, conflicts)
    notes: list[ExportedNote] = []

    def step(note: ExportedNote) -> None:
        notes.append(note)
        progress(Progress("export", len(notes), total, note.path))

    listed = {
        vid: Listed(vid, hit.title or "Untitled", hit.path[:-3], hit.media)
        for vid, hit in places.earlier("v2c_id", folder).items()
    }
    paths: dict[str, tuple[str, tuple[str, ...]]] = {}
    anchors: dict[str, Anchor] = {}
    for record in unique:
        video = record.video
        name = (
            f"{video.channel} - {video.title}"
            if options.channel_in_name and video.channel
            else video.title
        )
        paths[video.id] = places.of(book, "v2c_id", video.id, videos_dir, safe_name(name))
        segments = record.transcript.segments
        target = paths[video.id][0][:-3]
        anchors[video.id] = Anchor(target, video.title, segments, block_ids(segments))
    for record in unique:
        player = Player(record.video, vault_media(record.video, root))
        relative, duplicates = paths[record.video.id]
        title = record.video.title or "Untitled"
        alias = PurePosixPath(relative).stem != title
        listed[record.video.id] = Listed(record.video.id, title, relative[:-3], _media_text(player))
        step(writer.note(render_video(record, player, alias), relative, duplicates))
    brief_list = {
        bid: Listed(bid, hit.title or "Brief", hit.path[:-3])
        for bid, hit in places.earlier("v2c_brief_id", folder).items()
    }
    for brief in briefs:
        date = (brief.created_at or "")[:10]
        stem = safe_name(f"{date} {brief.title or brief.question}".strip())
        relative, duplicates = places.of(book, "v2c_brief_id", brief.id, briefs_dir, stem)
        step(writer.note(render_brief(brief, anchors), relative, duplicates))
        brief_list[brief.id] = Listed(brief.id, brief_title(brief), relative[:-3])
    groups = list(collections or [])
    playlist_target = ""
    if playlist:
        relative, duplicates = places.of(book, "v2c_playlist", folder, folder, "Playlist")
        ordered = video_order(list(listed.values()), groups)
        step(writer.note(render_playlist(folder, ordered), relative, duplicates))
        playlist_target = relative[:-3]
    if options.index:
        relative, duplicates = places.of(book, "v2c_index", folder, folder, "Index")
        rendered = render_index(
            folder, list(listed.values()), list(brief_list.values()), groups, playlist_target
        )
        step(writer.note(rendered, relative, duplicates))
    if options.base:
        relative, key = f"{folder}/v2c.base", f"base:{folder}"
        existing = _read(inside(root, relative))
        plan = reconcile_whole(render_base(folder), existing, conflicts.dismissed(key))
        step(writer.apply("base", folder, relative, plan, key))
    conflicts.save()
    return ExportReport(vault=str(root), folder=folder, dry_run=options.dry_run, notes=notes)


__all__ = ["CONFLICT_KEY", "ExportOptions", "export_obsidian"]
