"""The core, the CLI and the MCP server work without Qt: import them with PySide6 blocked."""

from __future__ import annotations

import subprocess
import sys
import textwrap

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
