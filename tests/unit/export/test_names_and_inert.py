"""Hostile titles become portable names; hostile text stays text in a note."""

from __future__ import annotations

import re

import pytest

from v2c_desktop.core.export.inert import inert, label, property_text
from v2c_desktop.core.export.names import NameBook, safe_name

HOSTILE_TITLES = [
    "../../../etc/passwd",
    "/absolute/path",
    "C:\\Windows\\system32",
    "CON",
    "con.txt",
    "LPT1",
    "a" * 600,
    "é" * 300,
    "   ...   ",
    "",
    'x<y>z:"w"/v\\u|t?s*r',
    "#tag [[link]] ^block | pipe",
    "\u202eevil\u200b\x00\x07",
    ".hidden",
    "trailing dots...",
]


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_a_hostile_title_becomes_one_portable_name(title: str) -> None:
    name = safe_name(title)
    assert name
    assert not set(name) & set('<>:"/\\|?*#^[]%\x00\x07\u202e\u200b')
    assert name == name.strip(" .")
    assert not name.startswith(".")
    assert name.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL", "LPT1"}
    assert len(name) <= 100
    assert len(name.encode("utf-8")) <= 180


def test_exact_names() -> None:
    assert safe_name("Intro to Psychology: Crash Course Psychology #1") == (
        "Intro to Psychology - Crash Course Psychology 1"
    )
    assert safe_name("CON") == "_CON"
    assert safe_name("   ...   ") == "Untitled"
    assert safe_name("../../x") == "x"


def test_collisions_get_the_id_then_a_counter_case_insensitively() -> None:
    book = NameBook()
    book.take("v2c/Videos/Talk.md")
    assert book.claim("v2c/Videos", "talk", "youtube:abcdefghijk") == (
        "v2c/Videos/talk (abcdefghijk).md"
    )
    assert book.claim("v2c/Videos", "TALK", "youtube:abcdefghijk") == (
        "v2c/Videos/TALK (abcdefghijk 2).md"
    )


HOSTILE_TEXT = {
    "fence": "```dataview\nTABLE file.name\n```",
    "templater": "<% tp.system.prompt('x') %>",
    "templater-exec": "<%* await tp.file.rename('x') %>",
    "dataview-field": "rating:: 5",
    "dataview-inline": "`= this.file.name` and `$= dv.pages()`",
    "wikilink": "[[Secret note]]",
    "embed": "![[image.png]]",
    "link": "[click](https://evil.example)",
    "html": "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "comment": "%% hidden %% text",
    "rule": "---",
    "tag": "#tag",
    "block": "text ^fake-block",
    "url": "see https://evil.example/x and www.evil.example",
    "heading": "# Heading\n## another",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXT))
def test_hostile_text_is_inert(name: str) -> None:
    out = inert(HOSTILE_TEXT[name])
    assert "\n" not in out
    for raw in ("```", "<%", "%%", "::", "[[", "`=", "://", "www."):
        assert raw not in out, (name, raw, out)
    unescaped = re.findall(r"(?<!\\)[\[\]<>`%#^!|]", out)
    assert not unescaped, (name, out)
    assert not out.startswith(("#", "-"))


def test_inert_keeps_the_words_readable() -> None:
    assert inert("Freud's Death & Legacy\n  at 10:30") == r"Freud's Death \& Legacy at 10:30"
    assert inert("a [[b]]") == r"a \[\[b\]\]"


def test_link_labels_and_property_text_cannot_form_links() -> None:
    assert label("a|b]]c[[d#e^f") == "a b c d e f"
    assert property_text("see [[x]]\nnext") == "see [ [x] ] next"
