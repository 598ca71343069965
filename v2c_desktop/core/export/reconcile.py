"""Deciding what a (re-)export does to one note, so it never loses a word the user wrote.

- No note with this id yet: the note is created.
- The note exists: the app's part is its marked body region and the properties it owns.
  If that part still hashes to the `v2c_hash` written last time, the user did not touch it:
  it is replaced (updated) or, when the new version is the same, left alone (unchanged).
  Everything else is kept as it is: text before and after the region, properties the user
  added (verbatim, in place), and tags and aliases (the app's are merged into the user's).
- The user edited the app's part (or removed a marker or the hash): nothing is
  overwritten. The new version goes beside the note and the export reports a conflict.
- A conflict ends when the user resolves it, in one of three ways: the app's part now holds
  exactly the new version (the user copied it in); the user emptied the part between the
  markers (asking for it to be written anew); or the user deleted the copy beside the note
  (keeping their own version: `dismissed` holds the version they turned down, and the note
  stays as they have it until a newer version comes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .events import NoteAction
from .frontmatter import Block, ReadValue, Value, join_note, render_property, split_note
from .note import Rendered
from .region import HASH_KEY, find_region, owned_hash, wrap

CONFLICT_KEY = "v2c_conflict_of"
_LISTS = ("tags", "aliases")


@dataclass(frozen=True, slots=True)
class Plan:
    """What to do: write `text` at the note's path (None: leave it), or `beside`.

    `offer` names the version a conflict offered beside the note (a hash), so a later
    export knows whether the user already turned that version down; `kept_theirs`: they
    did (they deleted its copy), so the conflict stays settled, and remembered, until a
    newer version comes.
    """

    action: NoteAction
    text: str | None = None
    beside: str | None = None
    kept_user_text: bool = False
    reason: str = ""
    offer: str = ""
    kept_theirs: bool = False


KEPT = "you kept your own version (you deleted the v2c update beside it)"


def _lines(key: str, value: Value) -> Block:
    return Block(key, render_property(key, value))


def _app_lists(r: Rendered) -> dict[str, list[str]]:
    return {"tags": list(r.tags), "aliases": list(r.aliases)}


def fresh_text(r: Rendered, id_key: str | None = None) -> str:
    """The whole note as first written (`id_key` overrides the id property's name)."""
    blocks: list[Block] = []
    owned = r.owned_values()
    if "title" in r.props:
        blocks.append(_lines("title", r.props["title"]))
    for key, items in _app_lists(r).items():
        if items:
            blocks.append(_lines(key, list(items)))
    blocks += [_lines(k, v) for k, v in owned if k != "title"]
    blocks.append(_lines(id_key or r.id_key, r.subject_id))
    blocks.append(_lines(HASH_KEY, owned_hash(list(owned), r.inside)))
    return join_note(blocks, wrap(r.inside))


def _as_list(value: ReadValue) -> list[str]:
    if isinstance(value, list):
        return [v for v in value if v]
    return [v for v in re.split(r"[,\s]+", value) if v]


def _merged(app: list[str], block: Block | None) -> list[str]:
    mine = _as_list(block.value()) if block is not None else []
    ours = [t for t in app if t.lstrip("#") not in {m.lstrip("#") for m in mine}]
    return ours + mine


def _conflict(r: Rendered, offer: str, dismissed: str, reason: str) -> Plan:
    if dismissed and dismissed == offer:
        return Plan("unchanged", kept_user_text=True, reason=KEPT, offer=offer, kept_theirs=True)
    return Plan("conflict", beside=fresh_text(r, CONFLICT_KEY), reason=reason, offer=offer)


def reconcile(r: Rendered, existing: str | None, dismissed: str = "") -> Plan:
    """The plan for note `r` given the text now on disk at its path (None: no file).

    `dismissed`: the version (its `offer`) a conflict put beside this note before, whose
    copy the user has since deleted; "" when there is none.
    """
    if existing is None:
        return Plan("created", fresh_text(r))
    owned = r.owned_values()
    new_hash = owned_hash(list(owned), r.inside)
    note = split_note(existing)
    region = find_region(note.body)
    stored = note.text(HASH_KEY) if note.blocks is not None else None
    if note.blocks is None or region is None or not stored:
        missing = (
            "its properties"
            if note.blocks is None
            else ("the v2c markers" if region is None else "its v2c_hash")
        )
        reason = f"the note lost {missing}; the new version was written beside it"
        return _conflict(r, new_hash, dismissed, reason)
    current = [(k, b.value()) for k in r.owned_keys if (b := note.get(k)) is not None]
    exact = owned_hash(list(current), region.inside, exact=True)
    same = exact == owned_hash(list(owned), r.inside, exact=True)
    # A hash written before link targets were left out is the exact one: accepted too.
    edited = stored not in (owned_hash(list(current), region.inside), exact)
    reason = ""
    if edited and same:
        reason = "your version matches the new one"
    elif edited and not region.inside.strip():
        reason = "you emptied the part v2c writes, so it was written anew"
    elif edited:
        return _conflict(
            r, new_hash, dismissed, "you edited the part v2c writes; the new version is beside it"
        )
    user_keys = [
        b.key for b in note.blocks if b.key not in (*r.owned_keys, *_LISTS, HASH_KEY, r.id_key)
    ]
    kept = bool(user_keys or region.before.strip() or region.after.strip())
    if same and stored == new_hash:
        return Plan("unchanged", kept_user_text=kept)
    blocks: list[Block] = []
    done: set[str] = set()
    app_lists = _app_lists(r)
    for block in note.blocks:
        key = block.key
        if key in done:
            continue
        if key in r.owned_keys:
            if key in r.props:
                blocks.append(_lines(key, r.props[key]))
        elif key in _LISTS:
            merged = _merged(app_lists[key], block)
            kept = kept or merged != app_lists[key]
            blocks.append(_lines(key, list(merged)) if merged else block)
        elif key == HASH_KEY:
            blocks.append(_lines(HASH_KEY, new_hash))
        else:
            blocks.append(block)
        done.add(key)
    for key, items in app_lists.items():
        if key not in done and items:
            blocks.append(_lines(key, list(items)))
    blocks += [_lines(k, v) for k, v in owned if k not in done]
    before = region.before + "\n" if region.before else ""
    text = join_note(blocks, before + wrap(r.inside) + region.after, note.preamble)
    return Plan("updated", text, kept_user_text=kept, reason=reason)


BASE_MARK = "# v2c:hash "


def reconcile_whole(text: str, existing: str | None, dismissed: str = "") -> Plan:
    """For a file the app owns whole (the `.base`): a first-line comment holds the hash.
    A conflict ends as a note's does: the file holds the new version, or the user deleted
    the copy beside it (`dismissed`)."""
    body = text.rstrip("\n") + "\n"
    offer = owned_hash([], body, exact=True)
    new = f"{BASE_MARK}{offer} (written by v2c; edit a copy)\n{body}"
    if existing is None:
        return Plan("created", new)
    first, _, rest = existing.replace("\r\n", "\n").partition("\n")
    stored = first[len(BASE_MARK) :].split(" ")[0] if first.startswith(BASE_MARK) else ""
    now = owned_hash([], rest, exact=True)
    if now == offer:
        return Plan("unchanged") if stored == offer else Plan("updated", new)
    if not stored or now != stored:
        if dismissed == offer:
            return Plan(
                "unchanged", kept_user_text=True, reason=KEPT, offer=offer, kept_theirs=True
            )
        return Plan(
            "conflict",
            beside=new,
            reason="you edited this file; the new version is beside it",
            offer=offer,
        )
    return Plan("updated", new)
