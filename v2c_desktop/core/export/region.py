"""The part of a note the app owns: a body region between two marked comment lines, plus
the properties it wrote; and the hash of both as written last time.

The markers are Obsidian comments (`%% ... %%`), hidden in reading view, so the note reads
cleanly while the boundary stays visible when editing. The hash (`v2c_hash`) is of the
values, not the bytes, so Obsidian re-quoting properties is not mistaken for an edit; and
it leaves out the targets of wikilinks (`[[target#^block|text]]` hashes as `[[#^block|text]]`),
because Obsidian rewrites every link to a note the user renames, in every note linking to
it: that is Obsidian keeping the links right, not the user editing the app's part. The
export writes links to the notes' current paths again anyway (found by their ids).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .frontmatter import ReadValue, Value, canonical

START = "%% v2c:start (written by v2c; write your own text outside these markers) %%"
END = "%% v2c:end %%"
HASH_KEY = "v2c_hash"
#: The target of a wikilink: what Obsidian rewrites when the linked note is renamed. The
#: app's text never holds a raw `[[` otherwise (`inert` escapes it).
_LINK_TARGET = re.compile(r"\[\[[^\[\]|#\n]*")


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


def _untargeted(text: str) -> str:
    return _LINK_TARGET.sub("[[", text) if "[[" in text else text


def owned_hash(
    props: list[tuple[str, Value | ReadValue]], inside: str, *, exact: bool = False
) -> str:
    """A short hash of the owned property values (in the given order) and region text.

    By default link targets are left out (what `v2c_hash` holds: a rename in Obsidian is
    not an edit); `exact` keeps them, to tell whether the note already holds exactly what
    the export would write (and to accept hashes written before targets were left out).
    """
    clean = (lambda text: text) if exact else _untargeted
    digest = hashlib.sha256()
    for key, value in props:
        digest.update(f"{key}\x1f{clean(canonical(value))}\x1d".encode())
    digest.update(clean(_normal(inside)).encode())
    return digest.hexdigest()[:20]
