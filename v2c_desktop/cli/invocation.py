"""How the user should type a v2c command here: `v2c`, `.venv/bin/v2c` or a full path.

Advice such as "next, try `v2c search ...`" only helps if the command works as printed. In
a fresh checkout the scripts live in `.venv/bin/`, which is not on the PATH; in an
activated venv or an installed package they are. So the advice names the script the way
this very process was installed: bare when the PATH finds the same file, else by the
shortest path that works from the current folder.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def scripts_dir() -> Path:
    """The folder holding this interpreter's console scripts (`v2c`, `v2c-desktop`)."""
    return Path(sys.executable).parent  # not resolved: a venv's python is a symlink


def command(script: str = "v2c") -> str:
    """What to type to run `script` from the current folder."""
    here = scripts_dir() / script
    found = shutil.which(script)
    if found and here.exists() and _same(Path(found), here):
        return script
    if not here.exists():
        return script  # not installed as scripts (a bundle, `python -m`): the plain name
    try:
        relative = here.relative_to(Path.cwd())
    except ValueError:
        return str(here)
    return str(relative) if os.sep in str(relative) else f".{os.sep}{relative}"


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False
