"""docs/architecture.md stays true: every module, folder and code name it gives exists where
it says.

A table row is about the package(s) in its first cell: a bare or relative path in the row
(`service.py`, `web/tracks.py`, `panes/library/`, `models/llamacpp/prefill_speed.py`) is
looked for under that package, under a folder the row named before it, or under their
parents; a bare name in backticks (`LibraryStore`, `refresh_due`) must be defined in the
modules the row is about or names. A dotted name (`CoreAPI.changes`, `server.USER_FILE_TOOLS`,
`importers/inputs.plan_inputs`) must be a member of the class or module it names. Outside the
table a name may live anywhere in the package. The allow-list and heavy-runtime summaries
must say what tests/unit/test_layers.py enforces, no more and no less.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tests.conftest import REPO
from tests.unit.test_layers import (
    FACE_MAY_IMPORT,
    FACE_MAY_IMPORT_NAMES,
    FACE_MAY_IMPORT_PACKAGES,
    HEAVY,
    NEVER_IN_A_FACE,
)

DOC = REPO / "docs" / "architecture.md"
PACKAGE = REPO / "v2c_desktop"
TICKED = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_/]*(?:\.py|/)$")
MODULE_MEMBER = re.compile(r"^([A-Za-z0-9_]+(?:/[A-Za-z0-9_]+)+)\.([A-Za-z_]\w*)$")
NAME = re.compile(r"^@?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?(?:\.\*)?$")
#: Words in backticks that name no Python: the command, HTTP headers, a DOM property.
NOT_PYTHON = frozenset({"v2c", "Host", "Origin", "textContent", "isinstance"})


@dataclass
class Unit:
    """A stretch of the doc whose relative names share a scope: a table row, or prose."""

    where: str
    text: str
    scope: list[Path] = field(default_factory=list)  # folders or files under PACKAGE


def units() -> list[Unit]:
    found: list[Unit] = []
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), 1):
        where = f"architecture.md:{number}"
        if line.startswith("|") and not set(line) <= set("|- "):
            first = line.split("|")[1]
            scope = [PACKAGE / p for p in TICKED.findall(first) if PATH.match(p)]
            if scope:  # a row about modules (not the header)
                found.append(Unit(where, line, scope))
        elif line.strip():
            found.append(Unit(where, line))
    return found


def _folders(paths: list[Path]) -> list[Path]:
    """Each folder a relative name may be under: the folders named and their parents."""
    bases: list[Path] = []
    for path in paths:
        folder = path if path.is_dir() else path.parent
        while folder != PACKAGE.parent:
            bases.append(folder)
            folder = folder.parent
    return bases


def resolve(token: str, unit: Unit, named: list[Path]) -> Path | None:
    top = token.split("/")[0]
    if top in ("core", "cli", "mcp", "ui"):
        return PACKAGE / token if (PACKAGE / token).exists() else None
    if top in ("tests", "bench", "docs", "scripts"):  # beside the package
        return REPO / token if (REPO / token).exists() else None
    for base in _folders(unit.scope + named) or [PACKAGE / "core"]:
        if (base / token).exists():
            return base / token
    return None


@dataclass
class Definitions:
    """What a module defines: top-level names, and the members of each class."""

    names: set[str] = field(default_factory=set)
    classes: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    text: str = ""


@cache
def definitions(path: Path) -> Definitions:
    text = path.read_text(encoding="utf-8")
    found = Definitions(text=text)
    tree = ast.parse(text)

    def targets(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Assign):
            return [t.id for t in node.targets if isinstance(t, ast.Name)]
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            return [node.target.id]
        return []

    for node in tree.body:
        found.names.update(targets(node))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.names.add(node.name)
            found.names.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, ast.ClassDef):
            found.names.add(node.name)
            members = found.classes[node.name]
            for item in ast.walk(node):
                members.update(targets(item))
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    members.add(item.name)
                    found.names.update(a.arg for a in ast.walk(item.args) if isinstance(a, ast.arg))
                elif isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store):
                    members.add(item.attr)  # self.x = ...
        elif isinstance(node, ast.ImportFrom) and path.name == "__init__.py":
            found.names.update(a.asname or a.name for a in node.names)  # a package's face
    return found


def modules_under(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.rglob("*.py"))
        elif path.suffix == ".py":
            found.append(path)
    return found


ALL_MODULES = modules_under([PACKAGE])


def _module_for(dotted: str) -> Path | None:
    """`core.open` -> v2c_desktop/core/open.py (a package: its __init__.py)."""
    base = PACKAGE.joinpath(*dotted.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def defined(name: str, modules: list[Path]) -> bool:
    """A bare name: defined in one of `modules` (or said there, for strings and env vars)."""
    if any(name in definitions(m).names for m in modules):
        return True
    if any(path.stem == name or path.parent.name == name for path in modules):
        return True  # a module named in passing (`errors`, `render`)
    return any(re.search(rf"\b{re.escape(name)}\b", definitions(m).text) for m in modules)


def dotted_is_real(dotted: str) -> bool:
    """`core.open`, `core.open.open_api`, `CoreAPI.changes`, `server.USER_FILE_TOOLS`;
    `briefs.digest` is read as `core.briefs.digest` when that is a module."""
    if not dotted.startswith("core.") and _module_for("core." + dotted) is not None:
        dotted = "core." + dotted
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a module
        module = _module_for(".".join(parts[:cut]))
        if module is not None:
            rest = parts[cut:]
            return not rest or _member(definitions(module), rest)
    owner, rest = parts[0], parts[1:]
    for path in ALL_MODULES:
        found = definitions(path)
        if owner in found.classes and _member(found, [owner, *rest]):
            return True
        names = (path.stem, path.parent.name if path.name == "__init__.py" else "")
        if owner in names and _member(found, rest):
            return True
    return False


def _member(found: Definitions, parts: list[str]) -> bool:
    if len(parts) == 1:
        return parts[0] in found.names or any(parts[0] in m for m in found.classes.values())
    owner, member = parts[0], parts[1]
    if owner in found.classes:
        return member in found.classes[owner]
    return any(member in m for m in found.classes.values())  # an instance attribute's member


def problems_in(unit: Unit) -> list[str]:
    problems: list[str] = []
    named: list[Path] = []  # paths the unit named so far: later relative names may use them
    for token in TICKED.findall(unit.text):
        if PATH.match(token):
            path = resolve(token, unit, named)
            if path is None:
                problems.append(f"{unit.where}: no module or folder `{token}`")
            else:
                named.append(path)
            continue
        if match := MODULE_MEMBER.match(token):  # `importers/inputs.plan_inputs`
            path = resolve(match.group(1) + ".py", unit, named)
            if path is None or not defined(match.group(2), [path]):
                problems.append(f"{unit.where}: `{token}` is not a name in that module")
            continue
        match = NAME.match(token)
        if match is None or match.group(1) in NOT_PYTHON:
            continue  # prose in backticks: a command line, a URL, a key, a value
        name = match.group(1)
        if "." in name:
            if not dotted_is_real(name):
                problems.append(f"{unit.where}: `{token}` names nothing in the package")
        elif unit.scope:
            modules = modules_under(unit.scope + named)
            if not defined(name, modules):
                problems.append(f"{unit.where}: `{token}` is not in the row's modules")
        elif not defined(name, ALL_MODULES):
            problems.append(f"{unit.where}: `{token}` names nothing in the package")
    return problems


def test_every_module_and_name_the_architecture_gives_exists() -> None:
    every = units()
    named = [t for u in every for t in TICKED.findall(u.text)]
    assert len(every) > 40 and len(named) > 200  # the test reads what it should
    problems = [p for unit in every for p in problems_in(unit)]
    assert not problems, "\n".join(problems)


def test_the_check_fails_an_untrue_name() -> None:
    row = "| `core/store/` | `database.py` (`LibraryStore`), `bm25.py`, `nope.py`, `Missing` |"
    unit = Unit("row", row, [PACKAGE / "core" / "store"])
    assert problems_in(unit) == [
        "row: no module or folder `nope.py`",
        "row: `Missing` is not in the row's modules",
    ]
    row = "| `core/ask/` | `SearchEngine` (`search/engine.py`), `models/llamacpp/nope.py` |"
    assert problems_in(Unit("row", row, [PACKAGE / "core" / "ask"])) == [
        "row: no module or folder `models/llamacpp/nope.py`",  # `SearchEngine`: named after
    ]
    row = "| `mcp/` | `tools/viewer.py` (`open_transcript_viewer`), `tools/viewer.py` (`Nope`) |"
    assert problems_in(Unit("row", row, [PACKAGE / "mcp"])) == [
        "row: `Nope` is not in the row's modules"
    ]
    prose = (
        "`LibraryStore.save_video`, `LibraryStore.save_all`, `importers/inputs.plan_inputs`, "
        "`importers/inputs.plan_everything`, `core.open.open_api`, `core.opener`"
    )
    assert problems_in(Unit("prose", prose)) == [
        "prose: `LibraryStore.save_all` names nothing in the package",
        "prose: `importers/inputs.plan_everything` is not a name in that module",
        "prose: `core.opener` names nothing in the package",
    ]


def _said(starting: str, ending: str) -> set[str]:
    """What the doc puts in backticks from `starting` up to `ending`."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(starting)
    return set(TICKED.findall(text[start : text.index(ending, start)]))


