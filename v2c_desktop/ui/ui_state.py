"""What the desktop app remembers about itself (not user settings): first-run choices and
the window's layout (`window_layout.py`: geometry, the docks, the splitters).

The typed `Settings` model lives in the core and keeps only the fields it knows, so app
state would be dropped by the next `save_settings`. It is kept beside it instead, in
`desktop.json` in the same config folder, written atomically like the settings.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from v2c_desktop.core.paths import app_paths

log = logging.getLogger(__name__)
STATE_FILE = "desktop.json"


@dataclass
class UiState:
    """`first_run`: how the chat set-up dialog was answered ("extractive", "server",
    "download", "dismissed"), or None while it was never answered. `window`: the main
    window's layout as `window_layout.save_layout` wrote it (empty until it first closed)."""

    first_run: str | None = None
    window: dict[str, Any] = field(default_factory=dict)


def state_path() -> Path:
    return app_paths().config_dir / STATE_FILE


def load_ui_state(path: Path | None = None) -> UiState:
    path = path or state_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return UiState()
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %s", path, exc)
        return UiState()
    if not isinstance(data, dict):
        return UiState()
    choice, window = data.get("first_run"), data.get("window")
    return UiState(
        first_run=choice if isinstance(choice, str) else None,
        window=window if isinstance(window, dict) else {},
    )


def save_ui_state(state: UiState, path: Path | None = None) -> None:
    path = path or state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".desktop-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(state), handle, indent=2)
    os.replace(tmp, path)
