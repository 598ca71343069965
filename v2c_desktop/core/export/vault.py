"""The vault and the export folder: where the export may write, and the notes it wrote
before (found by their id property, wherever the user moved or renamed them).

Every path the export writes is checked here: relative to the vault, made of safe
components, and resolving (symlinks followed) inside the vault. A folder argument such as
`../x` or `/etc`, or a `v2c` folder that is a symlink out of the vault, is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import bad_request
from .frontmatter import split_note
from .names import safe_name

#: Property names that identify a note the app wrote, by kind.
ID_KEYS = ("v2c_id", "v2c_brief_id", "v2c_index", "v2c_playlist")
_HEAD_BYTES = 16_384


@dataclass(frozen=True, slots=True)
class FoundNote:
    """A note the app wrote before, as found on disk: where it is now, and what the index
    and the playlist need of a note this export does not write (its title, its media)."""

    path: str  # vault-relative, `/` separated
    title: str = ""
    media: str = ""  # the `media` URL, or the `video` / `audio` link as written


def vault_root(vault: Path) -> Path:
    """The vault folder, resolved; it must exist (the export never creates a vault)."""
    root = Path(vault).expanduser()
    if not root.is_dir():
        raise bad_request(f"{vault} is not a folder", "give the folder of an Obsidian vault")
    return root.resolve()


def export_folder(folder: str) -> str:
    """The export folder as a safe relative path (`v2c`, `Research/v2c`), or an error."""
    raw = str(folder).replace("\\", "/").strip()
    pure = PurePosixPath(raw)
    if not raw or pure.is_absolute() or (len(raw) > 1 and raw[1] == ":"):
        raise bad_request(
            f"export folder {folder!r} is not a folder inside the vault",
            "give a relative folder such as v2c",
        )
    parts = [p for p in pure.parts if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise bad_request(
            f"export folder {folder!r} leaves the vault", "give a relative folder such as v2c"
        )
    return "/".join(safe_name(p, fallback="v2c") for p in parts)


def inside(root: Path, relative: str) -> Path:
    """`root/relative` if it stays inside the vault with symlinks followed, else an error."""
    if PurePosixPath(relative).is_absolute() or ".." in PurePosixPath(relative).parts:
        raise bad_request(f"{relative!r} is outside the vault", "")
    path = root / relative
    resolved = path.resolve()
    if resolved != root and root not in resolved.parents:
        raise bad_request(
            f"{relative} points outside the vault (a symlink?)",
            "remove the symlink or choose another export folder",
        )
    return path


def relative_to(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _head(path: Path) -> str:
    with path.open("rb") as handle:
        return handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")


def find_notes(root: Path) -> dict[tuple[str, str], list[FoundNote]]:
    """(id key, id) -> every note the app wrote before with that id (usually one).

    The whole vault is read (a user may move notes anywhere), skipping dot folders such as
    `.obsidian` and `.trash`, symlinks (the export never writes through one), and front
    matter beyond the first 16 KB. Two notes with one id (a note the user duplicated) are
    both listed, in path order: `pick` chooses which one the export updates.
    """
    found: dict[tuple[str, str], list[FoundNote]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not (Path(folder) / d).is_symlink()
        )
        for name in sorted(files):
            path = Path(folder) / name
            if not name.endswith(".md") or name.startswith(".") or path.is_symlink():
                continue
            try:
                note = split_note(_head(path))
            except OSError:
                continue
            for key in ID_KEYS:
                value = note.text(key)
                if value:
                    media = note.text("media") or note.text("video") or note.text("audio")
                    hit = FoundNote(relative_to(root, path), note.text("title") or "", media or "")
                    found.setdefault((key, value), []).append(hit)
    return found


def pick(root: Path, notes: list[FoundNote], expected: Iterable[str] = ()) -> FoundNote:
    """The one of several notes with the same id that the export updates: the one at the
    path the export would choose for it, else the one modified last (the copy the user
    works in), else the first by path. The others are reported, never written."""
    if len(notes) == 1:
        return notes[0]
    wanted = {p.casefold() for p in expected}
    for note in notes:
        if note.path.casefold() in wanted:
            return note

    def modified(note: FoundNote) -> float:
        try:
            return (root / note.path).stat().st_mtime
        except OSError:
            return 0.0

    return max(sorted(notes, key=lambda n: n.path), key=modified)  # the first of equals
