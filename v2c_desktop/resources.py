"""Where the bundled resources (samples, icons, the player page) are, in a checkout or a bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)  # PyInstaller unpacks data files here
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parents[1] / "resources"


def sample_dir() -> Path:
    return resources_dir() / "samples"
