"""A note as the app renders it, before it meets what is on disk: its identity, the
properties it owns, the tags and aliases it adds, and the text of its owned region."""

from __future__ import annotations

from dataclasses import dataclass, field

from .events import NoteKind
from .frontmatter import Value


@dataclass(frozen=True, slots=True)
class Rendered:
    kind: NoteKind
    subject_id: str
    id_key: str  # `v2c_id`, `v2c_brief_id` or `v2c_index`
    #: Every property this kind of note may own, in the order they are written; a key the
    #: app owns but has no value for this time is removed on update.
    owned_keys: tuple[str, ...]
    props: dict[str, Value]
    inside: str
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)

    def owned_values(self) -> list[tuple[str, Value]]:
        return [(k, self.props[k]) for k in self.owned_keys if k in self.props]
