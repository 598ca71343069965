"""The core, the CLI and the MCP server work without Qt: import them with PySide6 blocked."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

BLOCKED_IMPORT_CHECK = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    class BlockQt:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "qasync"):
                raise ImportError(f"{name} is blocked: core and cli must not import Qt")
            return None

    sys.meta_path.insert(0, BlockQt())
    try:
        import PySide6  # the blocker itself must work, or this test proves nothing
    except ImportError:
        pass
    else:
        raise SystemExit("PySide6 imported despite the blocker")
    import v2c_desktop.core, v2c_desktop.cli, v2c_desktop.mcp
    names = []
    for package in (v2c_desktop.core, v2c_desktop.cli, v2c_desktop.mcp):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
            names.append(info.name)
    import v2c_desktop.cli.main
    assert not any(m.startswith("PySide6") for m in sys.modules)
    print(len(names))
    """
)


def test_core_cli_and_mcp_import_without_qt() -> None:
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED_IMPORT_CHECK],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) > 20  # every module was really imported


#: What a face (the app, the CLI, the MCP server) may import of the core: the one door and
#: the API, the domain types and each feature's wire types, and pure helpers over them
#: (errors, paths, settings, times, deep links, renderers). Anything else is the core's
#: insides: services, the store, the search engine, model runtimes, the importers.
FACE_MAY_IMPORT = (
    "v2c_desktop.core.api",
    "v2c_desktop.core.open",
    "v2c_desktop.core.domain",
    "v2c_desktop.core.errors",
    "v2c_desktop.core.progress",
    "v2c_desktop.core.paths",
    "v2c_desktop.core.settings",
    "v2c_desktop.core.mcp_tokens",  # the MCP HTTP server's tokens, in the settings
    "v2c_desktop.core.timecode",
    "v2c_desktop.core.plain_text",
    "v2c_desktop.core.ids",
    "v2c_desktop.core.file_kinds",
    "v2c_desktop.core.ask.events",
    "v2c_desktop.core.search.request",
    "v2c_desktop.core.briefs.events",
    "v2c_desktop.core.export.events",
    "v2c_desktop.core.moments.events",
    "v2c_desktop.core.briefs.render",
    # a digest runs where the model it borrows is (an MCP client's, through sampling): the
    # brief pipeline over records the face read through the API, never the store
    "v2c_desktop.core.briefs.digest",
    "v2c_desktop.core.render",
    "v2c_desktop.core.gather",
)
#: Packages whose every module a face may import (the others above are single modules).
FACE_MAY_IMPORT_PACKAGES = (
    "v2c_desktop.core.domain",
    "v2c_desktop.core.render",
    "v2c_desktop.core.gather",
)
#: Modules a face may take only these names from. `core.owner` also re-exports
#: `open_session`, `OwnerServer` and the codec's `register`: with them a face could open a
#: library past `core.open.open_api`, or serve one. The faces need the session's type (what
#: `open_api` returns) and the connected-client record the app lists, nothing else.
FACE_MAY_IMPORT_NAMES = {
    "v2c_desktop.core.owner": frozenset({"Session", "ConnectedClient"}),
}
#: Names no face imports from anywhere in the core: each opens or serves a library by hand.
NEVER_IN_A_FACE = frozenset(
    {"open_session", "OwnerServer", "OwnerClient", "Services", "LibraryStore", "open_library"}
)
FACES = ("cli", "mcp", "ui")


@dataclass(frozen=True)
class CoreImport:
    """One import of the core by a file: `name` is None when a module itself is imported
    (`import a.b`, `from a import b` where `a.b` is a module)."""

    line: int
    module: str
    name: str | None = None

    def __str__(self) -> str:
        return self.module if self.name is None else f"{self.module}.{self.name}"


