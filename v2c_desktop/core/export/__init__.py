"""Export to an Obsidian vault: a note per video, a note per brief, an index and a Base.

The package writes the user's own files, so it is careful in three ways: nothing is ever
written outside the export folder (`vault.py`, `names.py`), untrusted titles and
transcripts stay plain text (`inert.py`), and a re-export never overwrites what the user
wrote (`reconcile.py`: the app owns a marked region and the properties it wrote, checked
against a hash of what it wrote last time). `obsidian.export_obsidian` is the entry point;
it reports what it did as the dataclasses of `events.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .events import ExportedNote, ExportReport, ExportRequest, NoteAction, NoteKind

if TYPE_CHECKING:
    from .obsidian import ExportOptions, export_obsidian


def __getattr__(name: str) -> Any:
    """The writer is imported when it is used: a client reading only the report types
    (every `v2c` command imports them through `CoreAPI`) does not load it."""
    if name in ("ExportOptions", "export_obsidian"):
        from . import obsidian

        return getattr(obsidian, name)
    raise AttributeError(name)


__all__ = [
    "ExportOptions",
    "ExportReport",
    "ExportRequest",
    "ExportedNote",
    "NoteAction",
    "NoteKind",
    "export_obsidian",
]
