"""The icons of the panes and actions, from QtAwesome's bundled Font Awesome 6 Free font.

Every icon the app shows is named here once (`NAMES`: what it means -> the font's glyph), so
menus, the navigation and dialogs agree. `bind(target, name)` puts an icon on an action,
a button or a list item and remembers it; `retint()` draws them all again in the current
palette's colours (`look.Look` calls it when the system switches between light and dark),
so an icon never stays black on a dark window.

QtAwesome draws glyphs from fonts it ships as package data (no network, no files of ours);
they load on first use and draw on the offscreen platform too. The PyInstaller spec bundles
them with `collect_data_files("qtawesome")`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import shiboken6
from PySide6.QtGui import QAction, QIcon, QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication, QListWidgetItem, QWidget

log = logging.getLogger(__name__)

NAMES: dict[str, str] = {
    # panes
    "library": "fa6s.photo-film",
    "search": "fa6s.magnifying-glass",
    "chat": "fa6s.comments",
    "brief": "fa6s.file-lines",
    "player": "fa6s.circle-play",
    # actions
    "add": "fa6s.plus",
    "add_files": "fa6s.file-circle-plus",
    "add_folder": "fa6s.folder-plus",
    "settings": "fa6s.gear",
    "chat_models": "fa6s.microchip",
    "quit": "fa6s.right-from-bracket",
    "play_pause": "fa6s.play",
    "back": "fa6s.rotate-left",
    "forward": "fa6s.rotate-right",
    "shortcuts": "fa6s.keyboard",
    "about": "fa6s.circle-info",
    "where": "fa6s.location-dot",
    "open_folder": "fa6s.folder-open",
    "copy": "fa6s.copy",
    "agents": "fa6s.robot",
}
ICON_LICENCE = (
    "Icons: Font Awesome Free 6 by Fonticons, Inc. (icons CC BY 4.0, font SIL OFL 1.1), "
    "drawn by QtAwesome (MIT)"
)


@dataclass
class _Bound:
    name: str
    alive: Callable[[], bool]
    put: Callable[[QIcon], None]


_bound: list[_Bound] = []


def icon(name: str, palette: QPalette | None = None) -> QIcon:
    """The icon `name` (a key of `NAMES`) in the colours of `palette` (the app's by default);
    an empty icon, logged, if the font cannot draw it."""
    import qtawesome

    colours = palette or QApplication.palette()
    text = colours.color(QPalette.ColorRole.ButtonText)
    try:
        drawn: QIcon = qtawesome.icon(
            NAMES[name],
            color=text,
            color_active=text,
            color_disabled=colours.color(
                QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText
            ),
            color_selected=colours.color(QPalette.ColorRole.HighlightedText),
        )
        return drawn
    except Exception as exc:  # a missing font file must not stop the window opening
        log.warning("icon %s (%s) unavailable: %s", name, NAMES.get(name), exc)
        return QIcon()


def bind(
    target: QAction | QAbstractButton | QListWidgetItem, name: str, owner: QWidget | None = None
) -> None:
    """Give `target` the icon `name` now and again after every palette switch. A list item
    is not a QObject: pass the list as `owner` (the binding lives as long as it does)."""
    if isinstance(target, QListWidgetItem) and owner is None:
        raise ValueError("a list item's icon needs its list as owner")

    def alive() -> bool:  # the owner first: a list item's wrapper outlives its list
        return (owner is None or shiboken6.isValid(owner)) and shiboken6.isValid(target)

    bound = _Bound(name, alive, target.setIcon)
    bound.put(icon(name))
    _bound[:] = [b for b in _bound if b.alive()]
    _bound.append(bound)


def retint() -> None:
    """Draw every bound icon again in the app's current palette; forget dead targets."""
    alive = [b for b in _bound if b.alive()]
    _bound[:] = alive
    for bound in alive:
        bound.put(icon(bound.name))


def painted(icon_: QIcon, size: int = 16) -> int:
    """How many pixels of `icon_` drawn at `size` are not transparent (0: nothing drew)."""
    image = icon_.pixmap(size, size).toImage()
    return sum(
        1
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y).alpha()
    )


def blank_icons() -> list[str]:
    """The names whose icon draws nothing (its font is missing, say from a frozen build)."""
    return [name for name in NAMES if not painted(icon(name))]


def bound_names() -> list[str]:
    """The names bound to live targets (for tests and the self-test)."""
    return [b.name for b in _bound if b.alive()]
