"""docs/architecture.md stays true: every module or folder it names exists."""

from __future__ import annotations

import re

from tests.conftest import REPO

NAMED = re.compile(r"`((?:core|cli|mcp|ui)/[A-Za-z0-9_/]*(?:\.py|/))")
#: Inside a row about a core package, modules are named from that package down.
IN_CORE = re.compile(
    r"`((?:store|search|models|ask|importers|owner|render|gather|domain|captions)/"
    r"[A-Za-z0-9_/]*\.py)"
)


def test_every_module_the_architecture_names_exists() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(NAMED.findall(text)) | {f"core/{p}" for p in IN_CORE.findall(text)}
    assert len(named) > 25  # the test reads the names it should
    missing = sorted(p for p in named if not (REPO / "v2c_desktop" / p).exists())
    assert not missing, missing
