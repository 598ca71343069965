"""The part of a note the app owns: a body region between two marked comment lines, plus
the properties it wrote; and the hash of both as written last time.

The markers are Obsidian comments (`%% ... %%`), hidden in reading view, so the note reads
cleanly while the boundary stays visible when editing. The hash (`v2c_hash`) is of the
values, not the bytes, so Obsidian re-quoting properties is not mistaken for an edit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .frontmatter import ReadValue, Value, canonical

START = "%% v2c:start (written by v2c; write your own text outside these markers) %%"
END = "%% v2c:end %%"
HASH_KEY = "v2c_hash"


@dataclass(frozen=True, slots=True)
class Region:
    """Where the owned region sits in a body: text before it, inside it, after it."""

    before: str
    inside: str
    after: str


def wrap(inside: str) -> str:
    """The owned region as it is written into a body."""
    return f"{START}\n{inside.strip(chr(10))}\n{END}\n"


def find_region(body: str) -> Region | None:
    """The first marked region, or None when the user removed (or broke) a marker."""
    lines = body.split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("%% v2c:start")]
    if not starts:
        return None
    first = starts[0]
    for end in range(first + 1, len(lines)):
        if lines[end].strip() == END:
            return Region(
                before="\n".join(lines[:first]),
                inside="\n".join(lines[first + 1 : end]),
                after="\n".join(lines[end + 1 :]),
            )
    return None


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip()


def owned_hash(props: list[tuple[str, Value | ReadValue]], inside: str) -> str:
    """A short hash of the owned property values (in the given order) and region text."""
    digest = hashlib.sha256()
    for key, value in props:
        digest.update(f"{key}\x1f{canonical(value)}\x1d".encode())
    digest.update(_normal(inside).encode())
    return digest.hexdigest()[:20]
