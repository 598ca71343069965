"""The MCP configuration a user pastes into Claude Desktop or Cursor, built from facts.

Agents start `v2c mcp --library <path>` as a subprocess. The command is the absolute path
of the `v2c` executable next to this Python (a virtualenv's `bin/`, or the app bundle's
folder, where the build puts both programs), so the agent finds it without any PATH.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CLAUDE_DESKTOP_FILE = "claude_desktop_config.json"
CURSOR_FILE = ".cursor/mcp.json"


def v2c_executable() -> Path:
    """`v2c` beside `sys.executable` (absolute, symlinks kept: a venv's python is one)."""
    name = "v2c.exe" if sys.platform == "win32" else "v2c"
    return Path(sys.executable).absolute().with_name(name)


def mcp_servers(library: Path, command: Path | None = None) -> dict[str, object]:
    command = command or v2c_executable()
    entry = {"command": str(command), "args": ["mcp", "--library", str(library)]}
    return {"mcpServers": {"v2c": entry}}


def snippet(library: Path, command: Path | None = None) -> str:
    """`mcp_servers` as indented JSON with the argument list on one line (easier to read)."""
    entry = mcp_servers(library, command)["mcpServers"]["v2c"]  # type: ignore[index]
    return "\n".join(
        [
            "{",
            '  "mcpServers": {',
            '    "v2c": {',
            f'      "command": {json.dumps(entry["command"])},',
            f'      "args": {json.dumps(entry["args"])}',
            "    }",
            "  }",
            "}",
        ]
    )


def claude_desktop_snippet(library: Path, command: Path | None = None) -> str:
    return snippet(library, command)


def cursor_snippet(library: Path, command: Path | None = None) -> str:
    """Cursor reads the same `mcpServers` object from `.cursor/mcp.json`."""
    return snippet(library, command)
