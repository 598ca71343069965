"""Untrusted text (titles, transcripts, quotes, model output) made plain in a note.

Obsidian and its plugins act on raw text: Templater runs `<% ... %>`, Dataview reads
`key:: value` and fenced queries, Obsidian itself hides `%% ... %%`, makes `[[x]]` a link,
`![[x]]` an embed, `#word` a tag and ` ^id` a block id, and renders HTML. Escaping every such
character with a backslash keeps the words readable in reading view and breaks each raw
sequence, so a scanner that ignores Markdown escapes finds nothing to run either. Text is
flattened to one line so it can never start a fence, a `---` or a heading.
"""

from __future__ import annotations

import re
import unicodedata

_MARKUP = re.compile(r"([\\`*_\[\]<>{}|#~=$%^&!])")
_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(//)")
_WWW = re.compile(r"(?i)\bwww\.")
#: At the start of a line these begin a list, a quote, a rule or a numbered item.
_LEADING = re.compile(r"^([-+>]|\d+[.)])")


#: The ASCII control characters `str.isspace` does not count as space (the rest of
#: ASCII has no format or unassigned characters): what `_one_line` drops from ASCII text.
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")


def _one_line(text: str) -> str:
    """Whitespace (every kind Python knows, including U+2028) collapsed to single spaces;
    control and format characters (bidi overrides, zero-width) dropped."""
    text = str(text)
    if text.isascii():  # most captions: one regex instead of a look-up per character
        kept = _ASCII_CONTROL.sub("", text)
    else:
        kept = "".join(
            ch
            for ch in text
            if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Cn") or ch.isspace()
        )
    return " ".join(kept.split())


def inert(text: str) -> str:
    """`text` as plain words on one line of a note body: nothing in it links, embeds,
    tags, templates, queries, comments out or renders as HTML."""
    out = _MARKUP.sub(r"\\\1", _one_line(text))
    out = out.replace("::", r"\:\:")  # Dataview inline fields
    out = _SCHEME.sub(lambda m: m.group(1) + ":\\/\\/", out)  # bare URLs would link
    out = _WWW.sub(lambda m: m.group(0)[:3] + "\\.", out)
    return _LEADING.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], out)


def label(text: str) -> str:
    """Text for the label of a `[[target|label]]` link, where escapes do not work: the
    characters that would end or split the link are dropped instead."""
    return " ".join(re.sub(r"[\[\]|#^%]", " ", _one_line(text)).split())


def property_text(text: str) -> str:
    """A property value: one line, and no `[[` / `]]` (a property turns those into links).

    YAML quoting is the writer's job (`frontmatter.py`); this only keeps the value a value.
    """
    out = _one_line(text)
    while "[[" in out or "]]" in out:
        out = out.replace("[[", "[ [").replace("]]", "] ]")
    return out
