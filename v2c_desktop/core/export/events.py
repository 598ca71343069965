"""What an export did, note by note: the report every face shows.

These cross the owner socket (`@wire`), so they hold plain values only. Paths are relative
to the vault, with `/` separators, because that is how Obsidian names notes and links.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..wire import wire
from .links import obsidian_uri

NoteKind = Literal["video", "brief", "index", "playlist", "base"]
#: created: a new note; updated: the app's part was rewritten (the user's text kept);
#: unchanged: nothing to write; conflict: the user edited the app's part, so the new
#: version went beside the note (`beside`) and the note itself was left alone.
NoteAction = Literal["created", "updated", "unchanged", "conflict"]


@wire
@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What to export into which vault. With no videos, collection or briefs named, the
    whole library; a brief's cited videos are always exported with it (its citations link
    to their notes). `folder` is inside the vault; `dry_run` writes nothing; `playlist`
    also writes a playlist note of every exported video, which Media Extended plays in
    order."""

    vault: str
    folder: str = "v2c"
    collection: str | None = None
    video_ids: tuple[str, ...] = ()
    brief_ids: tuple[str, ...] = ()
    dry_run: bool = False
    channel_in_name: bool = False
    playlist: bool = False


@wire
@dataclass(frozen=True, slots=True)
class ExportedNote:
    """One note the export created, updated, left alone or could not update safely.

    `duplicates`: other notes in the vault with the same id (a note the user copied);
    they were left alone, and the user may want to delete them."""

    kind: NoteKind
    subject_id: str
    path: str
    action: NoteAction
    beside: str = ""
    kept_user_text: bool = False
    reason: str = ""
    duplicates: tuple[str, ...] = ()


@wire
@dataclass(frozen=True, slots=True)
class ExportReport:
    """The whole export (or, with `dry_run`, what it would do: nothing was written)."""

    vault: str
    folder: str
    dry_run: bool
    notes: list[ExportedNote] = field(default_factory=list)

    def open_link(self, note: ExportedNote | None = None) -> str:
        """`obsidian://open?...` for `note` (default: the first brief, else the index)."""
        if note is None:
            picks = [n for n in self.notes if n.kind == "brief"] or [
                n for n in self.notes if n.kind == "index"
            ]
            note = picks[0] if picks else None
        return obsidian_uri(self.vault, note.path if note is not None else self.folder)

    def _with(self, action: NoteAction) -> list[ExportedNote]:
        return [n for n in self.notes if n.action == action]

    @property
    def created(self) -> list[ExportedNote]:
        return self._with("created")

    @property
    def updated(self) -> list[ExportedNote]:
        return self._with("updated")

    @property
    def unchanged(self) -> list[ExportedNote]:
        return self._with("unchanged")

    @property
    def conflicts(self) -> list[ExportedNote]:
        return self._with("conflict")

    @property
    def duplicated(self) -> list[ExportedNote]:
        """The notes found more than once in the vault (by their id)."""
        return [n for n in self.notes if n.duplicates]
