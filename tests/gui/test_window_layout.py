"""The window's size and place: a first size that fits the screen, the layout the user left
remembered across runs (geometry, where the player is docked, the splitters), and a saved
geometry that no longer fits today's screens brought back onto them.

Each run is a real window in its own process (`window_layout_worker.py`), closed the way a
user closes it, on offscreen screens of a chosen size: a 1920x1080 monitor, then a 1366x768
laptop, then a second monitor that was unplugged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.mcp.harness import build_library
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.ui_state import load_ui_state

pytestmark = pytest.mark.gui

MONITOR = [{"name": "monitor", "x": 0, "y": 0, "width": 1920, "height": 1080}]
LAPTOP = [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768}]
TWO = [*MONITOR, {"name": "second", "x": 1920, "y": 0, "width": 1920, "height": 1080}]
LIBRARY_SPLIT = "central/paneStack/libraryPane/QSplitter[0]/QSplitter[0]"


def open_window(tmp_path: Path, screens: list[dict[str, Any]], **do: Any) -> dict[str, Any]:
    """One run of the window on `screens`: open it, do `do`, close it; its report."""
    config = tmp_path / f"screens-{len(list(tmp_path.glob('screens-*')))}.json"
    config.write_text(
        json.dumps({"screens": [dict(s, logicalDpi=96, logicalBaseDpi=96, dpr=1) for s in screens]})
    )
    request = tmp_path / "request.json"
    request.write_text(
        json.dumps(
            {
                "library": str(tmp_path / "lib.duckdb"),
                "state": str(tmp_path / "desktop.json"),
                "do": do,
            }
        )
    )
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    done = subprocess.run(
        [sys.executable, "-m", "tests.gui.window_layout_worker", str(request)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["warnings"] == [], report["warnings"]
    return report


def inside(frame: list[int], area: list[int]) -> bool:
    x, y, w, h = frame
    ax, ay, aw, ah = area
    return ax <= x and ay <= y and x + w <= ax + aw and y + h <= ay + ah


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "lib.duckdb"
    build_library(path, [str(sample_dir())])
    return path


def test_the_first_window_fits_the_screen_and_the_next_run_opens_as_it_was_left(
    tmp_path: Path, library: Path
) -> None:
    first = open_window(
        tmp_path,
        MONITOR,
        geometry=[300, 120, 1400, 900],
        player_left=True,
        splitters={LIBRARY_SPLIT: [180, 640, 360]},
    )
    assert first["restored"] is False  # nothing saved yet: 80 % of the screen, centred
    x, y, width, height = first["geometry"]
    assert (width, height) == (1536, 864)
    assert abs((x + width / 2) - 960) <= 4 and abs((y + height / 2) - 540) <= 30
    assert first["player_area"] == "RightDockWidgetArea"
    saved = load_ui_state(tmp_path / "desktop.json").window
    assert saved["geometry"] and saved["state"] and LIBRARY_SPLIT in saved["splitters"]

    second = open_window(tmp_path, MONITOR)
    assert second["restored"] is True
    assert second["geometry"] == first["before_close"]["geometry"] == [300, 120, 1400, 900]
    assert second["player_area"] == "LeftDockWidgetArea" and second["player_visible"]
    left = first["before_close"]["splitters"][LIBRARY_SPLIT]
    assert second["splitters"][LIBRARY_SPLIT] == left


def test_a_saved_window_bigger_than_the_screen_is_shrunk_onto_it(
    tmp_path: Path, library: Path
) -> None:
    open_window(tmp_path, MONITOR, geometry=[400, 200, 1500, 860])
    laptop = open_window(tmp_path, LAPTOP)
    assert laptop["screen"] == "laptop" and laptop["available"] == [0, 0, 1366, 768]
    assert inside(laptop["frame"], laptop["available"]), laptop
    width, height = laptop["geometry"][2:]
    assert width <= 1366 and height < 768 and width >= laptop["minimum"][0]


def test_a_window_left_on_an_unplugged_monitor_comes_back_onto_the_one_left(
    tmp_path: Path, library: Path
) -> None:
    on_second = open_window(tmp_path, TWO, geometry=[2300, 150, 1300, 800])
    assert on_second["before_close"]["geometry"][0] >= 1920
    back = open_window(tmp_path, MONITOR)
    assert back["screen"] == "monitor"
    assert inside(back["frame"], back["available"]), back
    assert back["geometry"][2:] == [1300, 800]  # its size was fine: only moved
