"""The conflicts earlier exports reported, so that one the user settled stays settled.

A conflict puts the new version of a note beside it (`Name (v2c update).md`). If the user
deletes that copy, they chose their own version: the next export must not report the same
conflict again (and exit 1) forever. Nothing in the note can say so without writing into
the note the user edited, so the export folder keeps a small dot file (Obsidian does not
show it) with, per note, the version offered and where its copy went. A newer version
than the one turned down is offered again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from ..errors import V2CError
from .atomic import write_atomic
from .vault import inside

STATE_NAME = ".v2c-conflicts.json"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


class Conflicts:
    """The reported conflicts of one export folder: (note key) -> offer, copy path, and
    the hash of the copy as written (to know it is still untouched by the user)."""

    def __init__(self, root: Path, folder: str, dry_run: bool) -> None:
        self.root = root
        self.dry_run = dry_run
        self.path = inside(root, f"{folder}/{STATE_NAME}")
        self.entries: dict[str, dict[str, str]] = {}
        self.changed = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # none yet, or unreadable: every conflict is simply reported again
        if isinstance(data, dict):
            self.entries = {
                k: {f: str(v.get(f, "")) for f in ("offer", "beside", "copy")}
                for k, v in data.items()
                if isinstance(k, str) and isinstance(v, dict)
            }

    def dismissed(self, key: str) -> str:
        """The version the user turned down for this note (they deleted its copy), or ""."""
        entry = self.entries.get(key)
        if not entry or not entry["beside"]:
            return ""
        copy = self.root / entry["beside"]
        return entry["offer"] if not copy.exists() and not copy.is_symlink() else ""

    def record(self, key: str, offer: str, beside: str, text: str) -> None:
        entry = {"offer": offer, "beside": beside, "copy": text_hash(text)}
        if self.entries.get(key) != entry:
            self.entries[key] = entry
            self.changed = True

    def settle(self, key: str) -> None:
        """The note's conflict is over: forget it, and remove its copy if the user never
        touched it (an edited copy is theirs now and stays)."""
        entry = self.entries.pop(key, None)
        if entry is None:
            return
        self.changed = True
        if self.dry_run or not entry["beside"]:
            return
        # a copy gone, unreadable, or now behind a symlink out of the vault: left alone
        with contextlib.suppress(OSError, UnicodeDecodeError, V2CError):
            copy = inside(self.root, entry["beside"])
            if not copy.is_symlink() and text_hash(copy.read_text("utf-8")) == entry["copy"]:
                copy.unlink()

    def save(self) -> None:
        if self.dry_run or not self.changed:
            return
        if self.entries:
            write_atomic(self.path, json.dumps(self.entries, indent=1, sort_keys=True) + "\n")
        else:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