def module_name_of(path: Path) -> str:
    """`v2c_desktop/ui/panes/library/pane.py` -> `v2c_desktop.ui.panes.library.pane`."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    base = REPO.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a `from` import names; relative ones are resolved as Python does."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if node.level - 1 > len(package):
        raise ValueError(f"{module}: a relative import beyond the top-level package")
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def core_imports_of(path: Path, module: str | None = None) -> list[CoreImport]:
    """Every import of `v2c_desktop.core...` in a file, relative imports resolved against
    `module` (the file's own dotted name; derived from its place in the repo by default)."""
    module = module or module_name_of(path)
    is_package = path.name == "__init__.py"
    found: list[CoreImport] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, is_package)
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if _is_core(target) and _is_module(target):  # `from a import module`
                    found.append(CoreImport(node.lineno, target))
                elif _is_core(source):
                    found.append(CoreImport(node.lineno, source, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_core(alias.name):
                    found.append(CoreImport(node.lineno, alias.name))
    return found


def _is_core(module: str) -> bool:
    return module == "v2c_desktop.core" or module.startswith("v2c_desktop.core.")


def _allowed(found: CoreImport) -> bool:
    if found.name in NEVER_IN_A_FACE:
        return False
    names = FACE_MAY_IMPORT_NAMES.get(found.module)
    if names is not None:  # only these names, never the module itself
        return found.name in names
    if found.module in FACE_MAY_IMPORT:
        return True
    return any(found.module.startswith(package + ".") for package in FACE_MAY_IMPORT_PACKAGES)


@pytest.mark.parametrize("face", FACES)
def test_a_face_reaches_the_core_only_through_its_door(face: str) -> None:
    package = REPO / "v2c_desktop" / face
    seen = bad = 0
    problems = []
    for path in sorted(package.rglob("*.py")):
        for found in core_imports_of(path):
            seen += 1
            if not _allowed(found):
                bad += 1
                problems.append(f"{path.relative_to(REPO)}:{found.line}: {found}")
    assert seen > 10  # the check reads the imports it should
    assert not bad, "\n".join(problems)


def test_the_allow_list_check_catches_an_import_of_the_insides(tmp_path: Path) -> None:
    sneaky = tmp_path / "pane.py"
    sneaky.write_text(
        "from v2c_desktop.core.store import open_library\n"
        "import v2c_desktop.core.models.registry\n"
        "from v2c_desktop.core.domain.videos import Video\n"
        "from v2c_desktop.core.owner import Session, open_session\n"
        "from v2c_desktop.core.owner.server import OwnerServer\n"
        "import v2c_desktop.core.owner\n"
        "from v2c_desktop.core import owner, api\n"
        "from v2c_desktop.core.open import open_api\n"
        "from v2c_desktop.core.gather.videos import InputFailure\n",
        encoding="utf-8",
    )
    found = core_imports_of(sneaky, "v2c_desktop.ui.panes.pane")
    assert [str(f) for f in found if not _allowed(f)] == [
        "v2c_desktop.core.store.open_library",
        "v2c_desktop.core.models.registry",
        "v2c_desktop.core.owner.open_session",
        "v2c_desktop.core.owner.server.OwnerServer",
        "v2c_desktop.core.owner",
        "v2c_desktop.core.owner",
    ]
    assert [str(f) for f in found if _allowed(f)] == [
        "v2c_desktop.core.domain.videos.Video",
        "v2c_desktop.core.owner.Session",
        "v2c_desktop.core.api",
        "v2c_desktop.core.open.open_api",
        "v2c_desktop.core.gather.videos.InputFailure",
    ]


def test_the_allow_list_check_resolves_relative_imports(tmp_path: Path) -> None:
    """A face module reaching the core by `..` is the same import as by its full name."""
    sneaky = tmp_path / "pane.py"
    sneaky.write_text(
        "from ....core.store import open_library\n"  # v2c_desktop.ui.panes.library -> v2c_desktop
        "from ....core import store\n"
        "from ....core.owner import open_session\n"
        "from ....core.domain.videos import Video\n"
        "from ...bridge import JobRunner\n",  # the face's own module: none of the check's business
        encoding="utf-8",
    )
    found = core_imports_of(sneaky, "v2c_desktop.ui.panes.library.pane")
    assert [(str(f), _allowed(f)) for f in found] == [
        ("v2c_desktop.core.store.open_library", False),
        ("v2c_desktop.core.store", False),
        ("v2c_desktop.core.owner.open_session", False),
        ("v2c_desktop.core.domain.videos.Video", True),
    ]
    package = tmp_path / "__init__.py"  # in a package's __init__, `.` is the package itself
    package.write_text("from ...core.errors import V2CError\nfrom ...core import services\n")
    found = core_imports_of(package, "v2c_desktop.ui.panes")
    assert [(str(f), _allowed(f)) for f in found] == [
        ("v2c_desktop.core.errors.V2CError", True),
        ("v2c_desktop.core.services", False),
    ]


def core_api_checks_in(source: str) -> list[int]:
    """Lines that test whether a value is a `CoreAPI` (the real core, not the owner's proxy):
    `isinstance`/`issubclass` (also with a tuple, a module prefix or an alias of the name),
    `type(x) is/== CoreAPI`, and `case CoreAPI():`."""
    tree = ast.parse(source)
    names = {"CoreAPI"}
    for node in ast.walk(tree):  # `from ...api import CoreAPI as Core`
        if isinstance(node, ast.ImportFrom):
            names |= {a.asname for a in node.names if a.name == "CoreAPI" and a.asname}

    def names_it(node: ast.AST) -> bool:
        if isinstance(node, ast.Tuple):
            return any(names_it(item) for item in node.elts)
        if isinstance(node, ast.Name):
            return node.id in names
        return isinstance(node, ast.Attribute) and node.attr in names

    def is_type_call(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "type"
        )

    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
            and names_it(node.args[1])
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(is_type_call(s) for s in sides) and any(names_it(s) for s in sides):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchClass) and names_it(node.cls):
            lines.append(node.lineno)
    return sorted(lines)


def test_no_face_checks_whether_it_holds_the_real_core() -> None:
    """`isinstance(api, CoreAPI)` was how a face reached past the API into services."""
    found = []
    for face in FACES:
        for path in sorted((REPO / "v2c_desktop" / face).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(REPO)}:{line}" for line in core_api_checks_in(text)]
            assert ".services." not in text and "api.services" not in text, path
    assert not found, found


def test_the_core_api_check_sees_every_spelling() -> None:
    source = textwrap.dedent(
        """
        from v2c_desktop.core import api as core_api
        from v2c_desktop.core.api import CoreAPI as Core

        def f(session, other):
            if isinstance(session.api, CoreAPI): ...
            if isinstance(other, (str, core_api.CoreAPI)): ...
            if issubclass(type(other), Core): ...
            if type(session.api) is CoreAPI: ...
            if CoreAPI == type(other): ...
            match session.api:
                case CoreAPI():
                    pass
            if isinstance(other, str) or hasattr(CoreAPI, "ask"): ...
        """
    )
    assert core_api_checks_in(source) == [6, 7, 8, 9, 10, 12]


#: What a client command must not load: the storage, model, web, MCP and Qt runtimes (each
#: costs a tenth of a second or more of CPU at import; the owner has them loaded already).
HEAVY = (
    "duckdb",
    "numpy",
    "llama_cpp",
    "yt_dlp",
    "httpx",
    "onnxruntime",
    "mcp",
    "PySide6",
    "faster_whisper",
    "av",
)
#: The core's insides: only the owner builds them, and `core.api` imports them inside the
#: method that needs them, so a client (the proxy over the same API) never loads them.
INSIDES = (
    "v2c_desktop.core.services",
    "v2c_desktop.core.store",
    "v2c_desktop.core.library",
    "v2c_desktop.core.importers",
    "v2c_desktop.core.models",
    "v2c_desktop.core.search.engine",
    "v2c_desktop.core.search.indexer",
    "v2c_desktop.core.ask.service",
    "v2c_desktop.core.briefs.service",
    "v2c_desktop.core.export.service",
    "v2c_desktop.core.moments.service",
    "v2c_desktop.core.notion",
    "v2c_desktop.core.sponsor",
    "v2c_desktop.core.stt",
    "v2c_desktop.core.caption_tracks",
)


def _under(module: str, roots: tuple[str, ...]) -> bool:
    return any(module == root or module.startswith(root + ".") for root in roots)


def test_a_command_that_is_a_client_imports_none_of_the_heavy_runtimes() -> None:
    """`v2c list` while the app owns the library must start in a fraction of a second:
    the CLI and CoreAPI import no storage, model or web runtime and none of the core's
    insides (bench/cli_startup_bench.py measures the CPU it costs)."""
    code = (
        "import sys\n"
        "import v2c_desktop.cli.main, v2c_desktop.core.api, v2c_desktop.core.open\n"
        "import v2c_desktop.core.owner\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = done.stdout.split()
    assert "v2c_desktop.core.api" in loaded  # the check reads what it should
    assert [m for m in loaded if _under(m, HEAVY + INSIDES)] == []


def imported_by(stderr: str) -> list[str]:
    """The modules `python -X importtime` reports (`import time: self | cumulative | name`)."""
    names = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "package":  # the header row
                names.append(name)
    return names


def test_v2c_list_as_a_client_of_a_running_owner_loads_no_heavy_runtime(tmp_path: Path) -> None:
    """A real `v2c list` in a fresh interpreter, while another process owns the library: it
    lists the library through the owner without importing any heavy runtime on the way."""
    from tests.unit.owner.toys import remove_dir, short_dir
    from v2c_desktop.resources import sample_dir

    runtime = short_dir()
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    library = tmp_path / "lib.duckdb"
    v2c = [sys.executable, "-m", "v2c_desktop.cli.main"]
    #: what the installed `v2c` script runs (`-m` would run main.py as `__main__`)
    entry = "import sys; from v2c_desktop.cli.main import main; sys.exit(main())"
    subprocess.run(
        [*v2c, "add", str(sample_dir()), "--no-index", "--library", str(library)],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=True,
        timeout=300,
    )
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.support.library_session", "owner", "--library", str(library)],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert owner.stdout is not None and owner.stdin is not None
        ready = json.loads(owner.stdout.readline())
        assert ready == {"event": "ready", "role": "owner", "pid": owner.pid}
        runs = {
            "list": ["list", "--json", "--library", str(library)],
            "--help": ["--help"],
        }
        for name, words in runs.items():
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", entry, *words],
                cwd=REPO,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            loaded = imported_by(done.stderr)
            assert "v2c_desktop.cli.main" in loaded  # importtime reported what it should
            if name == "list":  # it asked the owner, over the socket
                assert "v2c_desktop.core.owner.client" in loaded
            assert [m for m in loaded if _under(m, HEAVY + INSIDES)] == [], name
        listed = json.loads(
            subprocess.run(
                [*v2c, *runs["list"]], cwd=REPO, env=env, capture_output=True, text=True, check=True
            ).stdout
        )
        assert "youtube:spCOYV4KyPA" in json.dumps(listed)  # the owner's library, listed
    finally:
        if owner.stdin is not None:
            owner.stdin.close()
        owner.wait(timeout=60)
        remove_dir(runtime)
