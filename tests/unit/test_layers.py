"""The core, the CLI and the MCP server work without Qt: import them with PySide6 blocked."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
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
    "v2c_desktop.core.owner",  # the package face: Session and ConnectedClient, for typing
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
FACES = ("cli", "mcp", "ui")


def _allowed(module: str) -> bool:
    for allowed in FACE_MAY_IMPORT:
        if module == allowed:
            return True
        is_package = allowed.rsplit(".", 1)[-1] in ("domain", "render", "gather")
        if is_package and module.startswith(allowed + "."):
            return True
    return False


def core_imports_of(path: Path) -> list[tuple[int, str]]:
    """Every `v2c_desktop.core...` module a file imports (absolute imports: faces use those)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.startswith("v2c_desktop.core"):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("v2c_desktop.core"):
                    found.append((node.lineno, alias.name))
    return found


@pytest.mark.parametrize("face", FACES)
def test_a_face_reaches_the_core_only_through_its_door(face: str) -> None:
    package = REPO / "v2c_desktop" / face
    bad = [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for path in sorted(package.rglob("*.py"))
        for line, module in core_imports_of(path)
        if not _allowed(module)
    ]
    assert not bad, "\n".join(bad)


def test_the_allow_list_check_catches_an_import_of_the_insides(tmp_path: Path) -> None:
    sneaky = tmp_path / "pane.py"
    sneaky.write_text(
        "from v2c_desktop.core.store import open_library\n"
        "import v2c_desktop.core.models.registry\n"
        "from v2c_desktop.core.domain.videos import Video\n",
        encoding="utf-8",
    )
    modules = [m for _, m in core_imports_of(sneaky)]
    assert [m for m in modules if not _allowed(m)] == [
        "v2c_desktop.core.store",
        "v2c_desktop.core.models.registry",
    ]


def test_no_face_checks_whether_it_holds_the_real_core() -> None:
    """`isinstance(api, CoreAPI)` was how a face reached past the API into services."""
    for face in FACES:
        for path in (REPO / "v2c_desktop" / face).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "isinstance(api, CoreAPI)" not in text, path
            assert ".services." not in text and "api.services" not in text, path


def test_a_command_that_is_a_client_imports_none_of_the_heavy_runtimes() -> None:
    """`v2c list` while the app owns the library must start in a fraction of a second:
    the CLI and CoreAPI import no storage, model or web runtime (bench/cli_startup_bench.py
    measures the CPU it costs)."""
    code = (
        "import sys\n"
        "import v2c_desktop.cli.main, v2c_desktop.core.api, v2c_desktop.core.open\n"
        "import v2c_desktop.core.owner\n"
        "heavy = ('duckdb', 'numpy', 'llama_cpp', 'yt_dlp', 'httpx', 'onnxruntime', 'mcp')\n"
        "print(' '.join(sorted(m for m in heavy if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "", done.stdout