def test_the_allow_list_summary_is_the_one_the_layer_test_enforces() -> None:
    said = _said("- it holds each face to an allow-list", "\n- it fails on any")
    modules = {
        m.removeprefix("v2c_desktop.") + (".*" if m in FACE_MAY_IMPORT_PACKAGES else "")
        for m in (*FACE_MAY_IMPORT, *FACE_MAY_IMPORT_NAMES)
    }
    core = {t for t in said if t.startswith("core.")}
    assert core == modules, (sorted(core - modules), sorted(modules - core))
    names = {n for allowed in FACE_MAY_IMPORT_NAMES.values() for n in allowed}
    assert names <= said
    assert said & NEVER_IN_A_FACE  # it says which names are refused


def test_the_heavy_runtimes_the_doc_names_are_the_ones_the_test_checks() -> None:
    said = _said("- it runs a client command", "\n\n")
    assert said >= set(HEAVY), sorted(set(HEAVY) - said)
    extra = said - set(HEAVY)
    assert extra <= {"v2c list", "v2c --help", "python -X importtime", "bench/cli_startup_bench.py"}


def test_a_named_path_resolves_where_the_row_says(tmp_path: Path) -> None:
    """Bare names resolve against the row's package first: `service.py` in the briefs row
    is core/briefs/service.py, not some other package's."""
    unit = Unit("row", "| `core/briefs/` | `service.py` |", [PACKAGE / "core" / "briefs"])
    assert resolve("service.py", unit, []) == PACKAGE / "core" / "briefs" / "service.py"
    unit = Unit("row", "| `core/render/` | `service.py` |", [PACKAGE / "core" / "render"])
    assert resolve("service.py", unit, []) is None
