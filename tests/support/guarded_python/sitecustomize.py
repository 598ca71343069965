"""Run at start-up by every Python process a test starts (this folder is on its PYTHONPATH).

It installs the test network guard before any code runs, so a `v2c` command, an MCP server
or an owner worker started by a test cannot reach the internet either.
"""

import sys
from pathlib import Path

_REPO = str(Path(__file__).resolve().parents[3])
if _REPO not in sys.path:
    sys.path.append(_REPO)

from tests.support.network_guard import install  # noqa: E402

install(to_log=True)
