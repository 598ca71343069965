"""Portable note names from hostile titles, and one name per note even when titles collide.

A title is untrusted: it may hold slashes, `..`, characters Windows or Obsidian refuse, a
device name such as `CON`, control or bidi characters, or run to thousands of characters.
The name that comes out is one path component that every OS accepts and that an Obsidian
link can hold (`# | ^ [ ]` would break `[[Note#^block|label]]`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

#: Refused by Windows (`<>:"/\|?*`), or breaking Obsidian links (`#^[]|`), or `%` which
#: starts Obsidian comments and URL escapes in links.
_REFUSED = re.compile(r'[<>"/\\|?*#^\[\]%{}`$]')
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$", re.I)
MAX_CHARS = 100
#: Bytes of the stem, leaving room under the usual 255-byte limit for a collision suffix,
#: `.md`, and the temporary-file prefix of an atomic write.
MAX_BYTES = 180
FALLBACK = "Untitled"


def _visible(text: str) -> str:
    """Drop control, format (bidi overrides, zero-width) and unassigned characters."""
    return "".join(
        " " if unicodedata.category(ch) in ("Zl", "Zp") else ch
        for ch in text
        if unicodedata.category(ch) not in ("Cc", "Cf", "Cn", "Co", "Cs") or ch in "\t\n"
    )


def _cap(text: str) -> str:
    if len(text) > MAX_CHARS:
        cut = text[:MAX_CHARS]
        space = cut.rfind(" ")
        text = cut[:space] if space > MAX_CHARS // 2 else cut
    while len(text.encode("utf-8")) > MAX_BYTES:
        text = text[:-1]
    return text


def safe_name(title: str, fallback: str = FALLBACK) -> str:
    """One portable path component (no extension) for a note called `title`."""
    text = unicodedata.normalize("NFC", _visible(str(title)))
    text = text.replace(":", " - ")
    text = _REFUSED.sub(" ", text)
    text = " ".join(text.split())
    text = re.sub(r"(?:\s*-\s*){2,}", " - ", text)
    text = _cap(text)
    # Leading dots hide a file (and `..` climbs); trailing dots and spaces Windows drops.
    text = text.strip(" .-")
    if not text:
        return fallback
    if _RESERVED.match(text.split(".")[0].strip()):
        text = f"_{text}"
    return text


def id_suffix(subject_id: str) -> str:
    """A short, safe tag of a video or brief id for a name that collides (`vo4pMVb0R6M`)."""
    native = subject_id.split(":", 1)[-1]
    return safe_name(native, fallback="x")[:40]


class NameBook:
    """Hands out note paths inside one folder, case-insensitively unique.

    Names already on disk that belong to someone else (the user's own notes, other
    exported notes) are registered first; a taken name gets the subject's id appended,
    then a counter.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def take(self, relative: str) -> None:
        self._taken.add(relative.casefold())

    def is_taken(self, relative: str) -> bool:
        return relative.casefold() in self._taken

    def claim(self, folder: str, stem: str, subject_id: str, ext: str = ".md") -> str:
        """A free `folder/stem.ext` (or `stem (id).ext`, `stem (id 2).ext`), now taken."""
        for candidate in _candidates(stem, subject_id):
            relative = f"{folder}/{candidate}{ext}" if folder else f"{candidate}{ext}"
            if not self.is_taken(relative):
                self.take(relative)
                return relative
        raise RuntimeError("no free note name")  # pragma: no cover - 1000 collisions


def _candidates(stem: str, subject_id: str) -> Iterator[str]:
    """`stem`, then `stem (id)`, then `stem (id 2)`...: made only as far as needed."""
    yield stem
    tag = id_suffix(subject_id)
    yield f"{stem} ({tag})"
    for n in range(2, 1000):
        yield f"{stem} ({tag} {n})"
