"""The look: Fusion with a light and a dark palette that follow the system's colour scheme,
and icons on the panes and actions that draw offscreen and are redrawn in each palette."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui import look
from v2c_desktop.ui.icons import NAMES, blank_icons, painted
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.navigation import KEY_ROLE

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]


@pytest.fixture
def following(qapp: QApplication) -> Iterator[look.Look]:
    """The app's look on the test application; its palette and style put back afterwards."""
    palette, style = QPalette(qapp.palette()), qapp.style().name()
    followed = look.follow_system(qapp)
    yield followed
    followed.stop()
    qapp.setPalette(palette)
    qapp.setStyle(style)


def system_switches_to(scheme: Qt.ColorScheme) -> None:
    """What the platform does when the user turns dark mode on or off (the offscreen
    platform cannot change its scheme, so its signal is emitted as the platform would)."""
    QGuiApplication.styleHints().colorSchemeChanged.emit(scheme)


def ink(icon: QIcon) -> QColor:
    """The colour an icon is drawn in (its most opaque pixel)."""
    image = icon.pixmap(24, 24).toImage()
    pixels = [image.pixelColor(x, y) for x in range(24) for y in range(24)]
    return max(pixels, key=lambda c: c.alpha())


def test_switching_the_system_scheme_repaints_an_open_window(
    qtbot: QtBot, core: CoreAPI, make_window: MakeWindow, following: look.Look
) -> None:
    window = make_window(core)
    assert QApplication.style().name().lower() == "fusion"
    table = window.library.table
    add = window.actions_.add
    assert look.scheme_of(window.palette()) == "light"  # offscreen's scheme is unknown
    light_ink = ink(add.icon())

    with qtbot.waitSignal(following.changed) as switched:
        system_switches_to(Qt.ColorScheme.Dark)
    assert switched.args == ["dark"]
    qtbot.waitUntil(lambda: look.scheme_of(window.palette()) == "dark")  # palette events
    for widget in (window, table, window.player, window.chat_pane, window.status):
        assert look.scheme_of(widget.palette()) == "dark", widget
    assert table.palette().color(QPalette.ColorRole.Base) == QColor(
        look.DARK[QPalette.ColorRole.Base]
    )
    dark_ink = ink(add.icon())
    assert dark_ink.lightnessF() > 0.7 > light_ink.lightnessF()  # icons redrawn light on dark
    navigation = window.navigation.item(0)
    assert ink(navigation.icon()).lightnessF() > 0.7

    system_switches_to(Qt.ColorScheme.Light)
    qtbot.waitUntil(lambda: look.scheme_of(window.palette()) == "light")
    assert table.palette().color(QPalette.ColorRole.Base) == QColor(
        look.LIGHT[QPalette.ColorRole.Base]
    )
    assert ink(add.icon()).lightnessF() < 0.3


def test_the_palettes_keep_text_readable() -> None:
    for scheme in ("light", "dark"):
        colours = look.palette(scheme)
        text = colours.color(QPalette.ColorRole.Text).lightnessF()
        base = colours.color(QPalette.ColorRole.Base).lightnessF()
        assert abs(text - base) > 0.6, scheme
        disabled = colours.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        assert disabled != colours.color(QPalette.ColorRole.Text)
        assert look.scheme_of(colours) == scheme


def test_every_pane_and_menu_action_has_an_icon_that_draws_offscreen(
    qtbot: QtBot, core: CoreAPI, make_window: MakeWindow
) -> None:
    assert blank_icons() == []  # every font glyph named in NAMES exists
    window = make_window(core)
    for row in range(window.navigation.count()):
        item = window.navigation.item(row)
        assert painted(item.icon()) > 20, item.data(KEY_ROLE)
    menus = [a.menu() for a in window.menuBar().actions() if isinstance(a.menu(), QMenu)]
    titles = [m.title().replace("&", "") for m in menus]
    assert titles[:3] == ["File", "View", "Playback"] and titles[-1] == "Help"
    for menu in menus:
        for action in menu.actions():
            if action.isSeparator() or not isinstance(action, QAction):
                continue
            assert painted(action.icon()) > 20, f"{menu.title()} > {action.text()} has no icon"
    assert set(NAMES) >= {"library", "search", "chat", "add", "settings", "about"}
