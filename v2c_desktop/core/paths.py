"""Where the library and settings live: platformdirs, with overrides for tests and scripts.

`V2C_HOME` moves everything (tests point it at a temp dir); `V2C_LIBRARY` or `--library`
picks one library file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "v2c-desktop"
LIBRARY_FILE = "library.duckdb"


@dataclass(frozen=True)
class Paths:
    data_dir: Path
    config_dir: Path
    cache_dir: Path

    @property
    def default_library(self) -> Path:
        return self.data_dir / LIBRARY_FILE

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"


def app_paths() -> Paths:
    home = os.environ.get("V2C_HOME")
    if home:
        base = Path(home).expanduser()
        return Paths(base / "data", base / "config", base / "cache")
    return Paths(
        Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
    )


def library_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--library` first, then `V2C_LIBRARY`, then the platform's user data directory."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("V2C_LIBRARY")
    if env:
        return Path(env).expanduser().resolve()
    return app_paths().default_library
