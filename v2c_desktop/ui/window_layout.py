"""The main window's size, place, docks and splitters: a first size that fits the screen, and
the layout the user left, remembered across runs.

`restore_layout(window)` runs before the window first shows: the geometry, the dock state
(`QMainWindow.saveState`: where the player is and whether it is open) and every splitter's
sizes saved when it last closed, or, the first time, 80 % of the screen's available area
(capped at `MAX_SIZE`) centred on it. `save_layout(window)` runs when it closes. Both go
to the app's state file (`ui_state.py`, beside the settings), never to user settings.

A saved geometry is trusted only as far as the screens of today allow: `fit_on_screen`
shrinks a window bigger than the screen it is on (a laptop undocked from a large monitor)
and moves one whose saved place is off every screen back onto the nearest.

Splitters are found in the window's widget tree, so a pane that adds one is remembered
without telling anybody; each is keyed by its path of object names (or class and index),
and saved sizes that no longer match its number of parts are ignored.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

from .ui_state import load_ui_state, save_ui_state

log = logging.getLogger(__name__)

SHARE_OF_SCREEN = 0.8
MAX_SIZE = QSize(1600, 1000)


# -- where the window goes the first time ---------------------------------------------------
def default_geometry(screen: QScreen) -> QRect:
    """80 % of the screen's available area, capped, centred on it."""
    area = screen.availableGeometry()
    width = min(round(area.width() * SHARE_OF_SCREEN), MAX_SIZE.width())
    height = min(round(area.height() * SHARE_OF_SCREEN), MAX_SIZE.height())
    rect = QRect(0, 0, width, height)
    rect.moveCenter(area.center())
    return rect


def _screen_for(window: QWidget) -> QScreen:
    found = QGuiApplication.screenAt(window.frameGeometry().center())
    return found or window.screen() or QGuiApplication.primaryScreen()


def fit_on_screen(window: QWidget) -> None:
    """Shrink `window` to its screen's available area and move it fully onto that screen
    (the one under its centre, else its own, else the primary). A maximized or full-screen
    window is the system's to place."""
    if window.isMaximized() or window.isFullScreen():
        return
    area = _screen_for(window).availableGeometry()
    frame, inner = window.frameGeometry(), window.geometry()
    extra_w = max(0, frame.width() - inner.width())
    extra_h = max(0, frame.height() - inner.height())
    width = max(window.minimumWidth(), min(inner.width(), area.width() - extra_w))
    height = max(window.minimumHeight(), min(inner.height(), area.height() - extra_h))
    if (width, height) != (inner.width(), inner.height()):
        window.resize(width, height)
    outer_w, outer_h = width + extra_w, height + extra_h
    x = max(area.left(), min(frame.x(), area.left() + area.width() - outer_w))
    y = max(area.top(), min(frame.y(), area.top() + area.height() - outer_h))
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)  # a top-level window's move() places its frame


# -- splitters ------------------------------------------------------------------------------
def splitter_key(splitter: QSplitter, root: QWidget) -> str:
    """The splitter's path below `root`: object names, else class name and index among the
    parent's children of that class."""
    parts: list[str] = []
    widget: QWidget | None = splitter
    while widget is not None and widget is not root:
        name = widget.objectName()
        if not name:
            parent = widget.parentWidget()
            kind = type(widget)
            same = [c for c in parent.children() if type(c) is kind] if parent else [widget]
            name = f"{kind.__name__}[{same.index(widget)}]"
        parts.append(name)
        widget = widget.parentWidget()
    return "/".join(reversed(parts))


def splitters(window: QWidget) -> dict[str, QSplitter]:
    return {splitter_key(s, window): s for s in window.findChildren(QSplitter)}


# -- save and restore -----------------------------------------------------------------------
def _encode(data: QByteArray) -> str:
    return base64.b64encode(bytes(data.data())).decode("ascii")


def _decode(text: object) -> QByteArray | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return QByteArray(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):
        return None


def layout_of(window: QMainWindow) -> dict[str, Any]:
    """What `save_layout` stores: geometry and dock state (Qt's bytes, base64), the sizes
    of every splitter."""
    return {
        "geometry": _encode(window.saveGeometry()),
        "state": _encode(window.saveState()),
        "splitters": {key: s.sizes() for key, s in splitters(window).items()},
    }


def save_layout(window: QMainWindow, path: Path | None = None) -> None:
    """Remember `window`'s layout in the app's state file (a failure is only logged)."""
    try:
        state = load_ui_state(path)
        state.window = layout_of(window)
        save_ui_state(state, path)
    except OSError as exc:
        log.warning("could not remember the window layout: %s", exc)


def restore_layout(window: QMainWindow, path: Path | None = None) -> bool:
    """Put `window` where it was when it last closed (True), or at its default place and
    size (False); either way fitted to today's screens."""
    saved = load_ui_state(path).window
    geometry = _decode(saved.get("geometry"))
    restored = geometry is not None and window.restoreGeometry(geometry)
    if not restored:
        window.setGeometry(default_geometry(_screen_for(window)))
    state = _decode(saved.get("state"))
    if state is not None and not window.restoreState(state):
        log.info("ignoring a saved window state this version cannot read")
    sizes = saved.get("splitters")
    if isinstance(sizes, dict):
        for key, splitter in splitters(window).items():
            wanted = sizes.get(key)
            if wanted is not None and _usable(wanted, splitter.count()):
                splitter.setSizes([int(n) for n in wanted])
    with contextlib.suppress(RuntimeError):
        fit_on_screen(window)
    return restored


def _usable(sizes: object, count: int) -> bool:
    return (
        isinstance(sizes, list)
        and len(sizes) == count
        and all(isinstance(n, int) and n >= 0 for n in sizes)
        and sum(sizes) > 0
    )
