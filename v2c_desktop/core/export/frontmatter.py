"""Obsidian properties: written by Obsidian's rules, read back line by line.

Writing: flat keys only; text always double-quoted (a JSON string is a valid YAML
double-quoted scalar, so quoting can never be broken by the value); lists as block items;
whole numbers plain; dates `YYYY-MM-DD` and date-times `YYYY-MM-DDTHH:MM:SS` plain so
Obsidian types them as dates. A link in a property is a quoted `"[[...]]"`.

Reading: a re-export must keep the properties the user added exactly as they are, and
compare the app's own values with what it wrote even after Obsidian re-serialised them
(its property editor changes quoting). So the front matter is split into one block per
top-level key, kept verbatim, and values are read by a small parser of the flat YAML
Obsidian writes (plain, quoted, flow and block lists). No YAML library is needed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .inert import label, property_text

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2})?$")
_KEY = re.compile(r"""^("[^"]*"|'[^']*'|[^\s#:\-'"][^:]*?)\s*:(?:[ \t]+(.*)|)$""")
_FENCE = "---"
_WHOLE_LINK = re.compile(r"^\[\[[^\[\]]*\]\]$")


@dataclass(frozen=True, slots=True)
class Date:
    """A date or date-time property, written unquoted so Obsidian types it as a date."""

    text: str


@dataclass(frozen=True, slots=True)
class Number:
    """A whole number property (one type across the vault: always a number)."""

    value: int


@dataclass(frozen=True, slots=True)
class Flag:
    """A checkbox property, written as YAML `true` / `false` (Media Extended reads
    `playlist: true` as a boolean, not as text)."""

    value: bool


@dataclass(frozen=True, slots=True)
class Link:
    """A link property, written as a quoted `"[[target]]"` (target: a vault path)."""

    target: str

    def text(self) -> str:
        return f"[[{label(self.target)}]]"


Item = str | Link
Value = str | Date | Number | Flag | Link | list[Item]
ReadValue = str | list[str]


def date_or_none(text: str | None) -> Date | None:
    """`YYYY-MM-DD` (or the date-time form) from an ISO text, else None."""
    if not text:
        return None
    value = text.strip()[:19].replace(" ", "T")
    if _DATE.match(value):
        return Date(value)
    return Date(value[:10]) if _DATE.match(value[:10]) else None


def _quoted(item: Item) -> str:
    text = item.text() if isinstance(item, Link) else property_text(item)
    return json.dumps(text, ensure_ascii=False)


def render_property(key: str, value: Value) -> list[str]:
    """The lines of one property."""
    if isinstance(value, list):
        if not value:
            return [f"{key}: []"]
        return [f"{key}:", *[f"  - {_quoted(item)}" for item in value]]
    if isinstance(value, Date):
        return [f"{key}: {value.text}"]
    if isinstance(value, Number):
        return [f"{key}: {value.value}"]
    if isinstance(value, Flag):
        return [f"{key}: {'true' if value.value else 'false'}"]
    return [f"{key}: {_quoted(value)}"]


def _canonical_item(item: Item) -> str:
    if isinstance(item, Link):
        return item.text()
    # A link read back from the file is text again; written text never holds a whole link.
    return item if _WHOLE_LINK.match(item) else property_text(item)


def canonical(value: Value | ReadValue) -> str:
    """The value as a string that does not depend on how it was quoted or listed."""
    if isinstance(value, list):
        return "\x1e".join(_canonical_item(v) for v in value)
    if isinstance(value, Link | str):
        return _canonical_item(value)
    if isinstance(value, Date):
        return value.text
    if isinstance(value, Flag):
        return "true" if value.value else "false"
    return str(value.value)


@dataclass(slots=True)
class Block:
    """One top-level property as written in the file: its key and its lines, verbatim."""

    key: str
    lines: list[str]

    def value(self) -> ReadValue:
        return _block_value(self.lines)


@dataclass(slots=True)
class Note:
    """A note split into its property blocks (None: no front matter) and its body."""

    blocks: list[Block] | None
    body: str
    preamble: list[str]  # lines before the first key (comments), kept verbatim

    def get(self, key: str) -> Block | None:
        for block in self.blocks or []:
            if block.key == key:
                return block
        return None

    def text(self, key: str) -> str | None:
        block = self.get(key)
        if block is None:
            return None
        value = block.value()
        return value if isinstance(value, str) else None


def split_note(text: str) -> Note:
    """Front matter blocks and body of a note's text (`\\r\\n` read as `\\n`)."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != _FENCE:
        return Note(None, text, [])
    for end in range(1, len(lines)):
        if lines[end].rstrip() in (_FENCE, "..."):
            break
    else:
        return Note(None, text, [])
    blocks: list[Block] = []
    preamble: list[str] = []
    for line in lines[1:end]:
        match = _KEY.match(line) if line[:1] not in (" ", "\t", "-", "#") else None
        if match:
            blocks.append(Block(_unquote_key(match.group(1)), [line]))
        elif blocks:
            blocks[-1].lines.append(line)
        else:
            preamble.append(line)
    return Note(blocks, "\n".join(lines[end + 1 :]), preamble)


def join_note(blocks: list[Block], body: str, preamble: list[str] | None = None) -> str:
    lines = [_FENCE, *(preamble or []), *[line for b in blocks for line in b.lines], _FENCE]
    return "\n".join(lines) + "\n" + body


def _unquote_key(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        return key[1:-1]
    return key.strip()


def _block_value(lines: list[str]) -> ReadValue:
    first = _KEY.match(lines[0])
    inline = (first.group(2) or "").strip() if first else ""
    rest = lines[1:]
    if inline in ("|", "|-", ">", ">-", "|+", ">+"):
        joiner = "\n" if inline.startswith("|") else " "
        return joiner.join(line.strip() for line in rest).strip()
    if inline.startswith("[") and inline.endswith("]"):
        return [_scalar(item) for item in _flow_items(inline[1:-1])]
    if inline and not inline.startswith("#"):
        return _scalar(inline)
    items = [line.strip()[1:].strip() for line in rest if line.strip().startswith("-")]
    if items:
        return [_scalar(item) for item in items]
    return ""


def _flow_items(text: str) -> list[str]:
    items, current, quote = [], "", ""
    for ch in text:
        if quote:
            current += ch
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current += ch
        elif ch == ",":
            items.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current.strip())
    return [item for item in items if item]


def _scalar(text: str) -> str:
    text = text.strip()
    if text.startswith('"'):
        end = text.rfind('"')
        try:
            return str(json.loads(text[: end + 1])) if end > 0 else text[1:]
        except ValueError:
            return text[1:end] if end > 0 else text[1:]
    if text.startswith("'"):
        end = text.rfind("'")
        return text[1:end].replace("''", "'") if end > 0 else text[1:]
    comment = text.find(" #")
    if comment >= 0:
        text = text[:comment].rstrip()
    return "" if text in ("~", "null", "Null", "NULL") else text
